package local

import (
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
