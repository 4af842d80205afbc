// Package natstest runs a real nats-server process for tests: Debian's
// nats-server, with JetStream on, on a loopback port, keeping its
// streams in a directory of the test's. A test can stop it and start it
// again on the same store (a restart), or pause it (SIGSTOP) so that it
// holds its connections and answers nothing: a server too slow to
// answer, as a loaded machine makes one.
package natstest

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Bin is Debian's nats-server (apt-get install nats-server).
const Bin = "/usr/sbin/nats-server"

// Require skips the test when nats-server is missing, and fails it
// under CI=true, where nothing may be skipped.
func Require(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(Bin); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing (apt-get install nats-server): %v", Bin, err)
		}
		t.Skipf("%s is missing (apt-get install nats-server)", Bin)
	}
}

// Server is one nats-server process, stopped when the test ends.
type Server struct {
	t      testing.TB
	port   int
	dir    string
	cmd    *exec.Cmd
	log    *os.File
	paused bool
}

// Start starts a server on a free loopback port and waits until its
// JetStream answers.
func Start(t testing.TB) *Server {
	t.Helper()
	Require(t)
	s := &Server{t: t, port: FreePort(t), dir: t.TempDir()}
	log, err := os.Create(filepath.Join(t.TempDir(), "nats.log"))
	if err != nil {
		t.Fatal(err)
	}
	s.log = log
	s.Start()
	t.Cleanup(s.Stop)
	return s
}

// FreePort is a loopback TCP port nothing listens on (at the moment asked).
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// URL is where clients connect: nats://127.0.0.1:PORT.
func (s *Server) URL() string { return "nats://127.0.0.1:" + strconv.Itoa(s.port) }

// Start starts the server (again) on its port and store, and waits
// until its JetStream answers.
func (s *Server) Start() {
	s.t.Helper()
	s.cmd = exec.Command(Bin, "-js", "-a", "127.0.0.1", "-p", strconv.Itoa(s.port), "-sd", s.dir)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	// Nothing here is timed: the machine may be busy, so the wait is
	// for the server to answer, with a wide margin.
	deadline := time.Now().Add(3 * time.Minute)
	for !s.answers() {
		if time.Now().After(deadline) {
			s.t.Fatalf("nats-server on %s does not answer after 3 minutes (its log: %s)", s.URL(), s.log.Name())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (s *Server) answers() bool {
	nc, err := nats.Connect(s.URL(), nats.Timeout(5*time.Second), nats.NoReconnect())
	if err != nil {
		return false
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = js.AccountInfo(ctx)
	return err == nil
}

// Stop stops the server (SIGTERM) and waits until it has exited; its
// store stays for Start.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	if s.paused {
		s.Resume()
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Pause stops the server's process (SIGSTOP): its connections stay
// open and nothing sent on them is answered until Resume.
func (s *Server) Pause() {
	s.t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		s.t.Fatal(err)
	}
	s.paused = true
}

// Resume lets a paused server go on (SIGCONT).
func (s *Server) Resume() {
	s.t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		s.t.Fatal(err)
	}
	s.paused = false
}
