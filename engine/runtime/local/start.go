//go:build linux

package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"

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
// of its own, so that the end of a case, which kills everything the case's
// launcher runs, never touches the server; Close stops it like any other.
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
	l, err := startLauncher(s.setup(), s.dir, token)
	if err != nil {
		return nil, err
	}
	prog, err := l.runProgram(s.program(path, req.Argv, environ(req.Env, token)), nil, orDiscard(req.Stdout), orDiscard(req.Stderr))
	if err != nil {
		l.close()
		return nil, err
	}
	p := &process{l: l, prog: prog, stderr: orDiscard(req.Stderr)}
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
	l      *launcherProc
	prog   *program
	stderr io.Writer
	stop   sync.Once
	report sync.Once
	state  runtime.ExitState
}

func (p *process) Exited() <-chan struct{} { return p.prog.exited }

func (p *process) State() runtime.ExitState {
	<-p.prog.exited
	p.report.Do(func() {
		var err error
		if p.state, err = p.prog.exitState(); err != nil {
			// It did not start: an exit like any other, reported by the
			// adapter with the server's output.
			fmt.Fprintf(p.stderr, "wasmeval: %v\n", err)
			p.state = runtime.ExitState{ExitCode: 127}
		}
	})
	return p.state
}

// Stop kills the server and everything it started, waits for its exit to
// be collected, and ends its launcher.
func (p *process) Stop() error {
	p.stop.Do(func() {
		p.prog.kill()
		<-p.prog.exited
		p.l.close()
	})
	return nil
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
