//go:build unix

package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// LockDir takes the writer lock of the run directory dir, which must
// exist, or returns a *LockedError naming the process that holds it. It
// never waits: a second writer is refused at once.
func LockDir(dir string) (*Lock, error) {
	path := filepath.Join(dir, LockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if errors.Is(err, os.ErrPermission) {
		// Another user's lock file: flock works on a read-only
		// descriptor; only the pid cannot be recorded.
		f, err = os.Open(path)
	}
	if err != nil {
		return nil, fmt.Errorf("lock run directory %s: %w", dir, err)
	}
	// The descriptor is close-on-exec (as every file Go opens), so the
	// submissions and plugin workers a run starts never hold the lock
	// after the run is gone.
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if errors.Is(err, unix.EWOULDBLOCK) {
		f.Close()
		pid, held, _ := holder(path)
		if !held || pid == 0 {
			pid = recordedPID(path)
		}
		return nil, &LockedError{Dir: dir, PID: pid}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock run directory %s: %w", dir, err)
	}
	// Record the holder for the message a second writer gets where the
	// kernel's lock table cannot say. Overwritten in place, not truncated
	// first, so that a full disk still has room for it; a failure here
	// costs only that message, not the lock.
	pid := []byte(strconv.Itoa(os.Getpid()) + "\n")
	if _, err := f.WriteAt(pid, 0); err == nil {
		f.Truncate(int64(len(pid)))
	}
	return &Lock{f: f, Dir: dir}, nil
}
