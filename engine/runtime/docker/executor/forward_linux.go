//go:build linux

package executor

import (
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"sync"
	"time"
)

// maxForwarded bounds the connections one forward carries at a time: each
// holds two descriptors and two goroutines of PID 1. Past it, connections
// wait in the listener's backlog until one ends.
const maxForwarded = 256

// forwards are the executor's open forwards, by listen address.
type forwards struct {
	mu sync.Mutex
	ls map[string]net.Listener
}

// open starts carrying every connection to listen (inside the container)
// to the Unix socket at to: a service the engine serves (a problem's
// mock), reached by the container's processes over the container's own
// loopback while the container has no network. The carrying is done here,
// in PID 1's goroutines, so no process exists for a case's end or a sweep
// to see, spare or kill.
func (f *forwards) open(listen, to string) error {
	if !filepath.IsAbs(to) {
		return fmt.Errorf("forward: %q is not an absolute socket path", to)
	}
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("forward: listen address %q: %w", listen, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("forward: listen address %q is not a loopback address", listen)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ls == nil {
		f.ls = map[string]net.Listener{}
	}
	if _, ok := f.ls[listen]; ok {
		return fmt.Errorf("forward: %s is forwarded already", listen)
	}
	l, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("forward: %w", err)
	}
	f.ls[listen] = l
	go carryAll(l, to)
	return nil
}

// closeAll stops every forward (the executor is ending).
func (f *forwards) closeAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, l := range f.ls {
		l.Close()
	}
	f.ls = nil
}

// carryAll accepts connections on l until it is closed, and carries each
// to the socket at to.
func carryAll(l net.Listener, to string) {
	slots := make(chan struct{}, maxForwarded)
	for {
		slots <- struct{}{}
		c, err := l.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			// Out of descriptors, or a connection reset before it was
			// accepted: the forward stays, the next one may do.
			<-slots
			time.Sleep(10 * time.Millisecond)
			continue
		}
		go func() {
			defer func() { <-slots }()
			carry(c, to)
		}()
	}
}

// carry copies both ways between c and a new connection to the socket at
// to, passing each side's end of writing on to the other, until both
// directions are done. A socket that refuses (the engine closed the
// service) closes c, as a refused connection would.
func carry(c net.Conn, to string) {
	defer c.Close()
	u, err := net.Dial("unix", to)
	if err != nil {
		return
	}
	defer u.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		halfCopy(u, c, u.(*net.UnixConn).CloseWrite, c, u)
	}()
	halfCopy(c, u, c.(*net.TCPConn).CloseWrite, c, u)
	<-done
}

// halfCopy copies src to dst and then ends dst's writing. A broken
// direction (a reset, not an end) breaks the whole connection: both
// conns are closed, which also ends the other direction.
func halfCopy(dst io.Writer, src io.Reader, closeWrite func() error, a, b net.Conn) {
	if _, err := io.Copy(dst, src); err != nil {
		a.Close()
		b.Close()
		return
	}
	closeWrite()
}
