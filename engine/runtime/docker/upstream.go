package docker

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/runtime/docker/executor"
)

var _ runtime.Upstreams = (*session)(nil)

// Ports upstreams listen on inside the container: below the range
// Endpoint picks servers' ports from (20000 and up) and below the kernel's
// ephemeral ports (32768 and up by default), so neither a server nor an
// outgoing connection in the container can take one first.
const (
	upstreamPortMin = 10000
	upstreamPortMax = 20000
)

// upstreamTries bounds the ports tried for one upstream when the
// submission holds the ones picked.
const upstreamTries = 16

// upstream is a service of the engine's (a mock) that the container's
// processes reach at 127.0.0.1:port: the container's executor listens
// there and carries each connection to a Unix socket the engine listens
// on in the session's control directory (see RATIONALE.md).
type upstream struct {
	name  string
	port  int
	inner string // the socket's path inside the container
	l     *upstreamListener
}

func (u *upstream) addr() string { return "127.0.0.1:" + strconv.Itoa(u.port) }

// Upstream opens a Unix socket in the session's control directory, which
// the container sees read-only at /.wasmeval/ctl, and has the container's
// executor listen on a loopback port of the container and carry every
// connection there. The container keeps no network but its loopback: its
// processes reach the engine's listener and nothing else. When the
// container is replaced, the new executor forwards the same ports before
// any case runs, so the address stays valid for the group.
func (s *session) Upstream(ctx context.Context, name string) (net.Listener, string, error) {
	if s.rt.exe == nil {
		why := strings.TrimPrefix(s.rt.note, "docker runtime: ")
		if why == "" {
			why = "every case runs through an exec into its container (" + ExecPerCaseEnv + "=exec or Options.ExecPerCase)"
		}
		return nil, "", fmt.Errorf("docker runtime: mock %s cannot be reached from the container: mocks on Docker need the in-container executor, which is not in use: %s", name, why)
	}
	s.mu.Lock()
	closed, n := s.closed, len(s.ups)
	taken := map[int]bool{}
	for _, u := range s.ups {
		taken[u.port] = true
	}
	s.mu.Unlock()
	if closed {
		return nil, "", errors.New("session is closed")
	}
	if err := s.brokenErr(); err != nil {
		return nil, "", err
	}
	x := s.executorConn()
	if x == nil {
		return nil, "", fmt.Errorf("docker runtime: mock %s: the container has no executor", name)
	}
	file := "up-" + strconv.Itoa(n) + ".sock"
	l, err := s.upstreamListener(file)
	if err != nil {
		return nil, "", fmt.Errorf("docker runtime: mock %s: %w", name, err)
	}
	u := &upstream{name: name, inner: controlDir + "/" + file, l: l}
	for try := 0; ; try++ {
		u.port = upstreamPortMin + rand.IntN(upstreamPortMax-upstreamPortMin)
		if taken[u.port] {
			continue
		}
		err = x.Forward(u.addr(), u.inner, cleanupTimeout)
		var le *executor.LostError
		switch {
		case err == nil:
			s.mu.Lock()
			s.ups = append(s.ups, u)
			s.mu.Unlock()
			return l, u.addr(), nil
		case errors.As(err, &le):
			l.Close()
			return nil, "", s.orLost(ctx, fmt.Errorf("docker runtime: mock %s: %w", name, err))
		case try+1 >= upstreamTries:
			l.Close()
			return nil, "", fmt.Errorf("docker runtime: mock %s: no free port in the container after %d tries: %w", name, upstreamTries, err)
		}
		taken[u.port] = true // held in the container (by a server or a case's leftover)
	}
}

// upstreamListener listens on a socket of the control directory that any
// container user may connect to. It is bound through /proc/self/fd, as
// the executor's socket is, so its path fits a socket address whatever
// the session directory's length.
func (s *session) upstreamListener(file string) (*upstreamListener, error) {
	dir := filepath.Join(s.dir, "ctl")
	if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
		return nil, fmt.Errorf("create the control directory: %w", err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("open the control directory: %w", err)
	}
	defer d.Close()
	path := filepath.Join(dir, file)
	os.Remove(path)
	ul, err := net.ListenUnix("unix", &net.UnixAddr{Name: "/proc/self/fd/" + strconv.Itoa(int(d.Fd())) + "/" + file, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	// The name it was bound by means another directory, or nothing, once
	// d is closed: the socket is removed by its own path instead.
	ul.SetUnlinkOnClose(false)
	if err := os.Chmod(path, 0o666); err != nil {
		ul.Close()
		os.Remove(path)
		return nil, fmt.Errorf("listen: %w", err)
	}
	return &upstreamListener{UnixListener: ul, path: path}, nil
}

// upstreamListener is the engine's end of an upstream. Closing it removes
// its socket, and a later container gets no forward for it.
type upstreamListener struct {
	*net.UnixListener
	path   string
	mu     sync.Mutex
	closed bool
}

func (l *upstreamListener) Addr() net.Addr { return &net.UnixAddr{Name: l.path, Net: "unix"} }

func (l *upstreamListener) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	err := l.UnixListener.Close()
	os.Remove(l.path)
	return err
}

func (l *upstreamListener) isClosed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed
}

// reforward gives a new container's executor the forwards of the group's
// upstreams, at the ports they had, before the container runs anything.
func (s *session) reforward(x *executor.Conn) error {
	s.mu.Lock()
	ups := append([]*upstream(nil), s.ups...)
	s.mu.Unlock()
	for _, u := range ups {
		if u.l.isClosed() {
			continue
		}
		if err := x.Forward(u.addr(), u.inner, cleanupTimeout); err != nil {
			return fmt.Errorf("forward mock %s to %s in the new container: %w", u.name, u.addr(), err)
		}
	}
	return nil
}

// closeUpstreams closes every upstream's listener (Close).
func (s *session) closeUpstreams() {
	s.mu.Lock()
	ups := s.ups
	s.ups = nil
	s.mu.Unlock()
	for _, u := range ups {
		u.l.Close()
	}
}
