//go:build linux

package host

import (
	"os"
	"os/exec"
	"syscall"
)

// bindToParent has the kernel kill a worker if wasmeval dies, so a worker
// stuck in a runaway call never outlives the run.
func bindToParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// workerPipe returns a pipe for talking to a worker. Its ends stay in
// blocking mode, so the parent's reads and writes are plain system calls
// rather than going through Go's network poller: a call then costs one
// wake-up on each side instead of a poller wake-up plus a thread hand-off,
// which is a large part of a short plugin call.
func workerPipe() (r, w *os.File, err error) {
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	return os.NewFile(uintptr(fds[0]), "|0"), os.NewFile(uintptr(fds[1]), "|1"), nil
}
