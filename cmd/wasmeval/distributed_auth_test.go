package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/distribute"
	"github.com/wasmeval/wasmeval/engine/distribute/natstest"
	"github.com/wasmeval/wasmeval/engine/result"
)

// startTokenNATS starts a real nats-server with JetStream on that asks
// for token, and returns its port.
func startTokenNATS(t *testing.T, token string) int {
	t.Helper()
	natstest.Require(t)
	port := natstest.FreePort(t)
	srv := exec.Command(natstest.Bin, "-js", "-a", "127.0.0.1", "-p", strconv.Itoa(port), "-sd", t.TempDir(), "--auth", token)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
	good := "nats://" + token + "@127.0.0.1:" + strconv.Itoa(port)
	waitUntil(t, "nats-server answers", func() bool {
		nc, _, err := distribute.Connect(context.Background(), good, "probe")
		if err == nil {
			nc.Close()
		}
		return err == nil
	})
	return port
}

// A server that asks for a token takes runs and workers that give it in
// the URL; a --queue list whose first server is dead runs on the second.
func TestQueueTokenAndServerList(t *testing.T) {
	const token = "t0ken-s3cret"
	port := startTokenNATS(t, token)
	live := "nats://" + token + "@127.0.0.1:" + strconv.Itoa(port)
	dead := "nats://" + token + "@127.0.0.1:" + strconv.Itoa(natstest.FreePort(t))
	list := dead + "," + live

	w := startProc(t, "worker", "--queue", list, "--slots", "2", "--name", "tok", "--cache", t.TempDir())
	waitUntil(t, "the worker serves", func() bool { return strings.Contains(w.out.String(), "serving") })
	out := filepath.Join(t.TempDir(), "run")
	coord := startProc(t, "run", batchExample+"/problems/add", "--submission", batchExample+"/submissions/reference/add",
		"--queue", list, "--progress", "none", "--out", out, "--no-history")
	if code := coord.wait(t, "the coordinator"); code != 0 {
		t.Fatalf("run exited %d:\n%s\nworker:\n%s", code, coord.out, w.out)
	}
	eachCaseOnce(t, out, 0, result.OutcomePassed)
	for what, text := range map[string]string{"run": coord.out.String(), "worker": w.out.String()} {
		if strings.Contains(text, token) {
			t.Errorf("%s shows the token:\n%s", what, text)
		}
	}
}

// Refused authentication, an unreadable or unusable credentials file and
// a list of servers none of which answers are each one clear line and
// exit 2, for run, batch and worker alike.
func TestQueueAuthErrorsAreOneLine(t *testing.T) {
	const token = "t0ken-s3cret"
	port := startTokenNATS(t, token)
	wrong := "nats://wr0ng-t0ken@127.0.0.1:" + strconv.Itoa(port)
	live := "nats://" + token + "@127.0.0.1:" + strconv.Itoa(port)
	deadList := "nats://127.0.0.1:" + strconv.Itoa(natstest.FreePort(t)) + ",nats://127.0.0.1:" + strconv.Itoa(natstest.FreePort(t))
	missing := filepath.Join(t.TempDir(), "missing.creds")
	garbage := filepath.Join(t.TempDir(), "garbage.creds")
	if err := os.WriteFile(garbage, []byte("not a credentials file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		queue []string
		want  string
	}{
		{"wrong token", []string{"--queue", wrong}, "refused the credentials (authorization violation)"},
		{"no token", []string{"--queue", "nats://127.0.0.1:" + strconv.Itoa(port)}, "refused the credentials (authorization violation)"},
		{"dead list", []string{"--queue", deadList}, "cannot reach any of the NATS servers " + deadList},
		{"missing creds", []string{"--queue", live, "--queue-creds", missing}, "--queue-creds " + missing + ": cannot read the credentials file"},
		{"garbage creds", []string{"--queue", live, "--queue-creds", garbage}, "--queue-creds " + garbage + ": not a usable NATS credentials file"},
		{"bad server in list", []string{"--queue", live + ",http://127.0.0.1:1"}, `server "http://127.0.0.1:1": want nats://HOST:PORT`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, args := range [][]string{
				append([]string{"worker"}, tc.queue...),
				append([]string{"run", batchExample + "/problems/add", "--submission", batchExample + "/submissions/reference/add", "--out", filepath.Join(t.TempDir(), "run")}, tc.queue...),
				append([]string{"batch", batchExample + "/problems/add", "--submissions", batchExample + "/submissions", "--out", filepath.Join(t.TempDir(), "batch")}, tc.queue...),
			} {
				res := wasmeval(t, args...)
				if res.code != exitUsage || !strings.Contains(res.stderr, tc.want) || strings.Count(strings.TrimSpace(res.stderr), "\n") != 0 {
					t.Errorf("wasmeval %s: exit %d, stderr %q; want exit 2 and one line with %q", args[0], res.code, res.stderr, tc.want)
				}
				if strings.Contains(res.stderr, token) || strings.Contains(res.stderr, "wr0ng-t0ken") {
					t.Errorf("wasmeval %s: the token is shown: %q", args[0], res.stderr)
				}
			}
		})
	}
}
