package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// writeFileAtomic writes path through fill into a temporary file beside it
// and renames it into place only once everything was written: a failure
// (a full disk) leaves the previous file, never half of a new one. An
// error of fill that is an exit status (compare's regressions) still
// keeps the file it wrote.
func writeFileAtomic(path string, fill func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after the rename, there is nothing left to remove
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	bw := bufio.NewWriter(f)
	fillErr := fill(bw)
	if _, ok := fillErr.(*exitError); fillErr != nil && !ok {
		f.Close()
		return fillErr
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	return fillErr
}
