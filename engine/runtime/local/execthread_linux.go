//go:build linux

package local

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Securebits (linux/securebits.h).
const (
	secbitNoRoot                  = 1 << 0
	secbitNoRootLocked            = 1 << 1
	secbitNoSetuidFixup           = 1 << 2
	secbitNoSetuidFixupLocked     = 1 << 3
	secbitNoCapAmbientRaise       = 1 << 6
	secbitNoCapAmbientRaiseLocked = 1 << 7
)

// execThread starts programs from one OS thread whose credentials let
// nothing it execs hold a capability, even as root: its bounding set is
// empty, root gains nothing at exec (SECBIT_NOROOT) and no ambient
// capability can be raised, all locked. Credentials are per thread and a
// forked child takes its parent thread's, so the launcher keeps what it
// needs to mount on its other threads while every program it starts has
// none — so a program running as root cannot undo the launcher's mounts.
// This costs nothing per program, where a user namespace per program costs
// its creation and id maps; it is how a launcher started by
// root runs its programs.
type execThread struct {
	calls chan func()
}

// newExecThread locks a thread, drops what programs must not have, and
// serves calls on it until the launcher exits.
func newExecThread() (*execThread, error) {
	t := &execThread{calls: make(chan func())}
	errc := make(chan error, 1)
	go func() {
		// Never unlocked: the thread's credentials are not the process's,
		// and the runtime must not hand it to other goroutines.
		runtime.LockOSThread()
		err := dropExecCapabilities()
		errc <- err
		if err != nil {
			return
		}
		for f := range t.calls {
			f()
		}
	}()
	if err := <-errc; err != nil {
		return nil, err
	}
	return t, nil
}

// do runs f on the thread and waits for it.
func (t *execThread) do(f func()) {
	done := make(chan struct{})
	t.calls <- func() {
		defer close(done)
		f()
	}
	<-done
}

func dropExecCapabilities() error {
	last := 40
	if data, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
			last = n
		}
	}
	for c := 0; c <= last; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL {
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && err != unix.EINVAL {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("read capabilities: %w", err)
	}
	data[0].Inheritable, data[1].Inheritable = 0, 0
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("clear inheritable capabilities: %w", err)
	}
	bits := secbitNoRoot | secbitNoRootLocked | secbitNoSetuidFixup | secbitNoSetuidFixupLocked |
		secbitNoCapAmbientRaise | secbitNoCapAmbientRaiseLocked
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, uintptr(bits), 0, 0, 0); err != nil {
		return fmt.Errorf("set securebits: %w", err)
	}
	return nil
}
