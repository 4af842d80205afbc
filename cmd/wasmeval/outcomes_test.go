package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"

	"github.com/wasmeval/wasmeval/engine/compare"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/report/parquet"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/plugins/pin"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// Each way a case can end, produced by a real fault and followed through
// the real binary: how the case is classified (results.jsonl,
// results.parquet), summarised (evaluation.json, the exit status, JUnit),
// retried (--retry-errors) and compared (report --compare). See
// docs/running.md, "Outcomes".

// serviceServer is an HTTP service that answers "ok PATH" to every GET.
// It comes up only when the file $GATE/up-$GROUP exists: otherwise it
// exits at once, before it listens, as a server whose database is not
// there would. With $GATE/wrong it answers /b wrongly.
const serviceServer = `import os, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
gate, group = os.environ["GATE"], os.environ["GROUP"]
if not os.path.exists(os.path.join(gate, "up-" + group)):
    print("cannot open the database: connection refused", file=sys.stderr, flush=True)
    sys.exit(1)
wrong = os.path.exists(os.path.join(gate, "wrong"))
class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_GET(self):
        b = ("no" if wrong and self.path == "/b" else "ok " + self.path).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
HTTPServer((sys.argv[1], int(sys.argv[2])), H).serve_forever()
`

// serviceProblem is an api problem served by serviceServer: Core group
// "core" (cases a and b) and Functionality group "extra" (case x), each
// group with its own server. gate is the directory of the files that let
// each group's server come up; it starts empty (no server comes up).
func serviceProblem(t *testing.T) (prob, sub, gate string) {
	t.Helper()
	gate = t.TempDir()
	prob = writeTree(t, map[string]string{
		"config.yaml": `name: service
entry_file: server.py
command: python3 {entry_file} {{host}} {{port}}
adapter:
  type: api
  health_check: {path: /health, startup_timeout: 120, delay: 0.05}
timeout: 60
env: {GATE: ` + strconv.Quote(gate) + `}
checkpoints:
  c1:
    groups:
      core: {type: Core, env: {GROUP: core}}
      extra: {type: Functionality, env: {GROUP: extra}}
`,
		"c1/core.yaml":  "a: {order: 1, request: {path: /a}, expected: {output: ok /a}}\nb: {order: 2, request: {path: /b}, expected: {output: ok /b}}\n",
		"c1/extra.yaml": "x: {order: 1, request: {path: /x}, expected: {output: ok /x}}\n",
	})
	sub = writeTree(t, map[string]string{"server.py": serviceServer})
	return prob, sub, gate
}

