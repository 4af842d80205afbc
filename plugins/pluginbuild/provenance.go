package pluginbuild

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/pin"
	"github.com/wasmeval/wasmeval/plugins/provenance"
)

// gitState is the source tree's commit, dirtiness and origin, read once
// per build (every plugin of a build comes from the same tree).
type gitState struct {
	commit, origin string
	dirty          bool
}

var (
	gitOnce   sync.Map // root → *gitState
	toolOnce  sync.Map // language → toolchain
	toolMutex sync.Mutex
)

func gitOf(root string) *gitState {
	if g, ok := gitOnce.Load(root); ok {
		return g.(*gitState)
	}
	g := &gitState{}
	git := func(args ...string) (string, error) {
		out, err := exec.Command("git", append([]string{"-C", root}, args...)...).Output()
		return strings.TrimSpace(string(out)), err
	}
	// Not a git checkout (a source tarball): no commit, and nothing is
	// claimed about it.
	if c, err := git("rev-parse", "HEAD"); err == nil {
		g.commit = c
		// Tracked files only: the built modules and their provenance
		// files are ignored, and untracked scratch files do not make
		// the build differ from the commit.
		if st, err := git("status", "--porcelain", "--untracked-files=no"); err == nil {
			g.dirty = st != ""
		}
		if o, err := git("remote", "get-url", "origin"); err == nil && !strings.ContainsAny(o, "@") {
			// A URL with user info may hold a token; it is not recorded.
			g.origin = o
		}
	}
	actual, _ := gitOnce.LoadOrStore(root, g)
	return actual.(*gitState)
}

// toolchain is the compiler used for lang: its version line and path.
type toolchain struct{ version, path string }

func toolchainOf(root, lang string) (toolchain, error) {
	if t, ok := toolOnce.Load(lang); ok {
		return t.(toolchain), nil
	}
	toolMutex.Lock()
	defer toolMutex.Unlock()
	var t toolchain
	switch lang {
	case Go:
		t.path = goTool()
		out, err := exec.Command(t.path, "version").Output()
		if err != nil {
			return t, fmt.Errorf("%s version: %w", t.path, err)
		}
		t.version = strings.TrimSpace(string(out))
		if abs, err := exec.LookPath(t.path); err == nil {
			t.path = abs
		}
	case Rust:
		rc, err := rustc()
		if err != nil {
			return t, err
		}
		out, err := exec.Command(rc, "--version").Output()
		if err != nil {
			return t, fmt.Errorf("%s --version: %w", rc, err)
		}
		t.path, t.version = rc, strings.TrimSpace(string(out))
	case AssemblyScript:
		_, asc, err := ascCompiler(root)
		if err != nil {
			return t, err
		}
		v, err := packageVersion(filepath.Join(filepath.Dir(filepath.Dir(asc)), "package.json"))
		if err != nil {
			return t, err
		}
		t.path, t.version = asc, "asc "+v
	default:
		return t, fmt.Errorf("unknown language %q", lang)
	}
	toolOnce.Store(lang, t)
	return t, nil
}

// goTool is the go command of the toolchain running the build.
func goTool() string {
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		return "go"
	}
	return goBin
}

func packageVersion(file string) (string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	var p struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &p); err != nil || p.Version == "" {
		return "", fmt.Errorf("%s: no version", file)
	}
	return p.Version, nil
}

var cargoVersion = regexp.MustCompile(`(?m)^version\s*=\s*"([^"]+)"`)

// sdkOf is the SDK a plugin of lang is written against and its version:
// the Rust crate's and the AssemblyScript package's own versions; the Go
// SDK is part of the wasmeval module, versioned by its commit, so its ABI
// version is what it records.
func sdkOf(root, lang string) (sdk, version string) {
	switch lang {
	case Go:
		return "sdk/go", fmt.Sprintf("abi %d", abi.Version)
	case Rust:
		if data, err := os.ReadFile(filepath.Join(root, "sdk", "rust", "Cargo.toml")); err == nil {
			if m := cargoVersion.FindSubmatch(data); m != nil {
				version = string(m[1])
			}
		}
		return "sdk/rust", version
	case AssemblyScript:
		version, _ = packageVersion(filepath.Join(root, "sdk", "assemblyscript", "package.json"))
		return "sdk/assemblyscript", version
	}
	return "", ""
}

// WriteProvenance records, beside the module out, how ex was built
// (out + provenance.Suffix).
func WriteProvenance(root string, ex Example, out string) error {
	t, err := toolchainOf(root, ex.Lang)
	if err != nil {
		return fmt.Errorf("provenance of %s: %w", ex.Source, err)
	}
	g := gitOf(root)
	sdk, sdkVersion := sdkOf(root, ex.Lang)
	module, err := os.ReadFile(out)
	if err != nil {
		return fmt.Errorf("provenance of %s: %w", ex.Source, err)
	}
	p := provenance.Provenance{
		Version: 1, SHA256: pin.Digest(module), Source: path.Clean(filepath.ToSlash(ex.Source)), Repository: g.origin, Commit: g.commit, Dirty: g.dirty,
		Language: ex.Lang, Toolchain: t.version, ToolchainPath: t.path, SDK: sdk, SDKVersion: sdkVersion,
	}
	return provenance.Write(provenance.FileFor(out), p)
}
