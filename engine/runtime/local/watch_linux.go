//go:build linux

package local

import (
	"errors"
	"io/fs"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// changeWatch tells whether anything in a workspace changed since it was
// last looked at, using inotify: an isolated group's reset can then skip
// re-copying a workspace that no case touched (a CLI that only reads its
// input), which is most of the cost of isolation.
//
// Every kind of change counts: a file written, opened for writing
// (which also covers writes through a shared mapping), created, deleted,
// renamed, or its attributes changed. A queue overflow, or any error,
// counts as a change, so the watch can only ever cause an extra reset,
// never a missed one.
type changeWatch struct {
	fd  int
	buf []byte // event buffer, reused: changed runs before every case
}

const watchMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_CREATE | unix.IN_DELETE |
	unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_MOVED_FROM | unix.IN_MOVED_TO

// newChangeWatch watches every directory of the tree at root.
func newChangeWatch(root string) (*changeWatch, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, err
	}
	w := &changeWatch{fd: fd, buf: make([]byte, 4096)}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			_, err = unix.InotifyAddWatch(fd, p, watchMask|unix.IN_DONT_FOLLOW)
		}
		return err
	})
	if err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

// changed drains the queued events and reports whether there were any.
func (w *changeWatch) changed() bool {
	any := false
	for {
		n, err := unix.Read(w.fd, w.buf)
		switch {
		case n > 0:
			any = true
		case errors.Is(err, unix.EAGAIN):
			return any
		default:
			return true // EOF or an error: assume the worst
		}
	}
}

func (w *changeWatch) close() {
	if w != nil {
		unix.Close(w.fd)
	}
}
