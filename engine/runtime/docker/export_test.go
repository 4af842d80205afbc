package docker

import (
	"fmt"
	"os"

	"github.com/wasmeval/wasmeval/engine/runtime"
)

// HostCounted reports whether the session counts its container's tasks
// from the host (the fast way to settle a case).
func HostCounted(s runtime.Session) bool { return s.(*session).counter() != nil }

// CountFromInside makes the session settle every case with a sweep, as it
// does when the host's cgroup filesystem is not visible to the engine.
func CountFromInside(s runtime.Session) {
	ss := s.(*session)
	ss.mu.Lock()
	ss.count = nil
	ss.noHostCount = true
	ss.mu.Unlock()
}

// Tasks is how many tasks the session's container holds besides its own
// (init and the main process, or the executor's threads), counted from
// the host; ok is false when the host's count is not visible.
func Tasks(s runtime.Session) (n int, ok bool) {
	ss := s.(*session)
	c := ss.counter()
	if c == nil {
		return 0, false
	}
	ss.mu.Lock()
	pid := ss.execPID
	ss.mu.Unlock()
	if pid == 0 {
		n, err := c.read()
		return n - baseTasks, err == nil
	}
	tids, err := c.tasks()
	if err != nil {
		return 0, false
	}
	for _, tid := range tids {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d/task/%d", pid, tid)); err != nil {
			n++
		}
	}
	return n, true
}

// ByExecutor reports whether the session runs its cases through its
// container's executor.
func ByExecutor(s runtime.Session) bool { return s.(*session).executorConn() != nil }
