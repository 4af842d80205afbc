package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// CopyOut copies the regular file rel of the workspace root to dst, a new
// file on the host (created exclusively, mode 0600), and returns its size.
// It is how the engine hands a workspace file to a program of its own that
// would otherwise open it by path (the browser, for an upload): a path is
// checked once and opened later, and in between a process running in the
// workspace can replace the file by a symlink to a host file. The read
// goes through an os.Root on root, so no symlink leads out of it whenever
// it was planted, and only a regular file is read (see openRegular): a
// FIFO, a device node or a directory is refused, naming what it is. A file
// larger than max bytes is refused rather than cut.
func CopyOut(root, rel, dst string, max int64) (int64, error) {
	if _, err := SafeJoin(root, rel); err != nil {
		return 0, err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return 0, fmt.Errorf("workspace %s: %w", root, err)
	}
	defer r.Close()
	name := filepath.FromSlash(rel)
	st, err := r.Stat(name)
	if err != nil {
		return 0, err
	}
	if !st.Mode().IsRegular() {
		return 0, fmt.Errorf("it is %s, not a regular file", kindOf(st.Mode()))
	}
	in, st, ok, err := openRegular(r, name)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, errors.New("it was replaced while it was being opened")
	}
	defer in.Close()
	if st.Size() > max {
		return 0, fmt.Errorf("it is %d bytes, more than the %d a file may have here", st.Size(), max)
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, err
	}
	// One byte past max tells a file that grew while it was read.
	n, err := io.Copy(out, io.LimitReader(in, max+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > max {
		err = fmt.Errorf("it grew past %d bytes while it was copied", max)
	}
	if err != nil {
		os.Remove(dst)
		return 0, fmt.Errorf("copy to %s: %w", dst, err)
	}
	return n, nil
}

// kindOf names a file type for messages.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}
