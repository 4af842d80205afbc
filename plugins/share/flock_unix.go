//go:build unix

package share

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// lockFile takes an advisory lock on path (created if missing), shared or
// exclusive, waiting for it; unlock releases it.
func lockFile(path string, exclusive bool) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if errors.Is(err, os.ErrPermission) || errors.Is(err, unix.EROFS) {
		f, err = os.Open(path)
		if errors.Is(err, os.ErrNotExist) && !exclusive {
			// A cache provisioned read-only without a lock file: no
			// process can write it, so there is nothing to wait for.
			return func() {}, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("lock the plugin cache: %w", err)
	}
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	for {
		err = unix.Flock(int(f.Fd()), how)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock the plugin cache %s: %w", path, err)
	}
	return func() {
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
		f.Close()
	}, nil
}

// holdFile takes a shared lock on path (created when it can be) and keeps
// it until the process exits: what the file stands for is in use. It
// returns the open file, nil when the file can neither be created nor
// opened (a read-only cache, which no one can prune).
func holdFile(path string) *os.File {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o644)
	if err != nil {
		if f, err = os.Open(path); err != nil {
			return nil
		}
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_SH)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil
	}
	return f
}

// inUse says whether a process holds path (holdFile), by trying to lock
// it exclusively without waiting; the lock taken is released at once, as
// the caller holds the cache's own lock, which keeps new holders out.
func inUse(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return true
	}
	if err == nil {
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
	}
	return false
}
