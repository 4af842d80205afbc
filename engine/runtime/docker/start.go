package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/wasmeval/wasmeval/engine/runtime"
)

// Endpoint picks a port for a server in the container and opens a
// forwarder on the engine's loopback interface that reaches it.
//
// The container keeps the spec's network (none by default): rather than
// giving the submission a network the engine could reach (and the
// submission could use), every connection to Dial is carried into the
// container by an exec of `nc 127.0.0.1 PORT`, which reaches the server
// over the container's own loopback. A connection accepted before the
// server listens is closed at once, as a refused connection would be.
func (s *session) Endpoint(ctx context.Context) (runtime.Endpoint, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return runtime.Endpoint{}, errors.New("session is closed")
	}
	// The container has a network namespace of its own, so any port is
	// free unless the submission took it; successive calls differ.
	port := 20000 + rand.IntN(20000) + len(s.fwds)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return runtime.Endpoint{}, fmt.Errorf("open forwarder: %w", err)
	}
	f := &forwarder{s: s, l: l, port: port}
	s.fwds = append(s.fwds, f)
	go f.serve()
	return runtime.Endpoint{Host: "0.0.0.0", Port: port, Dial: l.Addr().String()}, nil
}

// forwarder carries connections from the engine into the container.
type forwarder struct {
	s    *session
	l    net.Listener
	port int
	wg   sync.WaitGroup
}

func (f *forwarder) serve() {
	for {
		c, err := f.l.Accept()
		if err != nil {
			return
		}
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			f.carry(c)
		}()
	}
}

func (f *forwarder) carry(c net.Conn) {
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ex, err := f.s.cli.ContainerExecCreate(ctx, f.s.container(), container.ExecOptions{
		Cmd:         []string{helperPath, "nc", "127.0.0.1", strconv.Itoa(f.port)},
		AttachStdin: true, AttachStdout: true, AttachStderr: true,
	})
	if err != nil {
		return
	}
	att, err := f.s.cli.ContainerExecAttach(ctx, ex.ID, container.ExecAttachOptions{})
	if err != nil {
		return
	}
	defer att.Close()
	go func() {
		io.Copy(att.Conn, c)
		att.CloseWrite()
	}()
	stdcopy.StdCopy(c, io.Discard, att.Reader)
}

func (f *forwarder) close() {
	f.l.Close()
}

// Start launches a long-running process through an exec of its own. Its
// processes are the exec's tree, which case ends and timeouts spare (see
// tree.go); Stop (or Close) kills that tree inside the container.
func (s *session) Start(ctx context.Context, req runtime.StartRequest) (runtime.Process, error) {
	if len(req.Argv) == 0 {
		return nil, errors.New("empty command")
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errors.New("session is closed")
	}
	s.mu.Unlock()
	startMark := "wasmeval-" + newToken()
	cmd := wrapperArgs("wasmeval-server", startMark, req.Env, req.Argv)
	ex, err := s.cli.ContainerExecCreate(ctx, s.container(), container.ExecOptions{
		Cmd: cmd, Env: s.environ(req.Env), WorkingDir: s.rt.opts.Spec.Workdir,
		AttachStdout: true, AttachStderr: true,
	})
	if err != nil {
		return nil, fmt.Errorf("create exec: %w", err)
	}
	att, err := s.cli.ContainerExecAttach(ctx, ex.ID, container.ExecAttachOptions{})
	if err != nil {
		return nil, fmt.Errorf("attach exec: %w", err)
	}
	stdout, stderr := orDiscard(req.Stdout), orDiscard(req.Stderr)
	p := &process{s: s, root: newRootPID(stdout), exited: make(chan struct{}), conn: att.Close}
	// Registered before its exec runs anything, so no sweep meanwhile
	// takes the container for quiet.
	s.mu.Lock()
	s.procs = append(s.procs, p)
	s.mu.Unlock()
	go func() {
		defer att.Close()
		// A start failure (program not found) is reported on stderr
		// behind the mark; it goes to the caller's stderr without it.
		stdcopy.StdCopy(p.root, &unmark{w: stderr, mark: []byte(startMark + ": ")}, att.Reader)
		p.root.finish()
		// As a command's exit status is read (exec.go): a busy daemon can
		// take seconds to note the exit, and giving up early would report
		// a server that exited as killed.
		ictx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
		code, err := s.exitCode(ictx, ex.ID)
		if err != nil {
			code = 128 + int(syscall.SIGKILL) // the container is gone
		}
		p.state.ExitCode = code
		if code > 128 && code <= 128+64 {
			p.state.Signal = syscall.Signal(code - 128).String()
		}
		close(p.exited)
	}()
	return p, nil
}

// process is a server started by Start.
type process struct {
	s      *session
	root   *rootPID
	exited chan struct{}
	state  runtime.ExitState
	conn   func()
	stop   sync.Once
}

func (p *process) Exited() <-chan struct{} { return p.exited }

func (p *process) State() runtime.ExitState {
	<-p.exited
	return p.state
}

// Stop kills the server's tree and waits for its exec to end.
func (p *process) Stop() error {
	p.stop.Do(func() {
		select {
		case <-p.exited:
			return
		default:
		}
		p.s.killTree(p.root)
		select {
		case <-p.exited:
		case <-time.After(drainDelay):
			p.conn() // an escaped process holds the output: stop reading it
			<-p.exited
		}
	})
	return nil
}

// unmark strips a leading mark from what is written through it.
type unmark struct {
	w    io.Writer
	mark []byte
	seen bool
}

func (u *unmark) Write(b []byte) (int, error) {
	n := len(b)
	if !u.seen {
		u.seen = true
		if len(b) >= len(u.mark) && string(b[:len(u.mark)]) == string(u.mark) {
			b = b[len(u.mark):]
		}
	}
	_, err := u.w.Write(b)
	return n, err
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
