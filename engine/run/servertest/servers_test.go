package servertest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/run"
	"github.com/wasmeval/wasmeval/engine/run/runtest"
	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/runtime/docker"
	"github.com/wasmeval/wasmeval/engine/runtime/docker/dockertest"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// evaluate runs a problem against a submission and returns the output
// directory and the records by key.
func evaluate(t *testing.T, problemDir, submission string) (string, *run.Outcome, map[string]*result.CaseRecord) {
	t.Helper()
	runtest.RequirePython(t)
	return evaluateOn(t, local.New(local.Options{BaseDir: t.TempDir()}), problemDir, submission)
}

// evaluateOn is evaluate on a given runtime.
func evaluateOn(t *testing.T, rt runtime.Runtime, problemDir, submission string) (string, *run.Outcome, map[string]*result.CaseRecord) {
	t.Helper()
	p, err := run.LoadProblem(problemDir)
	if err != nil {
		t.Fatal(err)
	}
	h := runtest.Host(t, host.Options{})
	if err := run.Validate(context.Background(), p, run.BuiltinLoader, h); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	res, err := run.Run(context.Background(), run.Options{
		Problem: p, Submission: submission, OutDir: out,
		Runtime: rt,
		Loader:  run.BuiltinLoader, Plugins: h,
	})
	if err != nil {
		t.Fatal(err)
	}
	recs := map[string]*result.CaseRecord{}
	if err := journal.Read(filepath.Join(out, journal.FileName), func(r *result.CaseRecord) error {
		recs[r.Group+"/"+r.ID] = r
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out, res, recs
}

// wrongAttributes lists a record's incorrect attributes, sorted.
func wrongAttributes(r *result.CaseRecord) []string {
	var wrong []string
	for _, a := range r.Attributes {
		if !a.IsCorrect {
			wrong = append(wrong, a.Attribute)
		}
	}
	sort.Strings(wrong)
	return wrong
}

// checkOutcomes asserts exactly which cases ran and which failed, with the
// attributes that must be wrong.
func checkOutcomes(t *testing.T, recs map[string]*result.CaseRecord, all []string, fails map[string][]string) {
	t.Helper()
	var got []string
	for k := range recs {
		got = append(got, k)
	}
	sort.Strings(got)
	want := append([]string{}, all...)
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("cases run: %v\nwant: %v", got, want)
	}
	for _, k := range all {
		r := recs[k]
		wrong, shouldFail := fails[k]
		if r.Passed == shouldFail {
			t.Errorf("%s: passed=%v, want %v (attributes %+v, result %+v)", k, r.Passed, !shouldFail, r.Attributes, r.Result)
			continue
		}
		if shouldFail && strings.Join(wrongAttributes(r), ",") != strings.Join(wrong, ",") {
			t.Errorf("%s: wrong attributes %v, want %v", k, wrongAttributes(r), wrong)
		}
	}
}

var notesCases = []string{
	"crud/create_first", "crud/create_second", "crud/list", "crud/search", "crud/get_one", "crud/delete", "crud/get_deleted",
	"errors/missing_title", "errors/not_json", "errors/unknown_route",
	"export/create", "export/zip",
	"stats/create_1", "stats/create_2", "stats/create_3", "stats/stats",
}

func TestNotesExampleReferencePasses(t *testing.T) {
	dir := "../../../examples/notes"
	out, res, recs := evaluate(t, dir, filepath.Join(dir, "submissions", "reference"))
	checkOutcomes(t, recs, notesCases, nil)
	if !res.Passed {
		t.Error("the reference submission must pass")
	}
	// Cases of a group keep their order and share the server's state: ids
	// count on from the earlier cases.
	if got := recs["crud/get_one"].Result.Output; !strings.Contains(got, `"id": 1`) {
		t.Errorf("get_one output %q", got)
	}
	// The stats case's expected value was computed from the earlier
	// responses by the stateful loader plugin.
	st := recs["stats/stats"]
	if exp := fmt.Sprint(st.Attributes[1].Expected); exp != "map[count:3 words:8]" {
		t.Errorf("stats expected %s, want the loader's count of 3 notes and 8 words", exp)
	}
	// Headers are recorded, the archive unpacked, the server's logs kept.
	zip := recs["export/zip"]
	if zip.Result.Headers["content-type"] != "application/zip" || zip.Result.Files["notes/1.txt"] != "Trip\n\npack the tent\n" {
		t.Errorf("export: headers %v files %v", zip.Result.Headers, zip.Result.Files)
	}
	for _, a := range zip.Result.Artifacts {
		if _, err := os.Stat(filepath.Join(out, a)); err != nil {
			t.Errorf("artifact %s: %v", a, err)
		}
	}
	log, err := os.ReadFile(filepath.Join(out, "artifacts", "checkpoint_1", "crud", "server.stdout.log"))
	if err != nil || !strings.Contains(string(log), "DELETE /notes/1") {
		t.Errorf("server log: %q, %v", log, err)
	}
	// Every case carries its group's server start-up time, as the journal
	// read it back: the same for the cases of one group.
	startup := map[string]float64{}
	for key, r := range recs {
		g, _, _ := strings.Cut(key, "/")
		if r.Result.ServerStartup <= 0 {
			t.Errorf("%s: server_startup_s %v, want the server's start-up time", key, r.Result.ServerStartup)
		}
		if was, ok := startup[g]; ok && was != r.Result.ServerStartup {
			t.Errorf("%s: server_startup_s %v, another case of its group has %v", key, r.Result.ServerStartup, was)
		}
		startup[g] = r.Result.ServerStartup
	}
}

var notesBrokenFails = map[string][]string{
	"crud/get_deleted":     {"output", "status_code"},
	"errors/missing_title": {"output", "status_code"},
	"export/zip":           {"files-notes/1.txt"},
	"stats/stats":          {"output"},
}

func TestNotesExampleBrokenFailsSpecificCases(t *testing.T) {
	dir := "../../../examples/notes"
	_, res, recs := evaluate(t, dir, filepath.Join(dir, "submissions", "broken"))
	checkOutcomes(t, recs, notesCases, notesBrokenFails)
	if res.Passed {
		t.Error("the broken submission must fail core-cases")
	}
	// The broken server counts characters (43), not words (8).
	if got := recs["stats/stats"].Result.Output; got != `{"count": 3, "words": 43}` {
		t.Errorf("broken stats output %q", got)
	}
}

// The API adapter runs unchanged on the Docker runtime: the server starts
// in the group's container (no network), the engine reaches it through the
// runtime's endpoint, and the outcomes are exactly the local ones.
func TestNotesExampleOnDocker(t *testing.T) {
	dir := "../../../examples/notes"
	spec := dockertest.Spec(t, dockertest.Image(t, "python"))
	drt, err := docker.New(context.Background(), docker.Options{Spec: spec, BaseDir: t.TempDir(), Client: dockertest.Client(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer drt.Close()
	_, res, recs := evaluateOn(t, drt, dir, filepath.Join(dir, "submissions", "reference"))
	checkOutcomes(t, recs, notesCases, nil)
	if !res.Passed {
		t.Error("the reference submission must pass on docker")
	}
	_, _, recs = evaluateOn(t, drt, dir, filepath.Join(dir, "submissions", "broken"))
	checkOutcomes(t, recs, notesCases, notesBrokenFails)
}

// requireChromium fails under CI (which installs it) and skips elsewhere.
func requireChromium(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is required (/usr/bin/chromium; .ci/run installs Debian's chromium package)")
		}
		t.Skip("chromium not installed (/usr/bin/chromium); install Debian's chromium package")
	}
}

var todoCases = []string{"ui/heading", "ui/empty", "ui/add_two", "ui/complete_one", "ui/import_file", "ui/clear_completed"}

func TestTodoWebExampleReferencePasses(t *testing.T) {
	requireChromium(t)
	dir := "../../../examples/todo-web"
	out, res, recs := evaluate(t, dir, filepath.Join(dir, "submissions", "reference"))
	checkOutcomes(t, recs, todoCases, nil)
	if !res.Passed {
		t.Error("the reference submission must pass")
	}
	if got := recs["ui/add_two"].Result.Output; got != `{"empty_message":false,"items":2,"left":"2","second":"Walk dog"}` {
		t.Errorf("add_two captured %s", got)
	}
	// No step failed, so no screenshots (on_failure is the default).
	shots, _ := filepath.Glob(filepath.Join(out, "artifacts", "checkpoint_1", "ui", "*.png"))
	if len(shots) != 0 {
		t.Errorf("screenshots of a passing run: %v", shots)
	}
}

func TestTodoWebExampleBrokenFailsSpecificCases(t *testing.T) {
	requireChromium(t)
	dir := "../../../examples/todo-web"
	out, _, recs := evaluate(t, dir, filepath.Join(dir, "submissions", "broken"))
	checkOutcomes(t, recs, todoCases, map[string][]string{
		"ui/heading":         {"output"},
		"ui/import_file":     {"output"},
		"ui/clear_completed": {"output"},
	})
	// A locator that matches nothing fails its step after the step timeout,
	// naming the locator, with a screenshot of the page as it was.
	r := recs["ui/clear_completed"].Result
	if r.StatusCode != 1 || !r.TimedOut || !strings.Contains(r.Error, `step 3 (click role="button" name="Clear completed")`) ||
		!strings.Contains(r.Error, "no element matches") {
		t.Errorf("clear_completed: %+v", r)
	}
	shot := ""
	for _, a := range r.Artifacts {
		if strings.HasSuffix(a, ".png") {
			shot = a
		}
	}
	png, err := os.ReadFile(filepath.Join(out, shot))
	if shot == "" || err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("failure screenshot %q: %v", shot, err)
	}
	if got := recs["ui/import_file"].Result.Output; got != `{"items":3}` {
		t.Errorf("import_file captured %s", got)
	}
}

// misbehaving is one server script whose behaviour each group picks with
// MODE: it never listens, crashes on request, binds a port that is taken,
// or answers slowly or flakily.
const misbehaving = `import os, sys, time
from http.server import BaseHTTPRequestHandler, HTTPServer
mode = os.environ["MODE"]
if mode == "silent":
    time.sleep(3600)
port = int(os.environ["PORT"])
if mode == "port_taken":
    port = int(os.environ["TAKEN"])
flaky = [0]
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a):
        pass
    def answer(self, status, text):
        b = text.encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
    def do_GET(self):
        if self.path == "/crash":
            print("boom: crashing on request", file=sys.stderr, flush=True)
            os._exit(3)
        if self.path == "/slow":
            time.sleep(5)
        self.answer(200, "ok " + self.path)
    def do_POST(self):
        flaky[0] += 1
        if flaky[0] == 1:
            self.close_connection = True
            return  # no response: the connection closes
        self.answer(200, "second try")
print("serving on", port, flush=True)
HTTPServer(("127.0.0.1", port), H).serve_forever()
`

func TestAPIServerMisbehaviour(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	dir := t.TempDir()
	sub := t.TempDir()
	os.WriteFile(filepath.Join(sub, "server.py"), []byte(misbehaving), 0o644)
	config := fmt.Sprintf(`name: misbehave
entry_file: server.py
adapter:
  type: api
  health_check: {path: /health, startup_timeout: 10, delay: 0.05}
timeout: 5
env: {TAKEN: "%d"}
checkpoints:
  c1:
    groups:
      silent: {type: Core, env: {MODE: silent}}
      port_taken: {type: Core, env: {MODE: port_taken}}
      crash: {type: Core, env: {MODE: crash}}
      slow: {type: Core, env: {MODE: ok}}
      flaky: {type: Core, env: {MODE: ok}}
`, taken.Addr().(*net.TCPAddr).Port)
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(config), 0o644)
	write := func(name, body string) { os.WriteFile(filepath.Join(dir, "c1", name), []byte(body), 0o644) }
	os.MkdirAll(filepath.Join(dir, "c1"), 0o755)
	twoCases := "a: {order: 1, request: {path: /a}, expected: {output: ok /a}}\nb: {order: 2, request: {path: /b}, expected: {output: ok /b}}\n"
	write("silent.yaml", twoCases)
	write("port_taken.yaml", twoCases)
	write("crash.yaml", "before: {order: 1, request: {path: /a}, expected: {output: ok /a}}\n"+
		"crash: {order: 2, request: {path: /crash}, expected: {status_code: 200}}\n"+
		"after: {order: 3, request: {path: /b}, expected: {output: ok /b}}\n")
	write("slow.yaml", "slow: {order: 1, request: {path: /slow, timeout: 0.5}, expected: {output: ok /slow}}\n"+
		"next: {order: 2, request: {path: /a}, expected: {output: ok /a}}\n")
	write("flaky.yaml", "no_retry: {order: 1, request: {method: POST, path: /x}, expected: {output: second try}}\n"+
		"retried: {order: 2, request: {method: POST, path: /x, retries: 2}, expected: {output: second try}}\n")

	out, _, recs := evaluate(t, dir, sub)
	adapterError := func(key string, contains ...string) {
		t.Helper()
		r := recs[key]
		if r == nil {
			t.Errorf("%s: not recorded", key)
			return
		}
		if !r.Result.AdapterError || r.Passed {
			t.Errorf("%s: adapter_error=%v passed=%v, want an adapter error", key, r.Result.AdapterError, r.Passed)
		}
		for _, c := range contains {
			if !strings.Contains(r.Result.Error, c) {
				t.Errorf("%s: error %q does not mention %q", key, r.Result.Error, c)
			}
		}
	}
	// Never listens and prints nothing: every case reports the startup
	// timeout, bounded by startup_timeout.
	adapterError("silent/a", "did not answer GET /health within 10s", "the server printed nothing")
	adapterError("silent/b", "did not answer GET /health within 10s")
	// The port is taken: the server exits, and its log tail says why.
	adapterError("port_taken/a", "server exited before it was up (exit status 1)", "Address already in use")
	adapterError("port_taken/b", "Address already in use")
	// A taken port may be a race with another process, not the
	// submission's fault: the server was started on new ports first.
	log, _ := os.ReadFile(filepath.Join(out, "artifacts", "c1", "port_taken", "server.stderr.log"))
	if n := strings.Count(string(log), "was taken; starting the server again on a new port"); n != 2 {
		t.Errorf("port_taken: %d restarts in the server log, want 2:\n%s", n, log)
	}
	// Crashes mid-group: the case before passes, the crashing one and every
	// later one report the exit with the server's stderr.
	if !recs["crash/before"].Passed {
		t.Errorf("crash/before: %+v", recs["crash/before"].Result)
	}
	adapterError("crash/crash", "exit status 3", "boom: crashing on request")
	adapterError("crash/after", "server exited during the group (exit status 3)", "boom: crashing on request")
	// A request that outlives its timeout is timed out; the group goes on.
	if r := recs["slow/slow"]; !r.Result.TimedOut || r.Passed || r.Result.Elapsed > 3 {
		t.Errorf("slow/slow: %+v", r.Result)
	}
	if !recs["slow/next"].Passed {
		t.Errorf("slow/next: %+v", recs["slow/next"].Result)
	}
	// A connection closed without a response fails without retries and is
	// sent again with them.
	adapterError("flaky/no_retry", "POST /x")
	if r := recs["flaky/retried"]; !r.Passed {
		t.Errorf("flaky/retried: %+v", r.Result)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal(err)
	}
}

// hangingPage serves a page at / and never answers /hang.
const hangingPage = `import os, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_GET(self):
        if self.path == "/hang":
            time.sleep(60)
        b = b"<h1>Hello</h1><label for=n>Name</label><input id=n><p id=out></p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), H).serve_forever()
`

func TestBrowserStepFailures(t *testing.T) {
	requireChromium(t)
	dir, sub := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(sub, "app.py"), []byte(hangingPage), 0o644)
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(`name: pages
entry_file: app.py
adapter: {type: browser, screenshots: always, step_timeout: 1}
timeout: 20
checkpoints:
  c1:
    groups:
      g: {type: Core}
`), 0o644)
	os.MkdirAll(filepath.Join(dir, "c1"), 0o755)
	os.WriteFile(filepath.Join(dir, "c1", "g.yaml"), []byte(`never_loads:
  order: 1
  steps: [{goto: /hang}]
  expected: {output: {}}
no_match:
  order: 2
  steps: [{goto: /}, {click: "#nope"}, {capture: {css: h1, as: h}}]
  expected: {output: {h: Hello}}
fine:
  order: 3
  steps:
    - goto: /
    - fill: {label: Name, value: Ada}
    - capture: {label: Name, get: value, as: name}
    - capture: {role: heading, as: h}
    - capture: {css: "#out", get: visible, as: out_visible}
  expected: {output: {name: Ada, h: Hello, out_visible: false}}
`), 0o644)
	out, _, recs := evaluate(t, dir, sub)
	hang := recs["g/never_loads"].Result
	if !hang.TimedOut || hang.StatusCode != 1 || !strings.Contains(hang.Error, "step 1 (goto /hang)") || !strings.Contains(hang.Error, "did not load within 1s") {
		t.Errorf("never_loads: %+v", hang)
	}
	miss := recs["g/no_match"].Result
	if !miss.TimedOut || !strings.Contains(miss.Error, `step 2 (click css="#nope"): step timed out: no element matches css="#nope" within 1s`) || miss.Output != "{}" {
		t.Errorf("no_match: %+v", miss)
	}
	if recs["g/never_loads"].Passed || recs["g/no_match"].Passed {
		t.Error("failed steps must fail their cases")
	}
	fine := recs["g/fine"]
	if !fine.Passed {
		t.Errorf("fine: %+v %+v", fine.Result, fine.Attributes)
	}
	// screenshots: always keeps one for every case: the failure or the end.
	for key, name := range map[string]string{"g/never_loads": "never_loads.failure.png", "g/no_match": "no_match.failure.png", "g/fine": "fine.final.png"} {
		want := filepath.ToSlash(filepath.Join("artifacts", "c1", "g", name))
		if !slices.Contains(recs[key].Result.Artifacts, want) {
			t.Errorf("%s: artifacts %v lack %s", key, recs[key].Result.Artifacts, want)
		}
		if _, err := os.Stat(filepath.Join(out, want)); err != nil {
			t.Errorf("%s: %v", key, err)
		}
	}
}

