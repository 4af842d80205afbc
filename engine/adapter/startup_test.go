package adapter_test

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/adapter"
	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
)

// serverModeEnv makes the trivial server (api_test.go) misbehave at start:
// "silent" never listens, "hang" accepts connections and never answers,
// "slow" listens only after slowStart.
const serverModeEnv = "WASMEVAL_SERVER_MODE"

// slowStart is how long the "slow" server waits before it listens.
const slowStart = 700 * time.Millisecond

// runAsServerMode runs the misbehaving modes; false for the normal server.
// "slow" sleeps first and then lets the normal server run.
func runAsServerMode(mode string) bool {
	switch mode {
	case "silent":
		time.Sleep(time.Hour)
		return true
	case "hang":
		l, err := net.Listen("tcp", net.JoinHostPort(os.Getenv("HOST"), os.Getenv("PORT")))
		if err != nil {
			os.Exit(1)
		}
		var held []net.Conn // kept open, never answered
		for {
			c, err := l.Accept()
			if err != nil {
				return true
			}
			held = append(held, c)
		}
	case "slow":
		time.Sleep(slowStart)
	}
	return false
}

// startServer starts the trivial server in mode with the given health
// check, through the local runtime, and says how long Begin took.
func startServer(t *testing.T, mode string, health problem.HealthCheck) (*adapter.API, runtime.Session, time.Duration) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rt := local.New(local.Options{BaseDir: t.TempDir()})
	sess, err := rt.Open(context.Background(), runtime.SessionSpec{Submission: t.TempDir(), Label: "startup"})
	if err != nil {
		t.Fatal(err)
	}
	arts := t.TempDir()
	api := &adapter.API{
		Server: adapter.Server{Command: []string{exe}, Config: problem.Server{
			Env:    map[string]string{trivialServerEnv: "1", serverModeEnv: mode},
			Health: health,
		}, Artifacts: adapter.Artifacts{Dir: filepath.Join(arts, "c", "g"), Rel: "artifacts/c/g"}},
		Response: problem.ResponseText, OutputCap: 1 << 20,
	}
	began := time.Now()
	if err := api.Begin(context.Background(), sess); err != nil {
		t.Fatal(err)
	}
	took := time.Since(began)
	t.Cleanup(func() { api.End(); sess.Close() })
	return api, sess, took
}

// A server that never answers is given up on no sooner than the wait it
// was configured with, whatever the poll interval and however polls end
// (refused at once, or held open until they time out), and the message
// names that wait. (The wait used to be a count of polls, which ran out
// long before the startup timeout the message quoted.)
func TestServerWaitIsTheStartupTimeout(t *testing.T) {
	for _, tc := range []struct {
		mode  string
		delay time.Duration
		wait  time.Duration
	}{
		{"silent", 10 * time.Millisecond, 3 * time.Second},
		{"silent", 5 * time.Second, 2500 * time.Millisecond}, // the delay outlasts the wait
		{"hang", 50 * time.Millisecond, 2500 * time.Millisecond},
	} {
		t.Run(tc.mode+"-"+tc.delay.String(), func(t *testing.T) {
			api, _, took := startServer(t, tc.mode, problem.HealthCheck{Path: "/health", Delay: tc.delay, StartupTimeout: tc.wait})
			down := api.Server.Down()
			if want := "did not answer GET /health within " + tc.wait.String(); !strings.Contains(down, want) {
				t.Errorf("down: %q\nwant it to say %q", down, want)
			}
			if took < tc.wait {
				t.Errorf("gave up after %s, before the %s wait", took, tc.wait)
			}
			if api.Server.Startup() != 0 {
				t.Errorf("a server that never answered has a start-up time %s", api.Server.Startup())
			}
		})
	}
}

// A server's start-up time — from its start to its first answer to the
// health check — is on every case's result.
func TestServerStartupTimeRecorded(t *testing.T) {
	api, sess, _ := startServer(t, "slow", problem.HealthCheck{Path: "/", Delay: 20 * time.Millisecond, StartupTimeout: time.Minute})
	if down := api.Server.Down(); down != "" {
		t.Fatal(down)
	}
	if api.Server.Startup() < slowStart {
		t.Errorf("start-up time %s, but the server listened only after %s", api.Server.Startup(), slowStart)
	}
	for _, id := range []string{"one", "two"} {
		out, err := api.Run(context.Background(), sess, &cases.Case{ID: id, Request: &cases.Request{Method: http.MethodGet, Path: "/text"}, Timeout: time.Minute})
		if err != nil || out.AdapterError || out.StatusCode != 200 {
			t.Fatalf("%s: %+v %v", id, out, err)
		}
		if out.ServerStartup != api.Server.Startup().Seconds() || out.ServerStartup < slowStart.Seconds() {
			t.Errorf("%s: server_startup_s %v, want the server's %s", id, out.ServerStartup, api.Server.Startup())
		}
	}
}
