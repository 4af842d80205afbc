//go:build linux

package host

import (
	"os/exec"
	"syscall"
)

// bindToParent has the kernel kill a worker if wasmeval dies, so a worker
// stuck in a runaway call never outlives the run.
func bindToParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
