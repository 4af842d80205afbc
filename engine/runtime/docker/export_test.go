package docker

import "github.com/wasmeval/wasmeval/engine/runtime"

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

// Tasks is how many tasks the session's container holds, counted from the
// host; ok is false when the host's count is not visible.
func Tasks(s runtime.Session) (n int, ok bool) {
	c := s.(*session).counter()
	if c == nil {
		return 0, false
	}
	n, err := c.read()
	return n, err == nil
}
