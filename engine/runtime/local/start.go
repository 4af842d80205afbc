//go:build linux

package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"

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

// Start launches a long-running process in the workspace under a launcher
// of its own, so killing a timed-out case never kills the server; Close
// stops it like any other.
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
	l, err := s.launch(launchRequest{
		path: path, argv: req.Argv, env: environ(req.Env, token),
		stdout: orDiscard(req.Stdout), stderr: orDiscard(req.Stderr), token: token,
	})
	if err != nil {
		return nil, err
	}
	p := &process{l: l, stderr: orDiscard(req.Stderr), exited: make(chan struct{})}
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
	l      *launched
	stderr io.Writer
	exited chan struct{}
	state  runtime.ExitState
}

func (p *process) wait() {
	<-p.l.exited
	st, _, err := p.l.wait()
	if err != nil {
		// It did not start (or its launcher could not be waited for):
		// an exit like any other, reported with the server's output.
		fmt.Fprintf(p.stderr, "wasmeval: %v\n", err)
		p.state = runtime.ExitState{ExitCode: 127}
	} else {
		p.state = runtime.ExitState{ExitCode: st.Code, Signal: signalName(st.Signal)}
	}
	close(p.exited)
}

func (p *process) Exited() <-chan struct{} { return p.exited }

func (p *process) State() runtime.ExitState {
	<-p.exited
	return p.state
}

// Stop kills the server and everything it started, and waits for its exit
// to be collected.
func (p *process) Stop() error {
	p.l.kill()
	<-p.exited
	return nil
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
