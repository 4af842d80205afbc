// Package runfile writes the files of a run directory that are replaced
// whole (manifest.json, evaluation.json, report.html, results.parquet):
// each is written to a temporary file beside it, synced and renamed into
// place, so a crash or a full disk leaves the previous version, never half
// a file.
//
// Run directories are shared (a CI artifact, a team's results volume), so
// these files get the mode every other file of a run directory has — the
// journal, run.log, the artifacts: Mode, less the process's umask, as
// os.OpenFile gives it. os.CreateTemp's 0600 made them unreadable to
// everyone but their owner while results.jsonl beside them was not.
package runfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Mode is the mode every file of a run directory is created with, before
// the umask.
const Mode fs.FileMode = 0o644

// CreateTemp creates a new file in dir for a file that will be renamed into
// place, named as os.CreateTemp names it (the last "*" of pattern replaced
// by a random string), but with Mode less the umask instead of 0600: the
// kernel applies the umask as it does to every file the engine creates, so
// no process-wide umask has to be read or changed. The caller removes it
// if it is not renamed.
func CreateTemp(dir, pattern string) (*os.File, error) {
	prefix, suffix := pattern, ""
	if i := strings.LastIndex(pattern, "*"); i >= 0 {
		prefix, suffix = pattern[:i], pattern[i+1:]
	}
	for try := 0; ; try++ {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10)+suffix)
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, Mode)
		if errors.Is(err, fs.ErrExist) && try < 10000 {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("create a temporary file in %s: %w", dir, err)
		}
		return f, nil
	}
}

// Write replaces the file at path with what fill writes, through a
// temporary file beside it that is synced before it is renamed over path.
// On any error path is left as it was and the temporary file is removed.
func Write(path string, fill func(io.Writer) error) error {
	f, err := CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after the rename, there is nothing left to remove
	bw := bufio.NewWriterSize(f, 64<<10)
	err = fill(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// WriteBytes replaces the file at path with data (see Write).
func WriteBytes(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
