package workspace

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/wasmeval/wasmeval/engine/cases"
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
// refused (as by SafeJoin), so are non-regular files and files over max
// bytes. Problem files that checks and plugins read go through it.
func ReadFile(root, rel string, max int64) ([]byte, error) {
	path, err := SafeJoin(root, rel)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", rel)
	}
	if st.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes, over the %d byte cap", rel, st.Size(), max)
	}
	return io.ReadAll(io.LimitReader(f, max))
}
