package local

import (
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// sysProcAttr puts the process in its own group (so the whole tree can be
// signalled at once) and has the kernel kill it if the engine dies.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// waitExit blocks until pid has exited, leaving it unreaped (WNOWAIT).
func waitExit(pid int) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return
		}
	}
}

// limitMemory caps what pid (and the children it starts later) may
// allocate: RLIMIT_DATA counts the data segment and every private writable
// mapping, which is what a process's heap is made of. It is set as the
// process starts — Go cannot set a child's limits before it runs — which
// leaves the first instructions of the program uncapped, not its work.
func limitMemory(pid int, bytes int64) error {
	if bytes <= 0 {
		return nil
	}
	lim := &unix.Rlimit{Cur: uint64(bytes), Max: uint64(bytes)}
	if err := unix.Prlimit(pid, unix.RLIMIT_DATA, lim, nil); err != nil && err != unix.ESRCH {
		return fmt.Errorf("limit the memory of process %d: %w", pid, err)
	}
	return nil
}
