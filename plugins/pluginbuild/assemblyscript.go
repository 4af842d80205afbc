package pluginbuild

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// ASSDK is the AssemblyScript SDK package, relative to the module root. Its
// node_modules (npm ci from the committed lockfile) holds the pinned
// compiler every AssemblyScript plugin of the repository is built with,
// and the packages such plugins may import (Extism's AssemblyScript PDK,
// for the host's compatibility test).
const ASSDK = "sdk/assemblyscript"

var npmOnce sync.Once
var npmErr error

// ascCompiler returns the SDK's asc, installing the pinned packages with
// `npm ci` first when they are missing.
func ascCompiler(root string) (node, asc string, err error) {
	dir := filepath.Join(root, ASSDK)
	asc = filepath.Join(dir, "node_modules", "assemblyscript", "bin", "asc.js")
	node, err = exec.LookPath("node")
	if err != nil {
		return "", "", fmt.Errorf("%w: node is not on the PATH (AssemblyScript plugins need node and npm)", ErrToolchain)
	}
	npmOnce.Do(func() {
		if installed(dir) {
			return
		}
		npm, err := exec.LookPath("npm")
		if err != nil {
			npmErr = fmt.Errorf("%w: npm is not on the PATH", ErrToolchain)
			return
		}
		if err := run(npm, dir, "ci", "--no-audit", "--no-fund"); err != nil {
			npmErr = fmt.Errorf("install the AssemblyScript compiler: %w", err)
		}
	})
	if npmErr != nil {
		return "", "", npmErr
	}
	return node, asc, nil
}

// installed says whether the SDK's node_modules holds every package its
// lockfile names: a checkout that gained one since its last npm ci (or
// never had one) is installed again.
func installed(dir string) bool {
	var lock struct {
		Packages map[string]json.RawMessage `json:"packages"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil || json.Unmarshal(data, &lock) != nil {
		return false
	}
	for path := range lock.Packages {
		if path == "" {
			continue // the SDK itself
		}
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(path), "package.json")); err != nil {
			return false
		}
	}
	return true
}

// BuildAssemblyScript compiles an AssemblyScript plugin (entry, a .ts file
// exporting the ABI's functions and importing the SDK) into out. The SDK
// speaks the native transport.
func BuildAssemblyScript(entry, out string) error { return buildAssemblyScript(entry, out) }

// BuildAssemblyScriptExtism is BuildAssemblyScript with the SDK compiled
// for Extism's ABI (--use WASMEVAL_EXTISM=1) instead of the native
// transport.
func BuildAssemblyScriptExtism(entry, out string) error {
	return buildAssemblyScript(entry, out, "--use", "WASMEVAL_EXTISM=1")
}

// BuildAssemblyScriptWith is BuildAssemblyScript with more asc arguments
// after the SDK's (a later --use or --runtime overrides an earlier one):
// for a module that does not use the SDK, such as one built with Extism's
// AssemblyScript PDK, which names its own abort handler, or one built
// with asc's minimal runtime.
func BuildAssemblyScriptWith(entry, out string, ascArgs ...string) error {
	return buildAssemblyScript(entry, out, ascArgs...)
}

func buildAssemblyScript(entry, out string, extra ...string) error {
	root, err := ModuleRoot()
	if err != nil {
		return err
	}
	node, asc, err := ascCompiler(root)
	if err != nil {
		return err
	}
	absEntry, err := filepath.Abs(entry)
	if err != nil {
		return err
	}
	relEntry, err := filepath.Rel(root, absEntry)
	if err != nil {
		return err
	}
	absOut, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	// asc runs at the module root, where the SDK's abort handler's internal
	// name is sdk/assemblyscript/assembly/abort/abort. The handler keeps the module free of an env.abort import
	// (which no host provides) and reports the message as the call's error.
	args := []string{asc, filepath.ToSlash(relEntry), "--outFile", absOut, "--optimize", "--runtime", "incremental",
		"--use", "abort=" + ASSDK + "/assembly/abort/abort/wasmevalAbort", "--noColors",
		"--path", ASSDK + "/node_modules"}
	args = append(args, extra...)
	if err := run(node, root, args...); err != nil {
		return fmt.Errorf("build AssemblyScript plugin %s: %w", entry, err)
	}
	return nil
}
