//go:build linux

package local

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/wasmeval/wasmeval/engine/runtime"
)

// stopGrace is how long a launcher gets to kill a program and report after
// it is asked to, before the engine kills the launcher itself. It does
// this in microseconds; the margin is for a machine under load.
const stopGrace = 30 * time.Second

// launcherProc is the engine's side of one running launcher (see
// launcher_linux.go): a group's cases run one after another in one
// launcher, so the process start it costs is paid once per group.
type launcherProc struct {
	cmd     *exec.Cmd
	sock    *os.File // the engine's end of the socket
	ns      bool
	token   string        // marker for the sweep without namespaces
	replies chan reply    // from the launcher, in order; closed when it is gone
	gone    chan struct{} // closed once the launcher has exited and is reaped
	sendM   sync.Mutex    // one message at a time
}

// errLauncherGone is a launcher that exited before it answered.
var errLauncherGone = errors.New("the launcher exited unexpectedly")

// startLauncher starts a launcher and sets it up. The setup's mounts and
// namespaces last for the launcher's life.
func startLauncher(setup launchSetup, dir, token string) (*launcherProc, error) {
	setup.Uid, setup.Gid = os.Getuid(), os.Getgid()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("start launcher: %w", err)
	}
	mine, theirs := os.NewFile(uintptr(fds[0]), "launcher"), os.NewFile(uintptr(fds[1]), "launcher")
	cmd := &exec.Cmd{
		Path: "/proc/self/exe", Args: []string{"wasmeval-launcher"},
		// The launcher's own environment is not a program's: programs get
		// theirs in each run request, so nothing meant for them (GOGC,
		// GODEBUG…) changes how the launcher runs. It blocks in two system
		// calls at once (the socket, and waiting for its children).
		Env:         []string{launcherEnv + "=init", "GOMAXPROCS=2"},
		Dir:         dir,
		ExtraFiles:  []*os.File{theirs},
		SysProcAttr: launcherAttr(setup.Namespaces),
	}
	err = cmd.Start()
	theirs.Close()
	if err != nil {
		mine.Close()
		return nil, fmt.Errorf("start launcher: %w", err)
	}
	l := &launcherProc{cmd: cmd, sock: mine, ns: setup.Namespaces, token: token, replies: make(chan reply, 4), gone: make(chan struct{})}
	go l.read()
	if err := l.send(request{Op: "setup", Setup: &setup}); err != nil {
		l.close()
		return nil, fmt.Errorf("set up launcher: %w", err)
	}
	r, ok := <-l.replies
	if !ok || r.Op != "ready" {
		l.close()
		if r.Error != "" {
			return nil, fmt.Errorf("set up launcher: %s", r.Error)
		}
		return nil, fmt.Errorf("set up launcher: %w", errLauncherGone)
	}
	return l, nil
}

// read passes the launcher's replies on until it is gone, then reaps it.
func (l *launcherProc) read() {
	fd := int(l.sock.Fd())
	for {
		var r reply
		files, err := recvMessage(fd, &r)
		closeAll(files)
		if err != nil {
			break
		}
		l.replies <- r
	}
	close(l.replies)
	l.cmd.Wait()
	if !l.ns {
		// A launcher without namespaces can be killed by its program
		// before it kills what the program left: sweep for them.
		killSession(l.token)
	}
	close(l.gone)
}

func (l *launcherProc) send(r request, files ...int) error {
	l.sendM.Lock()
	defer l.sendM.Unlock()
	return sendMessage(int(l.sock.Fd()), r, files...)
}

// alive reports whether the launcher still runs.
func (l *launcherProc) alive() bool {
	select {
	case <-l.gone:
		return false
	default:
		return true
	}
}

// kill ends the launcher and everything it runs: with namespaces the kernel
// kills the whole PID namespace with its first process.
func (l *launcherProc) kill() {
	l.cmd.Process.Kill()
	if !l.ns {
		killSession(l.token)
	}
}

// close asks the launcher to kill what it runs and exit (closing the
// socket does), and waits for that, killing it if it does not.
func (l *launcherProc) close() {
	unix.Shutdown(int(l.sock.Fd()), unix.SHUT_RDWR)
	select {
	case <-l.gone:
	case <-time.After(stopGrace):
		l.kill()
		<-l.gone
	}
	l.sock.Close()
}

// program is one program running under a launcher.
type program struct {
	l      *launcherProc
	exited chan struct{} // closed once it and all it left are gone, and its output read
	status reply         // valid once exited is closed
	err    error         // it did not start, or the launcher died before it reported
	// killedLauncher says the launcher was killed by a signal while the
	// program ran: without namespaces, the program can do that.
	killedLauncher bool
	stop           sync.Once
}