// setGate creates (or removes) the gate files named.
func setGate(t *testing.T, gate string, files map[string]bool) {
	t.Helper()
	for name, on := range files {
		p := filepath.Join(gate, name)
		if on {
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		} else if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

// outcomeSummary reads a checkpoint's evaluation.json.
func outcomeSummary(t *testing.T, out, checkpoint string) *report.CheckpointSummary {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, checkpoint, "evaluation.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s report.CheckpointSummary
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// outcomeAttempts lists the journal's records as group/id:attempt:outcome:kind,
// in journal order.
func outcomeAttempts(t *testing.T, out string) string {
	t.Helper()
	var got []string
	for _, r := range readJournal(t, out) {
		got = append(got, fmt.Sprintf("%s/%s:%d:%s:%s", r.Group, r.ID, r.Attempt, r.Outcome, r.ErrorKind))
	}
	return strings.Join(got, " ")
}

// outcomeParquet lists the rows of results.parquet as outcomeAttempts
// lists records.
func outcomeParquet(t *testing.T, out string) (string, []parquet.Row) {
	t.Helper()
	rows, err := pq.ReadFile[parquet.Row](filepath.Join(out, parquet.FileName))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		kind := ""
		if r.ErrorKind != nil {
			kind = *r.ErrorKind
		}
		got = append(got, fmt.Sprintf("%s/%s:%d:%s:%s", r.Group, r.ID, r.Attempt, r.Outcome, kind))
	}
	return strings.Join(got, " "), rows
}

type junitMessage struct {
	Type    string `xml:"type,attr"`
	Message string `xml:"message,attr"`
}

type junitCase struct {
	Class   string        `xml:"classname,attr"`
	Name    string        `xml:"name,attr"`
	Failure *junitMessage `xml:"failure"`
	Error   *junitMessage `xml:"error"`
	Skipped *junitMessage `xml:"skipped"`
}

type junitReport struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Errors   int `xml:"errors,attr"`
	Suites   []struct {
		Cases []junitCase `xml:"testcase"`
	} `xml:"testsuite"`
}

// outcomeJUnit runs `wasmeval report OUT --format junit` and returns its
// counts and each test case by group/id as "failure:TYPE",
// "error:TYPE", "skipped:TYPE" or "passed".
func outcomeJUnit(t *testing.T, out string) (*junitReport, map[string]string) {
	t.Helper()
	r := wasmeval(t, "report", out, "--format", "junit")
	if r.code != 0 {
		t.Fatalf("report --format junit: exit %d\n%s", r.code, r.stderr)
	}
	var doc junitReport
	if err := xml.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("junit: %v\n%s", err, r.stdout)
	}
	cases := map[string]string{}
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			group := c.Class[strings.LastIndex(c.Class, ".")+1:]
			v := "passed"
			switch {
			case c.Failure != nil:
				v = "failure:" + c.Failure.Type
			case c.Error != nil:
				v = "error:" + c.Error.Type
			case c.Skipped != nil:
				v = "skipped:" + c.Skipped.Type
			}
			if c.Failure != nil && c.Error != nil {
				v = "failure and error"
			}
			cases[group+"/"+c.Name] = v
		}
	}
	return &doc, cases
}

