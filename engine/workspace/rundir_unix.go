//go:build unix

package workspace

import "syscall"

// processAlive reports whether a process with this id exists (one we may
// not signal exists too).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
