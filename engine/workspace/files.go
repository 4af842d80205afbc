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
// The writes go through an os.Root on root (see rootio.go): the check
// names the rule a bad path breaks, and a symlink planted after it by a
// process still running in the workspace cannot redirect a write.
//
// A file of the problem (InputFile.From) is copied from its source as a
// stream, opened through the problem's confinement when it is copied, so
// its size costs no memory and a symlink swapped in after the case was
// loaded cannot lead the read out of the problem.
func WriteFiles(root string, files []cases.InputFile) error {
	if len(files) == 0 {
		return nil
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return fmt.Errorf("workspace %s: %w", root, err)
	}
	defer r.Close()
	for _, f := range files {
		if _, err := SafeJoin(root, f.Path); err != nil {
			return err
		}
		if err := writeInput(r, f); err != nil {
			return fmt.Errorf("input file %s: %w", f.Path, err)
		}
	}
	return nil
}

func writeInput(r *os.Root, f cases.InputFile) error {
	src, err := f.Open()
	if err != nil {
		return err
	}
	defer src.Close()
	return writeNew(r, filepath.FromSlash(f.Path), src, 0o644)
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