// A server that never starts: the submission's server exits before it
// listens, in every group. No case is the submission's answer, so each is
// an error of kind adapter; the checkpoint, which the errors decide, is
// inconclusive (exit 3) under the default error policy and failed (exit 1)
// under --error-policy fail. --retry-errors does not retry them while the
// group's server is down (its state cannot be rebuilt mid-group): the
// error says to resume with --retry-errors, which starts it again.
func TestServerThatNeverStartsIsAnAdapterError(t *testing.T) {
	prob, sub, _ := serviceProblem(t) // no gate: no server comes up

	out := filepath.Join(t.TempDir(), "run")
	r := wasmeval(t, "run", prob, "--submission", sub, "--out", out, "--retry-errors", "1", "--retry-backoff", "1ms")
	if r.code != 3 {
		t.Fatalf("exit %d, want 3 (inconclusive)\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "INCONCLUSIVE — errors: 3 (adapter 3)") {
		t.Errorf("the summary line does not say why the run is inconclusive:\n%s", r.stdout)
	}
	if strings.Contains(r.stderr, "RETRY") {
		t.Errorf("a case was retried while its server was down:\n%s", r.stderr)
	}

	// One attempt per case, an error that says how to retry it.
	want := "core/a:1:error:adapter core/b:1:error:adapter extra/x:1:error:adapter"
	if got := outcomeAttempts(t, out); got != want {
		t.Errorf("journal:\n got %s\nwant %s", got, want)
	}
	for _, rec := range readJournal(t, out) {
		if !rec.Result.AdapterError || rec.Passed || rec.Result.PluginError != "" ||
			!strings.Contains(rec.Result.Error, "server exited before it was up (exit status 1)") ||
			!strings.Contains(rec.Result.Error, "cannot open the database: connection refused") ||
			!strings.Contains(rec.Result.Error, "wasmeval run --resume DIR --retry-errors N starts it again") {
			t.Errorf("%s attempt %d: adapter_error=%v passed=%v error=%q", rec.Key(), rec.Attempt, rec.Result.AdapterError, rec.Passed, rec.Result.Error)
		}
	}
	// A row per attempt in results.parquet, with its outcome and kind.
	if got, rows := outcomeParquet(t, out); got != want {
		t.Errorf("results.parquet:\n got %s\nwant %s", got, want)
	} else {
		for _, row := range rows {
			if !row.AdapterError || row.Passed || row.Error == nil || !strings.Contains(*row.Error, "server exited before it was up") {
				t.Errorf("parquet row %s/%s attempt %d: adapter_error=%v passed=%v", row.Group, row.ID, row.Attempt, row.AdapterError, row.Passed)
			}
		}
	}

	// The summary counts each case once, by its last attempt.
	s := outcomeSummary(t, out, "c1")
	if s.Cases != 3 || s.CasesErrored != 3 || s.CasesFailed != 0 || s.CasesPassed != 0 ||
		s.AdapterErrors != 3 || s.PluginErrors != 0 || !onlyKind(s.ErrorKinds, result.ErrorAdapter, 3) {
		t.Errorf("summary: cases %d, errored %d, failed %d, passed %d, adapter_errors %d, error_kinds %v",
			s.Cases, s.CasesErrored, s.CasesFailed, s.CasesPassed, s.AdapterErrors, s.ErrorKinds)
	}
	if s.Verdict != result.VerdictInconclusive || s.Passed || s.ErrorPolicy != result.ErrorsInconclusive || !s.Complete {
		t.Errorf("summary: verdict %q, passed %v, error_policy %q, complete %v; want inconclusive", s.Verdict, s.Passed, s.ErrorPolicy, s.Complete)
	}
	if g := s.GroupOutcomes["core"]; g == nil || g.Errors != 2 || g.Total != 2 || len(g.Failed) != 0 || !slices.Equal(g.Errored, []string{"a", "b"}) {
		t.Errorf("core group: %+v", g)
	}
	if s.ErrorCounts[problem.Core] != 2 || s.PassCounts[problem.Core] != 0 {
		t.Errorf("counts per type: errors %v, passed %v", s.ErrorCounts, s.PassCounts)
	}

	// JUnit: errors of type adapter_error, never failures; one test case
	// per case, however many attempts it took.
	doc, cases := outcomeJUnit(t, out)
	if doc.Tests != 3 || doc.Errors != 3 || doc.Failures != 0 {
		t.Errorf("junit: tests=%d errors=%d failures=%d, want 3, 3, 0", doc.Tests, doc.Errors, doc.Failures)
	}
	for _, key := range []string{"core/a", "core/b", "extra/x"} {
		if cases[key] != "error:adapter_error" {
			t.Errorf("junit %s: %q, want an <error type=\"adapter_error\">", key, cases[key])
		}
	}

	// The same run judged as if errors were failures.
	rep := wasmeval(t, "report", out, "--format", "json", "--error-policy", "fail")
	if rep.code != 0 || !strings.Contains(rep.stdout, `"verdict": "failed"`) {
		t.Errorf("report --error-policy fail: exit %d\n%s%s", rep.code, rep.stdout, rep.stderr)
	}

	// And run again under --error-policy fail: the errors count as
	// failures of the checkpoint (exit 1), yet each case is still an error.
	failOut := filepath.Join(t.TempDir(), "run")
	r = wasmeval(t, "run", prob, "--submission", sub, "--out", failOut, "--error-policy", "fail")
	if r.code != 1 {
		t.Fatalf("--error-policy fail: exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, "RETRY") {
		t.Errorf("retried without --retry-errors:\n%s", r.stderr)
	}
	if got, want := outcomeAttempts(t, failOut), "core/a:1:error:adapter core/b:1:error:adapter extra/x:1:error:adapter"; got != want {
		t.Errorf("journal under --error-policy fail:\n got %s\nwant %s", got, want)
	}
	if s := outcomeSummary(t, failOut, "c1"); s.Verdict != result.VerdictFailed || s.Passed || s.CasesErrored != 3 || s.CasesFailed != 0 || s.ErrorPolicy != result.ErrorsFail {
		t.Errorf("summary under --error-policy fail: verdict %q, errored %d, failed %d, error_policy %q", s.Verdict, s.CasesErrored, s.CasesFailed, s.ErrorPolicy)
	}
}

// onlyKind reports whether m counts n errors of kind k and no other.
func onlyKind(m map[result.ErrorKind]int, k result.ErrorKind, n int) bool {
	return len(m) == 1 && m[k] == n
}

// wasmevalQuotingPlugins is wasmeval for runs whose plugins panic: the
// RETRY lines quote the plugin's own stderr ("plugin stderr: panic: …"),
// which is not a stack trace of wasmeval's.
func wasmevalQuotingPlugins(t *testing.T, args ...string) cliResult {
	t.Helper()
	cmd := exec.Command(binary, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := cliResult{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		res.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	own := strings.ReplaceAll(res.stderr, "plugin stderr: panic:", "plugin stderr:")
	if strings.Contains(own, "goroutine ") || strings.Contains(own, "panic:") {
		t.Fatalf("wasmeval printed a Go stack trace:\n%s", res.stderr)
	}
	return res
}

// countingScript is a submission that counts its runs of each case (its
// first argument) in $COUNTERS and then answers as the case asks.
const countingScript = `n=$(cat "$COUNTERS/$1" 2>/dev/null || echo 0); echo $((n+1)) > "$COUNTERS/$1"
case "$1" in
wrong) echo no ;;
crash) echo hi; exit 3 ;;
hang) exec sleep 600 ;;
*) echo hi ;;
esac
`

// runCounts reads how many times each case ran.
func runCounts(t *testing.T, counters string) map[string]int {
	t.Helper()
	entries, err := os.ReadDir(counters)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(counters, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()], _ = strconv.Atoi(strings.TrimSpace(string(data)))
	}
	return out
}

// A plugin that traps: the problem's verifier plugin panics (a Wasm trap)
// on the cases that ask it to. Those cases are errors of kind plugin —
// their answer was not judged — and the other cases are judged as usual.
// Retried, the trap happens again on every attempt (it is deterministic):
// each attempt is recorded, and the case stays an error.
func TestVerifierThatTrapsIsAPluginError(t *testing.T) {
	prob := t.TempDir()
	wasm := filepath.Join(prob, "misbehave.wasm")
	if err := pluginbuild.Build("../../plugins/host/testdata/misbehave", wasm); err != nil {
		t.Fatal(err)
	}
	module, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	counters := t.TempDir()
	files := map[string]string{
		"config.yaml": "name: verified\ncommand: sh main.sh\n" +
			"env: {COUNTERS: " + strconv.Quote(counters) + "}\n" +
			"verifier: {type: plugin, path: misbehave.wasm, sha256: " + pin.Digest(module) + "}\n" +
			"checkpoints:\n  c1:\n    groups:\n      core: {type: Core}\n      extra: {type: Functionality}\n",
		"c1/core.yaml": `ok: {order: 1, arguments: [ok], expected: {output: "hi\n"}}
trap: {order: 2, arguments: [trap], expected: {output: "hi\n"}, extra: {mode: trap}}
`,
		"c1/extra.yaml": `wrong: {order: 1, arguments: [wrong], expected: {output: "hi\n"}}
trap2: {order: 2, arguments: [trap2], expected: {output: "hi\n"}, extra: {mode: trap}}
ok2: {order: 3, arguments: [ok2], expected: {output: "hi\n"}}
`,
	}
	for name, body := range files {
		os.MkdirAll(filepath.Join(prob, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(prob, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sub := writeTree(t, map[string]string{"main.sh": countingScript})

	out := filepath.Join(t.TempDir(), "run")
	r := wasmevalQuotingPlugins(t, "run", prob, "--submission", sub, "--out", out, "--retry-errors", "1", "--retry-backoff", "1ms")
	if !strings.Contains(r.stderr, "RETRY   c1/core/trap  attempt 1 was an error (plugin): plugin misbehave@") ||
		!strings.Contains(r.stderr, "export verify: trapped: wasm error: unreachable; plugin stderr: panic: assignment to entry in nil map") {
		t.Errorf("no RETRY line naming the plugin's trap:\n%s", r.stderr)
	}
	// The Core group's verdict hangs on its trapped case: inconclusive.
	if r.code != 3 {
		t.Fatalf("exit %d, want 3 (inconclusive)\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "INCONCLUSIVE — errors: 2 (plugin 2)") {
		t.Errorf("summary line:\n%s", r.stdout)
	}

	want := "core/ok:1:passed: core/trap:1:error:plugin core/trap:2:error:plugin " +
		"extra/wrong:1:failed: extra/trap2:1:error:plugin extra/trap2:2:error:plugin extra/ok2:1:passed:"
	if got := outcomeAttempts(t, out); got != want {
		t.Errorf("journal:\n got %s\nwant %s", got, want)
	}
	// Each attempt ran the submission again; nothing else ran twice.
	if got := runCounts(t, counters); !maps.Equal(got, map[string]int{"ok": 1, "trap": 2, "wrong": 1, "trap2": 2, "ok2": 1}) {
		t.Errorf("runs per case: %v", got)
	}
	for _, rec := range readJournal(t, out) {
		trapped := strings.HasPrefix(rec.ID, "trap")
		switch {
		case trapped && (!strings.HasPrefix(rec.Result.PluginError, "plugin misbehave@") || !strings.Contains(rec.Result.PluginError, "export verify: trapped") || rec.Result.AdapterError):
			t.Errorf("%s attempt %d: plugin_error %q adapter_error %v", rec.Key(), rec.Attempt, rec.Result.PluginError, rec.Result.AdapterError)
		case trapped && (len(rec.Attributes) != 1 || rec.Attributes[0].Attribute != "plugin:verifier" || rec.Attributes[0].IsCorrect):
			t.Errorf("%s attempt %d: attributes %+v", rec.Key(), rec.Attempt, rec.Attributes)
		case !trapped && rec.Result.PluginError != "":
			t.Errorf("%s: plugin_error %q on a case the plugin judged", rec.Key(), rec.Result.PluginError)
		}
	}
	if got, rows := outcomeParquet(t, out); got != want {
		t.Errorf("results.parquet:\n got %s\nwant %s", got, want)
	} else {
		for _, row := range rows {
			if trapped := strings.HasPrefix(row.ID, "trap"); trapped != (row.PluginError != nil && strings.Contains(*row.PluginError, "trapped")) {
				t.Errorf("parquet row %s attempt %d: plugin_error %v", row.ID, row.Attempt, row.PluginError)
			}
		}
	}

	s := outcomeSummary(t, out, "c1")
	if s.Cases != 5 || s.CasesPassed != 2 || s.CasesFailed != 1 || s.CasesErrored != 2 ||
		s.PluginErrors != 2 || s.AdapterErrors != 0 || !onlyKind(s.ErrorKinds, result.ErrorPlugin, 2) {
		t.Errorf("summary: cases %d, passed %d, failed %d, errored %d, plugin_errors %d, adapter_errors %d, error_kinds %v",
			s.Cases, s.CasesPassed, s.CasesFailed, s.CasesErrored, s.PluginErrors, s.AdapterErrors, s.ErrorKinds)
	}
	if s.Verdict != result.VerdictInconclusive {
		t.Errorf("verdict %q, want inconclusive", s.Verdict)
	}
	if g := s.GroupOutcomes["extra"]; g == nil || !slices.Equal(g.Failed, []string{"wrong"}) || !slices.Equal(g.Errored, []string{"trap2"}) || g.Passed != 1 || g.Total != 3 {
		t.Errorf("extra group: %+v", g)
	}

	doc, cases := outcomeJUnit(t, out)
	wantJUnit := map[string]string{"core/ok": "passed", "core/trap": "error:plugin_error", "extra/wrong": "failure:incorrect", "extra/trap2": "error:plugin_error", "extra/ok2": "passed"}
	if doc.Tests != 5 || doc.Errors != 2 || doc.Failures != 1 || !maps.Equal(cases, wantJUnit) {
		t.Errorf("junit: tests=%d errors=%d failures=%d cases %v, want %v", doc.Tests, doc.Errors, doc.Failures, cases, wantJUnit)
	}

	// Left out (--error-policy ignore), the trapped Core case no longer
	// decides anything, and the Core group's judged case passed.
	rep := wasmeval(t, "report", out, "--format", "json", "--error-policy", "ignore")
	if rep.code != 0 || !strings.Contains(rep.stdout, `"verdict": "passed"`) || strings.Contains(rep.stdout, `"verdict": "inconclusive"`) {
		t.Errorf("report --error-policy ignore: exit %d\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
}

// A submission that fails: a wrong answer, a non-zero exit and a timeout
// are the submission's answers. Each fails, and none runs again however
// many retries of errors are allowed: one record per case, attempt 1.
func TestWrongAnswerIsAFailureAndNeverRetried(t *testing.T) {
	counters := t.TempDir()
	prob, sub := shProblem(t, countingScript, map[string]string{
		"right": "arguments: [right]\nexpected: {output: \"hi\\n\"}\n",
		"wrong": "arguments: [wrong]\nexpected: {output: \"hi\\n\"}\n",
		"crash": "arguments: [crash]\nexpected: {output: \"hi\\n\", status_code: 0}\n",
		"hang":  "arguments: [hang]\ntimeout: 1\nexpected: {output: \"hi\\n\"}\n",
	}, "env: {COUNTERS: "+strconv.Quote(counters)+"}\n")

	out := filepath.Join(t.TempDir(), "run")
	r := wasmeval(t, "run", prob, "--submission", sub, "--out", out, "--retry-errors", "3", "--retry-backoff", "1ms")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, "RETRY") {
		t.Errorf("a case that failed was retried:\n%s", r.stderr)
	}
	recs := readJournal(t, out)
	got := map[string]string{}
	for _, rec := range recs {
		got[rec.ID] = fmt.Sprintf("%d:%s:%s", rec.Attempt, rec.Outcome, rec.ErrorKind)
	}
	want := map[string]string{"right": "1:passed:", "wrong": "1:failed:", "crash": "1:failed:", "hang": "1:failed:"}
	if len(recs) != 4 || !maps.Equal(got, want) {
		t.Errorf("journal (%d records): %v, want %v", len(recs), got, want)
	}
	if n := runCounts(t, counters); !maps.Equal(n, map[string]int{"right": 1, "wrong": 1, "crash": 1, "hang": 1}) {
		t.Errorf("runs per case: %v, want one each", n)
	}
	for _, rec := range recs {
		if rec.Result.AdapterError || rec.Result.PluginError != "" {
			t.Errorf("%s: adapter_error %v, plugin_error %q", rec.ID, rec.Result.AdapterError, rec.Result.PluginError)
		}
		if rec.ID == "hang" && !rec.Result.TimedOut {
			t.Errorf("hang: not timed out: %+v", rec.Result)
		}
	}

	s := outcomeSummary(t, out, "c1")
	if s.Cases != 4 || s.CasesPassed != 1 || s.CasesFailed != 3 || s.CasesErrored != 0 || len(s.ErrorKinds) != 0 || s.TimedOut != 1 || s.Verdict != result.VerdictFailed {
		t.Errorf("summary: cases %d, passed %d, failed %d, errored %d, error_kinds %v, timed_out %d, verdict %q",
			s.Cases, s.CasesPassed, s.CasesFailed, s.CasesErrored, s.ErrorKinds, s.TimedOut, s.Verdict)
	}

	doc, cases := outcomeJUnit(t, out)
	wantJUnit := map[string]string{"g/right": "passed", "g/wrong": "failure:incorrect", "g/crash": "failure:incorrect", "g/hang": "failure:timeout"}
	if doc.Tests != 4 || doc.Failures != 3 || doc.Errors != 0 || !maps.Equal(cases, wantJUnit) {
		t.Errorf("junit: tests=%d failures=%d errors=%d cases %v, want %v", doc.Tests, doc.Failures, doc.Errors, cases, wantJUnit)
	}
}

// Compared: a case that could not be judged in one of two runs — its
// server never started — is listed apart ("not judged in one run"),
// neither a regression nor a fix, and alone does not make report
// --compare exit 1; a real regression beside it does. A run whose errors
// were retried later (run --resume --retry-errors) is compared by each
// case's last attempt.
func TestCompareListsErrorsApartFromRegressions(t *testing.T) {
	prob, sub, gate := serviceProblem(t)
	runs := t.TempDir()
	run := func(name string, wantCode int) string {
		t.Helper()
		out := filepath.Join(runs, name)
		if r := wasmeval(t, "run", prob, "--submission", sub, "--out", out); r.code != wantCode {
			t.Fatalf("run %s: exit %d, want %d\n%s\n%s", name, r.code, wantCode, r.stdout, r.stderr)
		}
		return out
	}
	compareJSON := func(dir, base string, wantCode int) *compare.Result {
		t.Helper()
		r := wasmeval(t, "report", dir, "--compare", base, "--format", "json")
		if r.code != wantCode {
			t.Fatalf("report %s --compare %s --format json: exit %d, want %d\n%s%s", filepath.Base(dir), filepath.Base(base), r.code, wantCode, r.stdout, r.stderr)
		}
		var res compare.Result
		if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
			t.Fatalf("compare json: %v\n%s", err, r.stdout)
		}
		return &res
	}
	changes := func(chs []compare.Change) string {
		var s []string
		for _, c := range chs {
			s = append(s, c.Key+":"+string(c.From)+">"+string(c.To))
		}
		return strings.Join(s, " ")
	}

	setGate(t, gate, map[string]bool{"up-core": true, "up-extra": true})
	good := run("good", 0)
	setGate(t, gate, map[string]bool{"up-core": false, "up-extra": false})
	down := run("down", 3)
	if got := outcomeAttempts(t, down); got != "core/a:1:error:adapter core/b:1:error:adapter extra/x:1:error:adapter" {
		t.Fatalf("down: %s", got)
	}

	// passed → error: not judged in one run, exit 0.
	r := wasmeval(t, "report", down, "--compare", good)
	if r.code != 0 {
		t.Errorf("report down --compare good: exit %d, want 0 (no regression)\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"0 regressions, 0 fixes, 3 not judged in one run, 0 unchanged",
		"NOT JUDGED IN ONE RUN", "c1/core/a   passed -> error", "c1/extra/x  passed -> error"} {
		if !containsSpaced(r.stdout, want) {
			t.Errorf("report down --compare good lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "REGRESSIONS") || strings.Contains(r.stdout, "FIXES") {
		t.Errorf("errors listed as regressions or fixes:\n%s", r.stdout)
	}
	res := compareJSON(down, good, 0)
	if len(res.Regressions) != 0 || len(res.Fixes) != 0 || res.Unchanged != 0 ||
		changes(res.NotJudged) != "c1/core/a:passed>error c1/core/b:passed>error c1/extra/x:passed>error" {
		t.Errorf("down vs good: regressions %v, fixes %v, not_judged %v, unchanged %d", res.Regressions, res.Fixes, res.NotJudged, res.Unchanged)
	}

	// error → passed: not a fix either.
	r = wasmeval(t, "report", good, "--compare", down)
	if r.code != 0 || !containsSpaced(r.stdout, "0 regressions, 0 fixes, 3 not judged in one run") || !containsSpaced(r.stdout, "c1/core/b   error -> passed") {
		t.Errorf("report good --compare down: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	res = compareJSON(good, down, 0)
	if len(res.Regressions) != 0 || len(res.Fixes) != 0 ||
		changes(res.NotJudged) != "c1/core/a:error>passed c1/core/b:error>passed c1/extra/x:error>passed" {
		t.Errorf("good vs down: regressions %v, fixes %v, not_judged %v", res.Regressions, res.Fixes, res.NotJudged)
	}

	// A real regression (core/b answers wrongly) beside a case not judged
	// (extra's server never starts): the regression decides, exit 1.
	setGate(t, gate, map[string]bool{"up-core": true, "wrong": true})
	mixed := run("mixed", 1)
	if got := outcomeAttempts(t, mixed); got != "core/a:1:passed: core/b:1:failed: extra/x:1:error:adapter" {
		t.Fatalf("mixed: %s", got)
	}
	r = wasmeval(t, "report", mixed, "--compare", good)
	if r.code != 1 || !containsSpaced(r.stdout, "1 regressions, 0 fixes, 1 not judged in one run, 1 unchanged") ||
		!containsSpaced(r.stdout, "REGRESSIONS (passed in baseline, fail now):\n  c1/core/b  passed -> failed") ||
		!containsSpaced(r.stdout, "NOT JUDGED IN ONE RUN (an error or unscored: neither a regression nor a fix):\n  c1/extra/x  passed -> error") {
		t.Errorf("report mixed --compare good: exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	res = compareJSON(mixed, good, 1)
	if changes(res.Regressions) != "c1/core/b:passed>failed" || !slices.Equal(res.Regressions[0].Incorrect, []string{"output (text)"}) ||
		len(res.Fixes) != 0 || changes(res.NotJudged) != "c1/extra/x:passed>error" || res.Unchanged != 1 {
		t.Errorf("mixed vs good: regressions %+v, fixes %v, not_judged %v, unchanged %d", res.Regressions, res.Fixes, res.NotJudged, res.Unchanged)
	}
	// Against the run where nothing was judged, even the wrong answer is
	// no regression: error → failed says nothing about the submission.
	res = compareJSON(mixed, down, 0)
	if len(res.Regressions) != 0 || len(res.Fixes) != 0 || res.Unchanged != 1 ||
		changes(res.NotJudged) != "c1/core/a:error>passed c1/core/b:error>failed" {
		t.Errorf("mixed vs down: regressions %v, fixes %v, not_judged %v, unchanged %d", res.Regressions, res.Fixes, res.NotJudged, res.Unchanged)
	}

	// The down run, resumed once the servers can start, retries its
	// errors: each case's second attempt passes and is the one compared.
	setGate(t, gate, map[string]bool{"up-core": true, "up-extra": true, "wrong": false})
	if r := wasmeval(t, "run", "--resume", down, "--retry-errors", "1", "--retry-backoff", "1ms"); r.code != 0 {
		t.Fatalf("resume --retry-errors: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if got, want := outcomeAttempts(t, down), "core/a:1:error:adapter core/b:1:error:adapter extra/x:1:error:adapter core/a:2:passed: core/b:2:passed: extra/x:2:passed:"; got != want {
		t.Fatalf("resumed journal:\n got %s\nwant %s", got, want)
	}
	res = compareJSON(down, good, 0)
	if len(res.Regressions) != 0 || len(res.Fixes) != 0 || len(res.NotJudged) != 0 || res.Unchanged != 3 {
		t.Errorf("retried vs good: regressions %v, fixes %v, not_judged %v, unchanged %d", res.Regressions, res.Fixes, res.NotJudged, res.Unchanged)
	}
	res = compareJSON(mixed, down, 1)
	if changes(res.Regressions) != "c1/core/b:passed>failed" || changes(res.NotJudged) != "c1/extra/x:passed>error" {
		t.Errorf("mixed vs retried: regressions %v, not_judged %v", res.Regressions, res.NotJudged)
	}
}

// containsSpaced reports whether s contains want, any run of spaces in
// either matching any other (tabwriter pads columns to their widest).
func containsSpaced(s, want string) bool {
	squeeze := func(x string) string {
		lines := strings.Split(x, "\n")
		for i, l := range lines {
			lines[i] = strings.Join(strings.Fields(l), " ")
		}
		return strings.Join(lines, "\n")
	}
	return strings.Contains(squeeze(s), squeeze(want))
}
