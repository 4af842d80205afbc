//go:build linux

package local

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// stopGrace is how long a launcher without namespaces gets to kill its
// tree and exit after it is asked to, before the engine kills it and sweeps
// for what is left. The launcher is ours and does this in microseconds; the
// margin is for a machine under load.
const stopGrace = 30 * time.Second

// launched is one process of a case (or a server) under its launcher.
type launched struct {
	cmd     *exec.Cmd
	control *os.File // the engine's end; closing it asks the launcher to stop
	status  *os.File
	ns      bool
	token   string
	exited  chan struct{} // closed once the launcher has exited (not yet reaped)
	stop    sync.Once
}

// launchRequest is a program to start under a launcher.
type launchRequest struct {
	path           string
	argv           []string
	env            []string
	stdin          io.Reader
	stdout, stderr io.Writer
	token          string // marker for the sweep without namespaces
}

// launch starts a launcher that runs the program. It returns once the
// launcher runs; whether the program itself started is known from wait.
func (s *session) launch(req launchRequest) (*launched, error) {
	cfg := launchConfig{
		Path: req.path, Argv: req.argv, Env: req.env, Dir: s.work,
		MemoryBytes: s.memory, Namespaces: s.ns,
	}
	if s.ns {
		cfg.Binds, cfg.Hide = s.binds, s.hide
	}
	return startLauncher(cfg, s.work, req)
}

func startLauncher(cfg launchConfig, dir string, req launchRequest) (*launched, error) {
	controlR, controlW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", cfg.Argv[0], err)
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		controlR.Close()
		controlW.Close()
		return nil, fmt.Errorf("start %s: %w", cfg.Argv[0], err)
	}
	cmd := &exec.Cmd{
		Path: "/proc/self/exe", Args: []string{"wasmeval-launcher"},
		// The launcher's own environment is not the program's: the
		// program's goes in the config, so nothing meant for the program
		// (GOGC, GODEBUG…) changes how the launcher runs.
		Env:    []string{launcherEnv + "=init", "GOMAXPROCS=1"},
		Dir:    dir,
		Stdin:  req.stdin,
		Stdout: req.stdout, Stderr: req.stderr,
		ExtraFiles:  []*os.File{controlR, statusW},
		SysProcAttr: launcherAttr(cfg.Namespaces),
		WaitDelay:   waitDelay,
	}
	err = cmd.Start()
	controlR.Close()
	statusW.Close()
	if err != nil {
		controlW.Close()
		statusR.Close()
		return nil, fmt.Errorf("start %s: %w", cfg.Argv[0], err)
	}
	l := &launched{cmd: cmd, control: controlW, status: statusR, ns: cfg.Namespaces, token: req.token, exited: make(chan struct{})}
	go func() {
		waitExit(cmd.Process.Pid)
		close(l.exited)
	}()
	line, _ := json.Marshal(cfg)
	// A launcher that died at once shows in its status, not here.
	controlW.Write(append(line, '\n'))
	return l, nil
}

// launcherAttr puts the launcher in a process group of its own and —
// when namespaces are used — makes it the first process of a new PID and
// mount namespace that the kernel kills whole if the engine dies (without
// root, a user namespace mapping only the engine's own ids comes with
// them). Without namespaces the engine's death closes the control pipe
// instead, and the launcher kills its tree: killing the launcher at once
// would leave that tree behind.
func launcherAttr(ns bool) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true}
	if !ns {
		return attr
	}
	attr.Pdeathsig = syscall.SIGKILL
	attr.Cloneflags = syscall.CLONE_NEWPID | syscall.CLONE_NEWNS
	if uid, gid := os.Getuid(), os.Getgid(); uid != 0 {
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		attr.GidMappingsEnableSetgroups = false
	}
	return attr
}

// kill ends the program and everything it started. With namespaces,
// killing the launcher is enough: the kernel kills every process of a PID
// namespace whose first process dies. Without, the launcher kills its tree
// when asked, and a launcher the program killed (it can, without a
// namespace) leaves its orphans to the marker sweep.
func (l *launched) kill() {
	l.stop.Do(func() {
		if l.ns {
			l.cmd.Process.Kill()
			return
		}
		l.control.Close()
		go func() {
			select {
			case <-l.exited:
			case <-time.After(stopGrace):
				l.cmd.Process.Kill()
				killSession(l.token)
			}
		}()
	})
}

// wait reaps the launcher (which has exited: call it after exited is
// closed) and reads how the program ended. A launcher that was killed
// reports nothing; its own end stands for the program's.
func (l *launched) wait() (launchStatus, bool, error) {
	waitErr := l.cmd.Wait()
	l.stop.Do(func() {}) // nothing to stop any more
	l.control.Close()
	defer l.status.Close()
	var st launchStatus
	line, _ := bufio.NewReader(l.status).ReadBytes('\n')
	if len(line) == 0 || json.Unmarshal(line, &st) != nil {
		if !l.ns {
			// The launcher died before it could kill the program's tree.
			killSession(l.token)
		}
		var exitErr *exec.ExitError
		if waitErr != nil && !errors.As(waitErr, &exitErr) && !errors.Is(waitErr, exec.ErrWaitDelay) {
			return st, false, fmt.Errorf("wait for the launcher: %w", waitErr)
		}
		es := exitState(l.cmd.ProcessState)
		return launchStatus{Code: es.ExitCode, Signal: signalNumber(l.cmd.ProcessState)}, false, nil
	}
	if st.Error != "" {
		return st, true, errors.New(st.Error)
	}
	return st, true, nil
}

func signalNumber(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return int(ws.Signal())
	}
	return 0
}
