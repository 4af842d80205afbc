package servertest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/run"
	"github.com/wasmeval/wasmeval/engine/run/runtest"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// counterServer answers every POST /inc with the number of increments so
// far, and logs each request, so a case passes only if the server has
// seen every earlier case of its group.
const counterServer = `import os, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
port = int(os.environ["PORT"])
count = 0
class H(BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_GET(self):
        self.send_response(200); self.end_headers(); self.wfile.write(b"up")
    def do_POST(self):
        global count
        count += 1
        with open(os.environ["REQUEST_LOG"], "a") as f:
            f.write("%d\n" % count)
        body = str(count).encode()
        self.send_response(200); self.end_headers(); self.wfile.write(body)
HTTPServer(("127.0.0.1", port), H).serve_forever()
`

// A server-backed group interrupted half-way is resumed with a fresh
// server: its finished cases are sent again to rebuild the server's state
// (not recorded twice), and the rest then pass.
func TestResumeServerBackedGroup(t *testing.T) {
	runtest.RequirePython(t)
	dir, sub := t.TempDir(), t.TempDir()
	requests := filepath.Join(t.TempDir(), "requests")
	os.WriteFile(filepath.Join(sub, "server.py"), []byte(counterServer), 0o644)
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(`name: counter
entry_file: server.py
adapter:
  type: api
  health_check: {path: /health, startup_timeout: 10, delay: 0.05}
env: {REQUEST_LOG: "`+requests+`"}
checkpoints:
  c1:
    groups:
      g: {type: Core}
`), 0o644)
	os.MkdirAll(filepath.Join(dir, "c1"), 0o755)
	var cases strings.Builder
	for i, n := range []string{"1", "2", "3", "4"} {
		cases.WriteString("inc" + n + ": {order: " + string(rune('1'+i)) + ", request: {method: POST, path: /inc}, expected: {output: \"" + n + "\"}}\n")
	}
	os.WriteFile(filepath.Join(dir, "c1", "g.yaml"), []byte(cases.String()), 0o644)

	p, err := run.LoadProblem(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := runtest.Host(t, host.Options{})
	out := t.TempDir()
	opts := run.Options{Problem: p, Submission: sub, OutDir: out, Runtime: local.New(local.Options{BaseDir: t.TempDir()}),
		Loader: run.BuiltinLoader, Plugins: h}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := opts
	first.Progress = &runtest.CancelAfter{N: 2, Cancel: cancel}
	res, err := run.Run(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	jpath := filepath.Join(out, journal.FileName)
	if got := strings.Join(runtest.JournalIDs(t, jpath), ","); !res.Interrupted || got != "inc1=true,inc2=true" {
		t.Fatalf("first run: interrupted=%v journal=%s", res.Interrupted, got)
	}
	os.Remove(requests) // what the resumed run's server sees

	fin, err := run.LoadFinished(jpath)
	if err != nil {
		t.Fatal(err)
	}
	second := opts
	second.Resume = fin
	if res, err = run.Run(context.Background(), second); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(runtest.JournalIDs(t, jpath), ","); got != "inc1=true,inc2=true,inc3=true,inc4=true" {
		t.Fatalf("journal after resume: %s", got)
	}
	if s := res.Summaries[0]; res.Interrupted || !res.Passed || s.Cases != 4 || s.CasesPassed != 4 || !s.Complete {
		t.Fatalf("summary after resume: %+v", s)
	}
	// The fresh server got every request of the group, the finished
	// cases' first.
	data, _ := os.ReadFile(requests)
	if got := strings.Join(strings.Fields(string(data)), " "); got != "1 2 3 4" {
		t.Fatalf("requests the resumed run's server saw: %q", got)
	}
}
