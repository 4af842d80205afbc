//go:build linux

package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strconv"
	"sync"
	"syscall"

	"github.com/wasmeval/wasmeval/engine/runtime"
)

// Endpoint reserves a free loopback port: the kernel picks it, and the
// listener is closed again so the server can bind it.
func (s *session) Endpoint(ctx context.Context) (runtime.Endpoint, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return runtime.Endpoint{}, fmt.Errorf("pick a free port: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return runtime.Endpoint{Host: "127.0.0.1", Port: port, Dial: net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}, nil
}

// Start launches a long-running process in the workspace. It carries its
// own marker (not the session's), so killing a timed-out case's strays
// never kills the server; Close stops it like any other.
func (s *session) Start(ctx context.Context, req runtime.StartRequest) (runtime.Process, error) {
	if len(req.Argv) == 0 {
		return nil, errors.New("empty command")
	}
	path, err := s.lookPath(req.Argv[0], req.Env["PATH"])
	if err != nil {
		return nil, err
	}
	s.started++
	token := s.token + "-p" + strconv.Itoa(s.started)
	cmd := &exec.Cmd{
		Path: path, Args: req.Argv, Dir: s.work, Env: environ(req.Env, token),
		Stdout: orDiscard(req.Stdout), Stderr: orDiscard(req.Stderr),
		SysProcAttr: sysProcAttr(),
		WaitDelay:   waitDelay,
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", req.Argv[0], err)
	}
	if err := limitMemory(cmd.Process.Pid, s.memory); err != nil {
		killTree(cmd.Process.Pid, token)
		cmd.Wait()
		return nil, err
	}
	p := &process{cmd: cmd, token: token, exited: make(chan struct{})}
	go p.wait()
	s.procs = append(s.procs, p)
	return p, nil
}

// stopAll stops every process Start launched (Close).
func (s *session) stopAll() {
	for _, p := range s.procs {
		p.Stop()
	}
	s.procs = nil
}

// process is a server started by Start.
type process struct {
	cmd    *exec.Cmd
	token  string
	exited chan struct{}
	state  runtime.ExitState
	stop   sync.Once
	// mu orders reaping against Stop's kill: once the exit is collected
	// the pid may be reused, so it must not be signalled any more.
	mu     sync.Mutex
	reaped bool
}

func (p *process) wait() {
	pid := p.cmd.Process.Pid
	waitExit(pid)
	// The server is gone; whatever it left in its group goes with it, so
	// the output pipes close and Wait returns.
	syscall.Kill(-pid, syscall.SIGKILL)
	p.mu.Lock()
	p.cmd.Wait()
	p.reaped = true
	p.mu.Unlock()
	p.state = exitState(p.cmd.ProcessState)
	close(p.exited)
}

func (p *process) Exited() <-chan struct{} { return p.exited }

func (p *process) State() runtime.ExitState {
	<-p.exited
	return p.state
}

// Stop kills the process tree (including anything that left the group,
// found by the process's marker) and waits for the exit to be collected.
func (p *process) Stop() error {
	p.stop.Do(func() {
		p.mu.Lock()
		if !p.reaped {
			killTree(p.cmd.Process.Pid, p.token)
		}
		p.mu.Unlock()
		<-p.exited
		killSession(p.token)
	})
	return nil
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
