//go:build !unix

package journal

import (
	"fmt"
	"os"
	"path/filepath"
)

// LockDir cannot lock a run directory on this system (there is no
// flock): it only checks that the directory can hold the lock file, and
// one writer at a time is up to the user.
func LockDir(dir string) (*Lock, error) {
	f, err := os.OpenFile(filepath.Join(dir, LockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock run directory %s: %w", dir, err)
	}
	return &Lock{f: f, Dir: dir}, nil
}
