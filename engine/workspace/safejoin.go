// Package workspace manages the directory a submission runs in: copying
// the submission into it, writing a case's input files and reading tracked
// files back — never letting a path from a case file reach outside it.
package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/wasmeval/wasmeval/engine/workspace/confine"
)

// SafeJoin joins a slash-separated relative path under root. It refuses
// absolute paths, ".." escapes and paths that would leave root through a
// symlink already present in the workspace (a submission could plant one to
// make the engine write or read elsewhere).
func SafeJoin(root, rel string) (string, error) {
	if rel == "" || strings.ContainsRune(rel, 0) || !filepath.IsLocal(filepath.FromSlash(rel)) {
		return "", fmt.Errorf("path %q escapes the workspace (it must be relative and stay inside it)", rel)
	}
	full := filepath.Join(root, filepath.FromSlash(rel))
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", root, err)
	}
	// Resolve the longest prefix that exists; what does not exist yet
	// cannot be a symlink.
	existing := full
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			break
		}
		existing = parent
	}
	real, err := filepath.EvalSymlinks(existing)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) { // a dangling symlink: refuse
			return "", fmt.Errorf("path %q goes through a broken symlink", rel)
		}
		return "", fmt.Errorf("path %q: %w", rel, err)
	}
	if !within(realRoot, real) {
		return "", fmt.Errorf("path %q leaves the workspace through a symlink", rel)
	}
	return full, nil
}

// within reports whether path is root or inside it (both already cleaned):
// the same rule the problem's own paths are held to (confine).
func within(root, path string) bool { return confine.Within(root, path) }
