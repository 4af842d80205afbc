package executor

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// Conn is the engine's side of one executor's connection. Run, Call and
// Close are used by one goroutine at a time (a session's).
type Conn struct {
	c   net.Conn
	r   *bufio.Reader
	wmu sync.Mutex
}

// LostError says the executor's stream ended or broke: the executor died
// (with its container, since it is the container's PID 1), or stopped
// answering. What became of the container is the caller's to find out.
type LostError struct {
	Err error
	// BeforeStart says the executor was gone before the case was sent.
	BeforeStart bool
}

func (e *LostError) Error() string { return "the in-container executor was lost: " + e.Err.Error() }
func (e *LostError) Unwrap() error { return e.Err }

// Handshake reads the executor's hello on c, answers with the engine's,
// and waits for the executor to be ready, all before deadline. A peer of
// another protocol version is refused with a *VersionError.
func Handshake(c net.Conn, deadline time.Time) (*Conn, error) {
	x := &Conn{c: c, r: bufio.NewReaderSize(c, 64<<10)}
	c.SetDeadline(deadline)
	defer c.SetDeadline(time.Time{})
	kind, payload, err := readFrame(x.r)
	if err != nil {
		return nil, fmt.Errorf("docker executor: no hello: %w", err)
	}
	if _, err := checkHello(kind, payload, "executor"); err != nil {
		// Told in the peer's terms too, in case it can still read.
		writeJSON(c, Hello{Protocol: Protocol, Version: Version})
		return nil, err
	}
	if err := writeJSON(c, Hello{Protocol: Protocol, Version: Version}); err != nil {
		return nil, fmt.Errorf("docker executor: send hello: %w", err)
	}
	rep, err := x.reply()
	if err != nil {
		return nil, fmt.Errorf("docker executor: handshake: %w", err)
	}
	if rep.Op != "ready" {
		return nil, fmt.Errorf("docker executor: handshake refused: %s", rep.Error)
	}
	return x, nil
}

// reply reads frames until a control message and decodes it as a Reply.
func (x *Conn) reply() (Reply, error) {
	var rep Reply
	kind, payload, err := readFrame(x.r)
	if err != nil {
		return rep, err
	}
	if kind != kindJSON {
		return rep, fmt.Errorf("executor protocol: unexpected %q frame", kind)
	}
	if err := json.Unmarshal(payload, &rep); err != nil {
		return rep, fmt.Errorf("executor protocol: decode reply: %w", err)
	}
	return rep, nil
}

func (x *Conn) send(kind byte, payload []byte) error {
	x.wmu.Lock()
	defer x.wmu.Unlock()
	return writeFrame(x.c, kind, payload)
}

func (x *Conn) sendJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return x.send(kindJSON, b)
}

// Run runs one case and returns the executor's "exited" or "error" reply;
// stdout and stderr receive what the case wrote, up to req.OutputCap each.
// When ctx ends the case is killed, and Run returns its reply all the
// same (the caller tells a cancel apart by ctx). The executor enforces
// req.TimeoutMS itself; backstop is how much longer than that the engine
// waits before taking the executor for lost. Any failure of the stream is
// a *LostError.
func (x *Conn) Run(ctx context.Context, req Request, stdin []byte, stdout, stderr io.Writer, backstop time.Duration) (Reply, error) {
	req.Op = "run"
	req.Stdin = len(stdin) > 0
	// An executor that died since the last case has closed its end:
	// the stream reads EOF at once, and the case never started.
	x.c.SetReadDeadline(time.Now())
	_, err := x.r.Peek(1)
	x.c.SetReadDeadline(time.Time{})
	var ne net.Error
	if err != nil && !(errors.As(err, &ne) && ne.Timeout()) {
		return Reply{}, &LostError{Err: err, BeforeStart: true}
	}
	if err := x.sendJSON(req); err != nil {
		return Reply{}, &LostError{Err: fmt.Errorf("send the case: %w", err), BeforeStart: true}
	}
	for len(stdin) > 0 {
		n := min(len(stdin), chunkSize)
		if err := x.send(kindStdin, stdin[:n]); err != nil {
			return Reply{}, &LostError{Err: fmt.Errorf("send stdin: %w", err)}
		}
		stdin = stdin[n:]
	}
	if req.Stdin {
		if err := x.send(kindEOF, nil); err != nil {
			return Reply{}, &LostError{Err: fmt.Errorf("send stdin: %w", err)}
		}
	}
	over := make(chan struct{})
	defer close(over)
	go func() {
		select {
		case <-ctx.Done():
			x.sendJSON(Request{Op: "kill"})
		case <-over:
		}
	}()
	if req.TimeoutMS > 0 {
		x.c.SetReadDeadline(time.Now().Add(time.Duration(req.TimeoutMS)*time.Millisecond + backstop))
		defer x.c.SetReadDeadline(time.Time{})
	}
	for {
		kind, payload, err := readFrame(x.r)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				err = fmt.Errorf("no answer %v after the case's timeout", backstop)
			}
			return Reply{}, &LostError{Err: err}
		}
		switch kind {
		case kindStdout:
			stdout.Write(payload)
		case kindStderr:
			stderr.Write(payload)
		case kindJSON:
			var rep Reply
			if err := json.Unmarshal(payload, &rep); err != nil {
				return rep, &LostError{Err: fmt.Errorf("executor protocol: decode reply: %w", err)}
			}
			if rep.Op == "exited" || rep.Op == "error" {
				return rep, nil
			}
			return rep, &LostError{Err: fmt.Errorf("executor protocol: unexpected %q reply during a case", rep.Op)}
		default:
			return Reply{}, &LostError{Err: fmt.Errorf("executor protocol: unexpected %q frame", kind)}
		}
	}
}

// Call sends a request without a case ("sweep", "empty") and waits up to
// d for its reply.
func (x *Conn) Call(req Request, d time.Duration) (Reply, error) {
	if err := x.sendJSON(req); err != nil {
		return Reply{}, &LostError{Err: err}
	}
	x.c.SetReadDeadline(time.Now().Add(d))
	defer x.c.SetReadDeadline(time.Time{})
	rep, err := x.reply()
	if err != nil {
		return rep, &LostError{Err: err}
	}
	return rep, nil
}

// Close closes the connection; the executor then kills everything and
// exits, which stops its container.
func (x *Conn) Close() error { return x.c.Close() }

// Forward asks the executor to listen on listen inside the container and
// carry every connection to the Unix socket at to (a path inside the
// container), waiting up to d for its answer. A refusal (the address is
// taken) is an error without a *LostError in it.
func (x *Conn) Forward(listen, to string, d time.Duration) error {
	rep, err := x.Call(Request{Op: "forward", Listen: listen, To: to}, d)
	if err != nil {
		return err
	}
	if rep.Op != "forwarding" {
		if rep.Error == "" {
			rep.Error = fmt.Sprintf("unexpected %q reply", rep.Op)
		}
		return errors.New("docker executor: " + rep.Error)
	}
	return nil
}
