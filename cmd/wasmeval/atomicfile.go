package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/wasmeval/wasmeval/engine/report/runfile"
)

// writeFileAtomic writes path through fill into a temporary file beside it
// and renames it into place only once everything was written: a failure
// (a full disk) leaves the previous file, never half of a new one. An
// error of fill that is an exit status (compare's regressions) still
// keeps the file it wrote.
func writeFileAtomic(path string, fill func(io.Writer) error) error {
	// The mode of a run directory's files (0644 less the umask), not
	// os.CreateTemp's 0600: a report is written to be read by others.
	f, err := runfile.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after the rename, there is nothing left to remove
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
	// Synced before the rename, so a crash right after it cannot leave
	// an empty file where the previous report was.
	if err := f.Sync(); err != nil {
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
