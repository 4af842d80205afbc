package servertest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/run"
)

// neverAnswers is a server that starts and never listens, unless MODE is
// "wrong": then it answers every request 500.
const neverAnswers = `import os, sys, time
from http.server import BaseHTTPRequestHandler, HTTPServer
if os.environ.get("MODE") != "wrong":
    print("starting, but never listening", file=sys.stderr, flush=True)
    time.sleep(3600)
class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_GET(self):
        self.send_response(500)
        self.send_header("Content-Length", "0")
        self.end_headers()
    do_DELETE = do_GET
HTTPServer(("127.0.0.1", int(os.environ["PORT"])), H).serve_forever()
`

// A server that never answers makes its cases errors, each saying once
// that the server never answered, why and where its logs are: no checks
// run on what is not an answer (no "status -1" or "not valid JSON" diffs),
// so a case expecting an empty body gets no partial credit, and the
// checkpoint is inconclusive, not failed. A server that answers with the
// wrong status still fails.
func TestServerThatNeverAnswersErrsItsCases(t *testing.T) {
	dir, sub := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(sub, "server.py"), []byte(neverAnswers), 0o644)
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(`name: silent
entry_file: server.py
adapter:
  type: api
  response: json
  health_check: {path: /health, startup_timeout: 2}
timeout: 5
checkpoints:
  c1:
    groups:
      g: {type: Core}
  c2:
    groups:
      g: {type: Core, env: {MODE: wrong}}
`), 0o644)
	cases := "get: {order: 1, request: {path: /notes}, expected: {status_code: 200, output: {ok: true}}}\n" +
		"delete: {order: 2, request: {method: DELETE, path: /notes/1}, expected: {status_code: 204, output: \"\"}}\n"
	for _, cp := range []string{"c1", "c2"} {
		os.MkdirAll(filepath.Join(dir, cp), 0o755)
		os.WriteFile(filepath.Join(dir, cp, "g.yaml"), []byte(cases), 0o644)
	}

	out, res, recs := evaluateAll(t, dir, sub)
	for _, id := range []string{"get", "delete"} {
		r := recs["c1/g/"+id]
		if r == nil {
			t.Fatalf("c1/g/%s: not recorded", id)
		}
		if result.OutcomeOf(r) != result.OutcomeError || result.ErrorKindOf(r) != result.ErrorAdapter {
			t.Errorf("c1/g/%s: outcome %s (%s), want an adapter error", id, result.OutcomeOf(r), result.ErrorKindOf(r))
		}
		if r.Score != 0 || len(r.Attributes) != 0 {
			t.Errorf("c1/g/%s: score %v, attributes %+v; a case with no answer is not judged", id, r.Score, r.Attributes)
		}
		msg := r.Result.Error
		for _, want := range []string{"the server never answered", "did not answer GET /health within 2s", "connection refused",
			"server logs: artifacts/c1/g/server.stdout.log, artifacts/c1/g/server.stderr.log", "starting, but never listening"} {
			if !strings.Contains(msg, want) {
				t.Errorf("c1/g/%s: error %q does not say %q", id, msg, want)
			}
		}
		if strings.Count(msg, "never answered") != 1 {
			t.Errorf("c1/g/%s: error says it more than once: %q", id, msg)
		}
		for _, a := range r.Result.Artifacts {
			if _, err := os.Stat(filepath.Join(out, a)); err != nil {
				t.Errorf("c1/g/%s: the log the error names: %v", id, err)
			}
		}
	}
	// A server that answered, wrongly, fails its cases, judged as usual.
	for _, id := range []string{"get", "delete"} {
		r := recs["c2/g/"+id]
		if r == nil || result.OutcomeOf(r) != result.OutcomeFailed || r.Result.AdapterError || len(r.Attributes) == 0 {
			t.Errorf("c2/g/%s: want a judged failure, got %+v", id, r)
		}
	}
	if d := recs["c2/g/delete"]; d != nil && d.Score != 0.5 {
		t.Errorf("c2/g/delete: score %v; a wrong status with the expected empty body scores 0.5", d.Score)
	}

	byName := map[string]int{}
	for i, s := range res.Summaries {
		byName[s.Name] = i
	}
	c1, c2 := res.Summaries[byName["c1"]], res.Summaries[byName["c2"]]
	if c1.Verdict != result.VerdictInconclusive || c1.CasesErrored != 2 || c1.CasesFailed != 0 || c1.CasesPassed != 0 || c1.MeanScore != 0 {
		t.Errorf("c1: verdict %s, errored %d, failed %d, passed %d, mean %v; want inconclusive with 2 errors", c1.Verdict, c1.CasesErrored, c1.CasesFailed, c1.CasesPassed, c1.MeanScore)
	}
	if g := c1.GroupOutcomes["g"]; g == nil || g.Results["delete"] != 0 {
		t.Errorf("c1: group results %+v; the case expecting an empty body has no credit", g)
	}
	if c2.Verdict != result.VerdictFailed || c2.CasesFailed != 2 {
		t.Errorf("c2: verdict %s, failed %d; want failed", c2.Verdict, c2.CasesFailed)
	}
}

