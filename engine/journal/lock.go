package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// LockName is the lock file of a run directory. It is never removed: a
// process that opened the old file could lock it after the removal while
// another creates and locks a new one, and both would think they are the
// only writer.
const LockName = "run.lock"

// Lock is a run directory's writer lock: while a process holds it, no other
// process can start a run, a resume or a salvage in the directory. It is a
// flock(2) lock on LockName, so the kernel releases it when its process
// dies, however it dies: a killed run never leaves the directory locked.
type Lock struct {
	f   *os.File
	Dir string
}

// LockedError is what a second writer gets.
type LockedError struct {
	Dir string
	// PID is the holder's process id; 0 when it cannot be told.
	PID int
}

func (e *LockedError) Error() string {
	who := "another process"
	if e.PID > 0 {
		who = fmt.Sprintf("another wasmeval (pid %d)", e.PID)
	}
	return fmt.Sprintf("run directory %s is in use: %s is writing it; a run directory has one writer at a time: wait for it to end (or stop it), or choose another directory", e.Dir, who)
}

// Unlock releases the lock. The lock file stays (see LockName).
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// Holder says whether a process holds the lock of the run directory dir
// and which (its pid; 0 when it cannot be told), without taking the lock
// itself: a reader that took it even for a moment could make a run
// starting at that moment fail. known is false where the system cannot
// tell (outside Linux).
func Holder(dir string) (pid int, held, known bool) {
	return holder(filepath.Join(dir, LockName))
}

// recordedPID is the pid a holder wrote into the lock file (0 if none).
func recordedPID(path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}
