package journal

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// SetAsideName is the file, beside the journal, that Salvage moves corrupt
// lines to, byte for byte, so that nothing is thrown away.
const SetAsideName = "results.corrupt"

// Corruption lists every corrupt line of a journal.
type Corruption struct {
	Path  string
	Lines []*CorruptError
}

func (c *Corruption) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the results journal %s has %d corrupt line(s):", c.Path, len(c.Lines))
	for i, l := range c.Lines {
		if i == 20 {
			fmt.Fprintf(&b, "\n  … and %d more", len(c.Lines)-i)
			break
		}
		b.WriteString("\n  " + l.Error())
	}
	return b.String()
}

// Check lists the journal's corrupt lines (nil when there are none). A
// torn last line is not one: it is an unfinished write.
func Check(path string) (*Corruption, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open results journal: %w", err)
	}
	defer f.Close()
	c := &Corruption{Path: path}
	err = lines(f, func(line []byte, lineNo int, _ int64) error {
		var ce *CorruptError
		if _, err := decodeLine(path, lineNo, line); errors.As(err, &ce) {
			c.Lines = append(c.Lines, ce)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(c.Lines) == 0 {
		return nil, nil
	}
	return c, nil
}

// Salvage moves every corrupt line of the journal at path to SetAsideName
// beside it and leaves the journal with its good records, in order (and
// without a torn last line). It returns what it moved, nil when the
// journal was sound (it is then left untouched). The cases of the moved
// lines are no longer finished: a resumed run runs them again.
//
// The journal is replaced atomically: the good lines are copied to a
// temporary file that is synced and renamed over it, after the bad lines
// are safe in SetAsideName. Whatever fails (a full disk), the journal is
// either the old one or the new one. The caller holds the run directory's
// lock.
func Salvage(path string) (*Corruption, error) {
	c, err := Check(path)
	if err != nil || c == nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	src, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("salvage results journal: %w", err)
	}
	defer src.Close()
	st, err := src.Stat()
	if err != nil {
		return nil, fmt.Errorf("salvage results journal: %w", err)
	}
	good, err := os.CreateTemp(dir, ".results-*.jsonl")
	if err != nil {
		return nil, fmt.Errorf("salvage results journal %s: %w", path, err)
	}
	defer os.Remove(good.Name()) // after the rename, there is nothing left to remove
	defer good.Close()
	// The journal keeps its permissions: run directories are shared.
	if err := good.Chmod(st.Mode().Perm()); err != nil {
		return nil, fmt.Errorf("salvage results journal %s: %w", path, err)
	}
	bad, err := os.CreateTemp(dir, ".corrupt-*")
	if err != nil {
		return nil, fmt.Errorf("salvage results journal %s: %w", path, err)
	}
	defer os.Remove(bad.Name())
	defer bad.Close()
	err = lines(src, func(line []byte, lineNo int, _ int64) error {
		out := good
		if _, derr := decodeLine(path, lineNo, line); derr != nil {
			out = bad
		}
		_, werr := out.Write(line)
		return werr
	})
	if err == nil {
		err = good.Sync()
	}
	if err == nil {
		err = appendFile(filepath.Join(dir, SetAsideName), bad)
	}
	if err == nil {
		err = os.Rename(good.Name(), path)
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		return nil, fmt.Errorf("salvage results journal %s (it is unchanged): %w", path, err)
	}
	return c, nil
}

// appendFile appends what src holds to the file at path and syncs it. On
// failure the file is cut back to what it held, so a retry after freeing
// space does not set the same lines aside twice.
func appendFile(path string, src *os.File) error {
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return err
	}
	dst, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("set corrupt lines aside: %w", err)
	}
	st, err := dst.Stat()
	if err == nil {
		_, err = io.Copy(dst, src)
		if err == nil {
			err = dst.Sync()
		}
		if err != nil {
			dst.Truncate(st.Size()) // best effort: the error below is the one to report
		}
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("set corrupt lines aside in %s: %w", path, err)
	}
	return nil
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