// evaluateAll is evaluate with records keyed checkpoint/group/id.
func evaluateAll(t *testing.T, problemDir, submission string) (string, *run.Outcome, map[string]*result.CaseRecord) {
	t.Helper()
	out, res, _ := evaluate(t, problemDir, submission)
	recs := map[string]*result.CaseRecord{}
	if err := journal.Read(filepath.Join(out, journal.FileName), func(r *result.CaseRecord) error {
		recs[r.Checkpoint+"/"+r.Group+"/"+r.ID] = r
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out, res, recs
}

// crashingPage serves a page at / and exits when /crash is asked for.
const crashingPage = `import os, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_GET(self):
        if self.path == "/crash":
            print("boom: crashing on /crash", file=sys.stderr, flush=True)
            os._exit(3)
        b = b"<h1>Hello</h1>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
HTTPServer(("127.0.0.1", int(os.environ["PORT"])), H).serve_forever()
`

// A browser step that fails because the app's server exited is the
// server's error, not the app's answer, and so is every later case of the
// group: each an error saying the server stopped answering, not judged.
// A step that fails while the server is up still fails its case.
func TestBrowserCaseWhoseServerExitedIsAnError(t *testing.T) {
	requireChromium(t)
	dir, sub := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(sub, "app.py"), []byte(crashingPage), 0o644)
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(`name: pages
entry_file: app.py
adapter: {type: browser, step_timeout: 2}
timeout: 20
checkpoints:
  c1:
    groups:
      g: {type: Core}
`), 0o644)
	os.MkdirAll(filepath.Join(dir, "c1"), 0o755)
	os.WriteFile(filepath.Join(dir, "c1", "g.yaml"), []byte(`wrong:
  order: 1
  steps: [{goto: /}, {capture: {css: h1, as: h}}]
  expected: {output: {h: Goodbye}}
crash:
  order: 2
  steps: [{goto: /crash}, {capture: {css: h1, as: h}}]
  expected: {output: {}}
after:
  order: 3
  steps: [{goto: /}]
  expected: {output: {}}
`), 0o644)
	_, _, recs := evaluateAll(t, dir, sub)
	if r := recs["c1/g/wrong"]; r == nil || result.OutcomeOf(r) != result.OutcomeFailed || len(r.Attributes) == 0 {
		t.Errorf("wrong: want a judged failure, got %+v", r)
	}
	for _, id := range []string{"crash", "after"} {
		r := recs["c1/g/"+id]
		if r == nil {
			t.Fatalf("%s: not recorded", id)
		}
		if result.OutcomeOf(r) != result.OutcomeError || !r.Result.AdapterError || len(r.Attributes) != 0 || r.Score != 0 {
			t.Errorf("%s: outcome %s, adapter_error %v, attributes %+v, score %v; want an error, not judged", id, result.OutcomeOf(r), r.Result.AdapterError, r.Attributes, r.Score)
		}
		for _, want := range []string{"the server stopped answering: server exited during the group (exit status 3)", "server logs: artifacts/c1/g/server.stdout.log", "boom: crashing on /crash"} {
			if !strings.Contains(r.Result.Error, want) {
				t.Errorf("%s: error %q does not say %q", id, r.Result.Error, want)
			}
		}
	}
}
