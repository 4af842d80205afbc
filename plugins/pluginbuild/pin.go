package pluginbuild

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/wasmeval/wasmeval/plugins/pin"
)

// pinRef matches a plugin reference's path and the sha256 that follows it
// (block or flow style).
var pinRef = regexp.MustCompile(`(path:\s*([^\s,}]+\.wasm)[\s,]+sha256:\s*)([0-9a-f]{64})`)

// pinComment matches a pin whose module the config cannot name by path —
// a plugin bound by reference (`ref: oci://…`) — followed by a comment
// saying which file of the repository it is the digest of.
var pinComment = regexp.MustCompile(`(sha256:\s*)([0-9a-f]{64})(\s*#\s*digest of\s+([^\s]+\.wasm))`)

// pinnedFiles are the files of the examples that bind plugins: problem
// configs, and the agent front-ends' suite configs (wasmeval.yaml), task
// files and eval-case configs.
var pinnedFiles = map[string]bool{"config.yaml": true, "wasmeval.yaml": true, "task.yaml": true, "eval.yaml": true}

// PinExamples rewrites the sha256 of every plugin reference in the
// examples' config files to the digest of the file it names, so that after
// changing a plugin's source (or code it imports) the examples pin what the
// build now produces. It returns the config files it changed.
func PinExamples() ([]string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return nil, err
	}
	var changed []string
	err = filepath.WalkDir(filepath.Join(root, "examples"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !pinnedFiles[d.Name()] {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out := pinRef.ReplaceAllFunc(data, func(m []byte) []byte {
			sub := pinRef.FindSubmatch(m)
			file := findUp(filepath.Dir(p), root, string(sub[2]))
			if file == "" {
				return m
			}
			module, err := os.ReadFile(file)
			if err != nil {
				return m
			}
			return append(append([]byte{}, sub[1]...), pin.Digest(module)...)
		})
		out = pinComment.ReplaceAllFunc(out, func(m []byte) []byte {
			sub := pinComment.FindSubmatch(m)
			module, err := os.ReadFile(filepath.Join(filepath.Dir(p), filepath.FromSlash(string(sub[4]))))
			if err != nil {
				return m
			}
			return append(append(append([]byte{}, sub[1]...), pin.Digest(module)...), sub[3]...)
		})
		if string(out) != string(data) {
			changed = append(changed, p)
			return os.WriteFile(p, out, 0o644)
		}
		return nil
	})
	return changed, err
}

// findUp resolves a path written relative to the problem directory from a
// config file that may sit in a checkpoint directory below it.
func findUp(dir, stop, rel string) string {
	for {
		if p := filepath.Join(dir, filepath.FromSlash(rel)); fileExists(p) {
			return p
		}
		if dir == stop || dir == filepath.Dir(dir) {
			return ""
		}
		dir = filepath.Dir(dir)
	}
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