// A case that does not fit the adapter is reported before anything runs.
func TestValidateCasesAgainstTheAdapter(t *testing.T) {
	for _, tc := range []struct{ adapter, cases, msg string }{
		{"api", "a: {expected: {status_code: 200}}\n", "case a has no request; the api adapter sends"},
		{"browser", "a: {request: {path: /}}\n", "case a has no steps; the browser adapter runs"},
		{"cli", "a: {steps: [{goto: /}]}\n", "case a has steps, but the problem's adapter is cli"},
		{"api", "a: {request: {path: /}, steps: [{goto: /}]}\n", "case a has steps, but the problem's adapter is api"},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("name: p\nentry_file: app.py\nadapter: {type: "+tc.adapter+"}\ncheckpoints:\n  c1: {groups: {g: {type: Core}}}\n"), 0o644)
		os.MkdirAll(filepath.Join(dir, "c1"), 0o755)
		os.WriteFile(filepath.Join(dir, "c1", "g.yaml"), []byte(tc.cases), 0o644)
		p, err := run.LoadProblem(dir)
		if err != nil {
			t.Fatal(err)
		}
		err = run.Validate(context.Background(), p, run.BuiltinLoader, nil)
		if err == nil || !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), "g.yaml") {
			t.Errorf("%s: %v, want %q", tc.adapter, err, tc.msg)
		}
	}
}