// runProgram starts spec under l with the given standard streams. Output
// is copied as it comes; the program is over when exited is closed, and
// whether it started at all is known then (err), which saves a round trip
// per case.
func (l *launcherProc) runProgram(spec programSpec, stdin []byte, stdout, stderr io.Writer) (*program, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	files := []int{int(outW.Fd()), int(errW.Fd())}
	var inR, inW *os.File
	if len(stdin) > 0 {
		if inR, inW, err = os.Pipe(); err != nil {
			outR.Close()
			outW.Close()
			errR.Close()
			errW.Close()
			return nil, err
		}
		files = append(files, int(inR.Fd()))
		spec.Stdin = true
	}
	err = l.send(request{Op: "run", Run: &spec}, files...)
	outW.Close()
	errW.Close()
	if inR != nil {
		inR.Close()
	}
	if err != nil {
		outR.Close()
		errR.Close()
		if inW != nil {
			inW.Close()
		}
		return nil, err
	}
	var copying sync.WaitGroup
	copyOut := func(w io.Writer, r *os.File) {
		defer copying.Done()
		io.Copy(w, r)
	}
	copying.Add(2)
	go copyOut(stdout, outR)
	go copyOut(stderr, errR)
	if inW != nil {
		go func() {
			inW.Write(stdin) // a program that does not read its input is fine
			inW.Close()
		}()
	}
	p := &program{l: l, exited: make(chan struct{})}
	go func() {
		// The launcher answers once: how the program ended, or why it
		// could not start.
		r, ok := <-l.replies
		switch {
		case ok && r.Op == "error":
			p.err = errors.New(r.Error)
		case ok:
			p.status = r
		default:
			p.err = errLauncherGone
			<-l.gone // so the session sees it gone and starts another
			if ws, _ := l.cmd.ProcessState.Sys().(syscall.WaitStatus); ws.Signaled() {
				// Killed — without namespaces, by its program: the program
				// ran, and is reported killed.
				p.killedLauncher = true
			}
		}
		// Everything that held the output pipes is dead by now, unless
		// the launcher was; bound the wait for a process that escaped it.
		drained := make(chan struct{})
		go func() {
			copying.Wait()
			close(drained)
		}()
		select {
		case <-drained:
		case <-time.After(waitDelay):
			outR.Close()
			errR.Close()
			<-drained
		}
		outR.Close()
		errR.Close()
		close(p.exited)
	}()
	return p, nil
}

// exitState is how the program ended (once exited is closed), or why it
// did not start.
func (p *program) exitState() (runtime.ExitState, error) {
	switch {
	case p.killedLauncher:
		// The program killed its launcher (possible without namespaces):
		// killed, by its own doing.
		return runtime.ExitState{ExitCode: 128 + int(syscall.SIGKILL), Signal: signalName(int(syscall.SIGKILL))}, nil
	case p.err != nil:
		return runtime.ExitState{}, p.err
	}
	return runtime.ExitState{ExitCode: p.status.Code, Signal: signalName(p.status.Signal)}, nil
}

// kill ends the program and everything it started: the launcher is asked
// to, and killed itself if it does not within stopGrace.
func (p *program) kill() {
	p.stop.Do(func() {
		if err := p.l.send(request{Op: "kill"}); err != nil {
			p.l.kill()
			return
		}
		go func() {
			select {
			case <-p.exited:
			case <-time.After(stopGrace):
				p.l.kill()
			}
		}()
	})
}

// launcherAttr puts the launcher in a process group of its own and —
// when namespaces are used — makes it the first process of a new PID and
// mount namespace that the kernel kills whole if the engine dies (without
// root, a user namespace mapping only the engine's own ids comes with
// them). Without namespaces the engine's death closes the socket instead,
// and the launcher kills its tree: killing the launcher at once would
// leave that tree behind.
func launcherAttr(ns bool) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true}
	if !ns {
		return attr
	}
	attr.Pdeathsig = syscall.SIGKILL
	attr.Cloneflags = syscall.CLONE_NEWPID | syscall.CLONE_NEWNS
	if uid, gid := os.Getuid(), os.Getgid(); uid != 0 {
		// Root of its own user namespace, so it keeps the capabilities to
		// mount after its exec; its programs are the user again (see
		// launchSetup.Uid).
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: gid, Size: 1}}
		attr.GidMappingsEnableSetgroups = false
	}
	return attr
}
