//go:build linux

package host

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// bindToParent has the kernel kill a worker if wasmeval dies, so a worker
// stuck in a runaway call never outlives the run.
func bindToParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// workerPipe returns a pipe for talking to a worker. Both ends stay in
// blocking mode (os.Pipe would make them non-blocking, and the worker
// inherits that), so the worker waits for its next request in a plain read
// rather than in Go's network poller: one wake-up per request instead of a
// poller wake-up plus a thread hand-off. That was 15-20% of a near-empty
// plugin call; for the parent's ends it made no measurable difference.
func workerPipe() (r, w *os.File, err error) {
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	return os.NewFile(uintptr(fds[0]), "|0"), os.NewFile(uintptr(fds[1]), "|1"), nil
}

// moduleSeals are the seals that make a memfd's content immutable.
const moduleSeals = unix.F_SEAL_SEAL | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE

// moduleFile puts a module's bytes, already checked against their digest,
// in a sealed in-memory file that workers map instead of receiving the
// bytes over their pipe and hashing them again: a quarter of a worker's
// start for the example verifier. Once sealed, nobody can change it.
func moduleFile(data []byte) (*os.File, error) {
	fd, err := unix.MemfdCreate("wasmeval-plugin", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, os.NewSyscallError("memfd_create", err)
	}
	f := os.NewFile(uintptr(fd), "wasmeval-plugin")
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, moduleSeals); err != nil {
		f.Close()
		return nil, os.NewSyscallError("fcntl F_ADD_SEALS", err)
	}
	return f, nil
}

// mapModule maps the module file a worker was given at fd. It refuses a
// file that is not sealed, whose bytes could change after the parent
// checked them.
func mapModule(fd int) ([]byte, error) {
	seals, err := unix.FcntlInt(uintptr(fd), unix.F_GET_SEALS, 0)
	if err != nil {
		return nil, os.NewSyscallError("fcntl F_GET_SEALS", err)
	}
	if seals&moduleSeals != moduleSeals {
		return nil, fmt.Errorf("the module file is not sealed (seals %#x)", seals)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, os.NewSyscallError("fstat", err)
	}
	if st.Size == 0 {
		return nil, fmt.Errorf("the module file is empty")
	}
	data, err := unix.Mmap(fd, 0, int(st.Size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, os.NewSyscallError("mmap", err)
	}
	return data, nil
}
