package journal

import (
	"fmt"
	"os"
	"path/filepath"
)

// ReserveName is the file that holds the room a journal writer keeps
// beside the journal while it is open (see Create). A run killed outright
// leaves it behind; the next writer takes it over, and it is removed when
// that writer closes.
const ReserveName = ".wasmeval-reserve"

// ReserveBytes is the room kept: enough for the manifest and the
// checkpoint summaries of a run that stops on a full disk.
const ReserveBytes = 64 << 10

// reserve is room held on the journal's filesystem.
type reserve struct{ path string }

// makeReserve writes ReserveBytes to a file in dir. The bytes are written,
// not only allocated or left sparse, so that they are really taken from
// the filesystem's free space on every filesystem.
func makeReserve(dir string) (*reserve, error) {
	path := filepath.Join(dir, ReserveName)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("set room aside for the results journal: %w", err)
	}
	_, err = f.Write(make([]byte, ReserveBytes))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("set room aside for the results journal in %s (%d KiB): %w", dir, ReserveBytes>>10, err)
	}
	return &reserve{path: path}, nil
}

// release gives the room back.
func (r *reserve) release() {
	if r == nil || r.path == "" {
		return
	}
	os.Remove(r.path)
	r.path = ""
}
