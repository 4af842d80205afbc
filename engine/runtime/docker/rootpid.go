package docker

import (
	"bytes"
	"io"
	"strconv"
	"sync"
	"time"
)

// maxPIDLine bounds the wrapper's first line; anything longer is not one.
const maxPIDLine = 24

// rootPID takes the first line an exec's wrapper writes on stdout — its
// own PID inside the container — and passes everything after it on. The
// wrapper writes it before the case's program starts, so the program
// cannot forge it: it is the root of the tree the engine kills when the
// case times out or the server is stopped.
type rootPID struct {
	w     io.Writer
	line  []byte
	done  bool
	pid   int
	ready chan struct{}
	once  sync.Once
}

func newRootPID(w io.Writer) *rootPID {
	return &rootPID{w: w, ready: make(chan struct{})}
}

func (r *rootPID) Write(b []byte) (int, error) {
	n := len(b)
	if !r.done {
		i := bytes.IndexByte(b, '\n')
		if i < 0 && len(r.line)+len(b) <= maxPIDLine {
			r.line = append(r.line, b...)
			return n, nil
		}
		r.done = true
		if i >= 0 && len(r.line)+i <= maxPIDLine {
			r.line = append(r.line, b[:i]...)
			b = b[i+1:]
			if pid, err := strconv.Atoi(string(r.line)); err == nil && pid > 1 {
				r.pid = pid
			}
		} else {
			// Not the wrapper's line (it never started): keep it all.
			b = append(r.line, b...)
		}
		r.end()
	}
	if len(b) == 0 {
		return n, nil
	}
	if _, err := r.w.Write(b); err != nil {
		return n, err
	}
	return n, nil
}

// end marks the PID known (or never to come).
func (r *rootPID) end() { r.once.Do(func() { close(r.ready) }) }

// finish is called once the stream is over: a short first line without
// its newline was not the wrapper's, and is passed on.
func (r *rootPID) finish() {
	if !r.done {
		r.done = true
		if len(r.line) > 0 {
			r.w.Write(r.line)
		}
	}
	r.end()
}

// wait returns the PID, or 0 when there is none within d.
func (r *rootPID) wait(d time.Duration) int {
	select {
	case <-r.ready:
		return r.pid
	case <-time.After(d):
		return 0
	}
}

// known returns the PID once the stream has shown it, else 0 (the wrapper
// never started, or has not written it yet).
func (r *rootPID) known() int {
	select {
	case <-r.ready:
		return r.pid
	default:
		return 0
	}
}
