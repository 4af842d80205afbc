package workspace

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/workspace/confine"
)

// WriteFiles writes a case's input files under root, creating directories
// as needed. Paths are checked again here (not only when the case was
// loaded) because a plugin loader's cases never went through that check.
func WriteFiles(root string, files []cases.InputFile) error {
	for _, f := range files {
		full, err := SafeJoin(root, f.Path)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return fmt.Errorf("input file %s: %w", f.Path, err)
		}
		// Remove first so a symlink planted at the path is replaced, not
		// written through.
		os.Remove(full)
		if err := os.WriteFile(full, f.Content, 0o644); err != nil {
			return fmt.Errorf("input file %s: %w", f.Path, err)
		}
	}
	return nil
}

// ReadFile reads a file below root by relative path, read-only: escapes are
// refused (as by SafeJoin), so are non-regular files (opening a FIFO would
// block) and files over max bytes. Problem files that checks and plugins
// (read_asset) read go through it; the read itself goes through a
// confine.Tree, as every other problem file does.
func ReadFile(root, rel string, max int64) ([]byte, error) {
	if _, err := SafeJoin(root, rel); err != nil {
		return nil, err
	}
	tree, err := confine.New(root)
	if err != nil {
		return nil, err
	}
	return tree.ReadFileMax(rel, max)
}
