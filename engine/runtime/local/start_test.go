//go:build linux

package local

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/runtime"
)

// syncBuffer is a Writer safe to read while the process writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestStartServerSurvivesCaseTimeoutsAndStops(t *testing.T) {
	s := openSession(t, nil)
	ep, err := s.Endpoint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if ep.Host != "127.0.0.1" || ep.Port <= 0 || ep.Dial != "127.0.0.1:"+strconv.Itoa(ep.Port) {
		t.Fatalf("endpoint %+v", ep)
	}
	var out, errOut syncBuffer
	// A tiny line server: python is what benchmark servers are written in.
	script := fmt.Sprintf(`import socket,sys
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((%q, %d)); s.listen(5)
print("listening", flush=True); print("to stderr", file=sys.stderr, flush=True)
while True:
    c,_=s.accept(); c.sendall(b"hello\n"); c.close()
`, ep.Host, ep.Port)
	p, err := s.Start(context.Background(), runtime.StartRequest{
		Argv: []string{"python3", "-c", script}, Env: baseEnv, Stdout: &out, Stderr: &errOut,
	})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the server to listen", func() bool { return strings.Contains(out.String(), "listening") })
	dial := func() string {
		c, err := net.DialTimeout("tcp", ep.Dial, 5*time.Second)
		if err != nil {
			return "dial: " + err.Error()
		}
		defer c.Close()
		buf := make([]byte, 16)
		n, _ := c.Read(buf)
		return string(buf[:n])
	}
	if got := dial(); got != "hello\n" {
		t.Fatalf("server said %q", got)
	}
	// A case that times out is killed with its strays; the server is not.
	req := sh("sleep 60")
	req.Timeout = 200 * time.Millisecond
	if res, err := s.Exec(context.Background(), req); err != nil || !res.TimedOut {
		t.Fatalf("exec: %+v %v", res, err)
	}
	if got := dial(); got != "hello\n" {
		t.Fatalf("after a case timeout the server said %q", got)
	}
	if !strings.Contains(errOut.String(), "to stderr") {
		t.Errorf("stderr %q", errOut.String())
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Exited():
	default:
		t.Fatal("Exited not closed after Stop")
	}
	if st := p.State(); st.Signal != "killed" || st.ExitCode != 128+9 {
		t.Errorf("state after Stop %+v", st)
	}
	if got := dial(); !strings.HasPrefix(got, "dial:") {
		t.Errorf("server still answers after Stop: %q", got)
	}
	if err := p.Stop(); err != nil { // idempotent
		t.Fatal(err)
	}
}

func TestStartedProcessExitIsReported(t *testing.T) {
	s := openSession(t, nil)
	p, err := s.Start(context.Background(), runtime.StartRequest{Argv: []string{"sh", "-c", "echo bye; exit 7"}, Env: baseEnv})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Exited():
	case <-time.After(20 * time.Second):
		t.Fatal("exit not noticed")
	}
	if st := p.State(); st.ExitCode != 7 || st.Signal != "" {
		t.Errorf("state %+v", st)
	}
}

func TestCloseStopsStartedProcessesAndTheirEscapees(t *testing.T) {
	eachIsolation(t, func(t *testing.T, iso Isolation) {
		s := openSessionWith(t, Options{Isolation: iso}, nil)
		started := filepath.Join(t.TempDir(), "started")
		// The server double-forks a child into its own session, with its
		// environment cleared, then keeps running.
		script := fmt.Sprintf("setsid env -i /bin/sh -c 'touch %s; exec sleep 313.1' & sleep 313.2", started)
		if _, err := s.Start(context.Background(), runtime.StartRequest{Argv: []string{"sh", "-c", script}, Env: baseEnv}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the escapee to start", func() bool {
			_, err := os.Stat(started)
			return err == nil && len(procsWith("sleep 313.1")) > 0
		})
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		assertGone(t, "sleep 313.")
	})
}

func TestStartRejectsBadCommands(t *testing.T) {
	s := openSession(t, nil)
	if _, err := s.Start(context.Background(), runtime.StartRequest{Env: baseEnv}); err == nil {
		t.Error("empty command accepted")
	}
	_, err := s.Start(context.Background(), runtime.StartRequest{Argv: []string{"no-such-server-binary"}, Env: baseEnv})
	if err == nil || !strings.Contains(err.Error(), "no-such-server-binary") {
		t.Errorf("missing program: %v", err)
	}
}
