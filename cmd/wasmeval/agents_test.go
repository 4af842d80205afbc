package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/run/runtest"
	"github.com/wasmeval/wasmeval/engine/runtime/docker/dockertest"
)

// The agent examples end to end, through the real binary: agent tasks
// judged by test functions in Go, Rust and AssemblyScript
// (examples/agent-tasks), and an eval-case dataset judged by the built-in
// agent checks (examples/eval-cases), each against a scripted agent with
// no model and no network.

const (
	agentTasks = "../../examples/agent-tasks"
	evalCases  = "../../examples/eval-cases"
)

// byID indexes a run's records by case id.
func byID(t *testing.T, out string) map[string]*result.CaseRecord {
	t.Helper()
	recs := map[string]*result.CaseRecord{}
	for _, r := range readJournal(t, out) {
		recs[r.ID] = r
	}
	return recs
}

// wantOutcomes checks every case's outcome, and that no other case ran.
func wantOutcomes(t *testing.T, recs map[string]*result.CaseRecord, want map[string]result.Outcome) {
	t.Helper()
	for id, o := range want {
		r, ok := recs[id]
		if !ok {
			t.Errorf("%s: not in the journal", id)
			continue
		}
		if got := r.Outcome; got != o {
			t.Errorf("%s: outcome %s, want %s (error %q, attributes %+v)", id, got, o, r.Result.Error, r.Attributes)
		}
	}
	if len(recs) != len(want) {
		t.Errorf("%d cases ran, want %d", len(recs), len(want))
	}
}

// feedback is the diff summary of a record's failing attributes.
func feedback(r *result.CaseRecord) string {
	var out []string
	for _, a := range r.Attributes {
		if !a.IsCorrect && a.Diff != nil {
			out = append(out, a.Attribute+": "+a.Diff.Summary)
		}
	}
	return strings.Join(out, "\n")
}

func allOutcomes(ids []string, o result.Outcome) map[string]result.Outcome {
	m := map[string]result.Outcome{}
	for _, id := range ids {
		m[id] = o
	}
	return m
}

var taskNames = []string{"capital", "count-csv", "longest-word", "stock-json", "sum-report"}

func TestAgentTasksReferenceAndBrokenAgents(t *testing.T) {
	runtest.RequirePython(t)
	out := t.TempDir()
	r := wasmeval(t, "run", agentTasks, "--submission", agentTasks+"/agents/reference", "--out", out, "--progress", "none")
	if r.code != 0 {
		t.Fatalf("reference agent: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	recs := byID(t, out)
	wantOutcomes(t, recs, allOutcomes(taskNames, result.OutcomePassed))
	// Each language's test function judged its tasks.
	for id, plugin := range map[string]string{"capital": "agent-answer@", "sum-report": "agent-sandbox-file@", "stock-json": "agent-json-answer@"} {
		if r := recs[id]; r == nil || len(r.Attributes) != 1 || !strings.HasPrefix(r.Attributes[0].Check, plugin) {
			t.Errorf("%s: not judged by %s: %+v", id, plugin, r)
		}
	}
	// The agent's file, read back from its sandbox by the Rust function.
	if r := recs["sum-report"]; r != nil && len(r.Attributes) == 1 {
		if got, _ := json.Marshal(r.Attributes[0].Actual); !strings.Contains(string(got), `"content":"108\n"`) {
			t.Errorf("sum-report: the test function did not read report.txt: %s", got)
		}
	}
	if !strings.Contains(r.stdout, "question  2      2") {
		t.Errorf("no category table:\n%s", r.stdout)
	}

	out = t.TempDir()
	r = wasmeval(t, "run", agentTasks, "--submission", agentTasks+"/agents/broken", "--out", out, "--progress", "none")
	if r.code != 1 {
		t.Fatalf("broken agent: exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	recs = byID(t, out)
	wantOutcomes(t, recs, map[string]result.Outcome{
		"capital": result.OutcomeFailed, "count-csv": result.OutcomePassed, "longest-word": result.OutcomeFailed,
		"stock-json": result.OutcomeError, "sum-report": result.OutcomeError,
	})
	// Wrong answers are failures, saying what was answered.
	if f := feedback(recs["capital"]); !strings.Contains(f, `answer "Lyon" (from task_complete) does not match "Paris"`) {
		t.Errorf("capital: %s", f)
	}
	if f := feedback(recs["longest-word"]); !strings.Contains(f, `answer "apple" (from answer_tag) does not match "extraordinary"`) {
		t.Errorf("longest-word: %s", f)
	}
	// A crash is an error quoting the agent's stderr; output that is not
	// JSON an error quoting its first bytes.
	if e := recs["sum-report"].Result.Error; !strings.Contains(e, "the agent exited with status 1") || !strings.Contains(e, "KeyError") {
		t.Errorf("sum-report: error %q", e)
	}
	if e := recs["stock-json"].Result.Error; !strings.Contains(e, "not JSON") || !strings.Contains(e, `it begins "Done! tools=42`) {
		t.Errorf("stock-json: error %q", e)
	}
}

func TestAgentTasksRecordedResults(t *testing.T) {
	out := t.TempDir()
	start := time.Now()
	r := wasmeval(t, "run", agentTasks, "--results", agentTasks+"/recorded/passing", "--out", out, "--progress", "none")
	wall := time.Since(start)
	if r.code != 0 {
		t.Fatalf("passing set: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	want := allOutcomes(taskNames, result.OutcomePassed)
	recs := byID(t, out)
	wantOutcomes(t, recs, want)
	// Each case's duration is its own share of the batch it was checked
	// in, so a group's cases together (one after another) take no longer
	// than the run did.
	sums := map[string]float64{}
	for _, r := range recs {
		sums[r.Group] += r.Duration
	}
	for g, sum := range sums {
		if sum > wall.Seconds() {
			t.Errorf("group %s: the cases' durations add up to %.2f s, more than the run's %.2f s", g, sum, wall.Seconds())
		}
	}
	// Its test function read report.txt from the recorded sandbox.
	if r := recs["sum-report"]; r == nil || len(r.Attributes) != 1 {
		t.Errorf("sum-report: %+v", r)
	} else if got, _ := json.Marshal(r.Attributes[0].Actual); !strings.Contains(string(got), `"content":"108\n"`) {
		t.Errorf("sum-report: the test function did not read report.txt from the recorded sandbox: %s", got)
	}
	if strings.Contains(r.stderr, "warning") {
		t.Errorf("a warning about the passing set:\n%s", r.stderr)
	}

	out = t.TempDir()
	r = wasmeval(t, "run", agentTasks, "--results", agentTasks+"/recorded/mixed", "--out", out, "--progress", "none")
	if r.code != 1 {
		t.Fatalf("mixed set: exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "1 result(s) for no known task, not scored: weather.json") {
		t.Errorf("the unknown task's result is not warned about:\n%s", r.stderr)
	}
	recs = byID(t, out)
	wantOutcomes(t, recs, map[string]result.Outcome{
		"capital": result.OutcomeFailed, "sum-report": result.OutcomeFailed,
		"count-csv": result.OutcomeError, "stock-json": result.OutcomeError, "longest-word": result.OutcomeError,
	})
	for id, want := range map[string]string{
		"longest-word": "missing: no recorded result for task longest-word",
		"count-csv":    `not JSON: invalid character 'T' looking for beginning of value (at byte 1); it begins "Traceback`,
		"stock-json":   "iterations: expected a non-negative integer, got a string",
	} {
		if r := recs[id]; r != nil && !strings.Contains(r.Result.Error, want) {
			t.Errorf("%s: error %q, want %q", id, r.Result.Error, want)
		}
	}
	if f := feedback(recs["sum-report"]); !strings.Contains(f, `"report.txt" is not in the sandbox: the agent did not write it`) {
		t.Errorf("sum-report: %s", f)
	}

	// No result at all: every case is an error, the run inconclusive, and
	// what to do is fix the results (a run of other results is another
	// run, which --resume refuses).
	r = wasmeval(t, "run", agentTasks, "--results", t.TempDir(), "--out", t.TempDir(), "--progress", "none")
	if r.code != exitInconclusive || !strings.Contains(r.stderr, "fix the recorded results they name and run again") || strings.Contains(r.stderr, "--retry-errors") {
		t.Errorf("no results: exit %d, want %d and a hint to fix the results:\n%s", r.code, exitInconclusive, r.stderr)
	}
}

// An agent run interrupted while one task's agent is still working is
// finished by --resume: only that task and those after it run again.
func TestAgentTasksResumeRunsOnlyUnfinishedTasks(t *testing.T) {
	runtest.RequirePython(t)
	gate := t.TempDir()
	ref, err := os.ReadFile(filepath.Join(agentTasks, "agents", "reference", "agent.py"))
	if err != nil {
		t.Fatal(err)
	}
	// The reference agent, behind a wrapper that logs every task it is
	// given and holds longest-word until the gate opens.
	sub := writeTree(t, map[string]string{
		"reference.py": string(ref),
		"agent.py": `import io, json, os, runpy, sys, time
gate = ` + strconv.Quote(gate) + `
data = sys.stdin.read()
name = json.loads(data)["task_name"]
with open(os.path.join(gate, "log"), "a") as f:
    f.write(name + "\n")
if name == "longest-word":
    open(os.path.join(gate, "started"), "w").close()
    while not os.path.exists(os.path.join(gate, "open")):
        time.sleep(0.05)
sys.stdin = io.StringIO(data)
runpy.run_path("reference.py", run_name="__main__")
`,
	})
	out := t.TempDir()
	cmd := exec.Command(binary, "run", agentTasks, "--submission", sub, "--out", out, "--progress", "lines")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// stderr is read to its end, and the run's end noticed, whatever the
	// test is waiting for.
	var logged strings.Builder
	done := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logged.WriteString(sc.Text() + "\n")
		}
		done <- cmd.Wait()
	}()
	// Wait (without a clock) until longest-word's agent is running: the
	// two tasks before it have then finished.
	deadline := time.After(3 * time.Minute)
	for {
		if _, err := os.Stat(filepath.Join(gate, "started")); err == nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the run ended (%v) before longest-word started:\n%s", err, logged.String())
		case <-deadline:
			cmd.Process.Kill()
			t.Fatal("longest-word never started")
		case <-time.After(50 * time.Millisecond):
		}
	}
	cmd.Process.Signal(os.Interrupt)
	var ee *exec.ExitError
	if err := <-done; !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("interrupted run: %v, want exit 130\n%s", err, logged.String())
	}
	recs := byID(t, out)
	wantOutcomes(t, recs, allOutcomes([]string{"capital", "count-csv"}, result.OutcomePassed))

	if err := os.WriteFile(filepath.Join(gate, "open"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := wasmeval(t, "run", "--resume", out, "--progress", "none")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	wantOutcomes(t, byID(t, out), allOutcomes(taskNames, result.OutcomePassed))
	log, err := os.ReadFile(filepath.Join(gate, "log"))
	if err != nil {
		t.Fatal(err)
	}
	// capital and count-csv ran once; longest-word was started again.
	if got, want := strings.Fields(string(log)), []string{"capital", "count-csv", "longest-word", "longest-word", "stock-json", "sum-report"}; !slices.Equal(got, want) {
		t.Errorf("tasks given to the agent: %v, want %v", got, want)
	}
}

var evalCaseIDs = []string{"weather-paris", "multiply", "eur-to-usd", "greeting", "unknown-city", "divide-by-zero",
	"weather-no-city", "convert-zero", "ignore-instructions", "system-prompt", "flu-symptoms", "antibiotic-dose",
	"warmer-city", "convert-and-add", "refund-policy", "umbrella-rome", "case-017"}

// brokenFails are the cases the broken eval-case agent fails, and a
// failing check of each.
var brokenFails = map[string]string{
	"eur-to-usd":          "tool_output: convert_currency: 1 call (id call_1), which did not return the expected output: $.to.amount: expected 108, got 183.6",
	"divide-by-zero":      `answer: answer contains none of "cannot divide", "undefined"`,
	"ignore-instructions": `tools: no tool should have been called, but the agent called "send_email"`,
	"flu-symptoms":        "flags: can_diagnose is false, but the reply carries no disclaimer",
	"antibiotic-dose":     "flags: can_diagnose is false, but the reply carries no disclaimer",
	"convert-and-add":     "tool_output: calculator: 1 call (id toolu_2), which did not return the expected output: $.result: expected 64, got 101.8",
}

func evalWant(broken bool) map[string]result.Outcome {
	want := allOutcomes(evalCaseIDs, result.OutcomePassed)
	if broken {
		for id := range brokenFails {
			want[id] = result.OutcomeFailed
		}
	}
	return want
}

func checkBrokenEvalRun(t *testing.T, out string) {
	t.Helper()
	recs := byID(t, out)
	wantOutcomes(t, recs, evalWant(true))
	for id, want := range brokenFails {
		if r := recs[id]; r != nil && !strings.Contains(feedback(r), want) {
			t.Errorf("%s: failing checks\n%s\nwant %q", id, feedback(r), want)
		}
	}
}

func TestEvalCasesCommandAgentAndHistory(t *testing.T) {
	runtest.RequirePython(t)
	history := t.TempDir()
	out := t.TempDir()
	r := wasmeval(t, "run", evalCases+"/eval.yaml", "--submission", evalCases+"/agents/reference", "--out", out, "--history", history, "--progress", "none")
	if r.code != 0 {
		t.Fatalf("reference agent: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	wantOutcomes(t, byID(t, out), evalWant(false))
	for _, row := range []string{"CATEGORY", "adversarial  4      4", "edge_case    4      4", "happy_path   5      5", "multi_step   4      4"} {
		if !strings.Contains(r.stdout, row) {
			t.Errorf("category table: no %q in\n%s", row, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "the first run in this history") {
		t.Errorf("first run in the history:\n%s", r.stdout)
	}

	out = t.TempDir()
	r = wasmeval(t, "run", evalCases+"/eval.yaml", "--submission", evalCases+"/agents/broken", "--out", out, "--history", history, "--progress", "none")
	if r.code != 1 {
		t.Fatalf("broken agent: exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	checkBrokenEvalRun(t, out)
	for _, row := range []string{"adversarial  4      1       3", "edge_case    4      3       1", "happy_path   5      4       1", "multi_step   4      3       1"} {
		if !strings.Contains(r.stdout, row) {
			t.Errorf("category table: no %q in\n%s", row, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "6 regressions, 0 fixes") {
		t.Errorf("comparison with the previous run:\n%s", r.stdout)
	}
	for id := range brokenFails {
		if !strings.Contains(r.stdout, "regressed "+id+"\n") {
			t.Errorf("regression of %s not listed:\n%s", id, r.stdout)
		}
	}
	var entries []string
	filepath.WalkDir(history, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(filepath.Dir(p)) == "runs" {
			entries = append(entries, p)
		}
		return nil
	})
	if len(entries) != 2 {
		t.Errorf("history entries: %v, want 2", entries)
	}
}

func TestEvalCasesHTTPAgent(t *testing.T) {
	runtest.RequirePython(t)
	out := t.TempDir()
	r := wasmeval(t, "run", evalCases+"/eval-http.yaml", "--submission", evalCases+"/agents", "--out", out, "--no-history", "--progress", "none")
	if r.code != 0 {
		t.Fatalf("reference agent over HTTP: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	wantOutcomes(t, byID(t, out), evalWant(false))
	if !strings.Contains(r.stdout, "multi_step   4      4") {
		t.Errorf("category table:\n%s", r.stdout)
	}

	out = t.TempDir()
	r = wasmeval(t, "run", evalCases+"/eval-http.yaml", "--submission", evalCases+"/agents", "--command", "python3 {entry_file} --agent broken",
		"--out", out, "--no-history", "--progress", "none")
	if r.code != 1 {
		t.Fatalf("broken agent over HTTP: exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	checkBrokenEvalRun(t, out)
}

// The broken eval-case agent is the reference agent with its bugs
// switched on, and nothing else.
func TestEvalCasesBrokenAgentIsTheReferenceWithBugs(t *testing.T) {
	ref, err1 := os.ReadFile(filepath.Join(evalCases, "agents", "reference", "agent.py"))
	broken, err2 := os.ReadFile(filepath.Join(evalCases, "agents", "broken", "agent.py"))
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(string(ref), "\nBROKEN = False\n", "\nBROKEN = True\n", 1); string(broken) != want || want == string(ref) {
		t.Error("agents/broken/agent.py differs from agents/reference/agent.py by more than BROKEN = True")
	}
}

// The agent command on the Docker runtime: the agent runs in the
// container, its sandbox the container's working directory, and the test
// functions read the files it left there.
func TestAgentTasksOnDocker(t *testing.T) {
	image := dockertest.Image(t, "python")
	spec := writeSpec(t, "image: "+image+"\n")
	out := t.TempDir()
	r := wasmeval(t, "run", agentTasks, "--submission", agentTasks+"/agents/reference", "--env", spec, "--out", out, "--progress", "none")
	if r.code != 0 {
		t.Fatalf("reference agent on docker: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	recs := byID(t, out)
	wantOutcomes(t, recs, allOutcomes(taskNames, result.OutcomePassed))
	if r := recs["capital"]; r != nil && !strings.Contains(r.Result.Stderr, "task capital in ") {
		t.Errorf("capital: the agent's stderr %q", r.Result.Stderr)
	}
	var man struct {
		Runtime struct {
			Name string `json:"name"`
		} `json:"runtime"`
	}
	if data, err := os.ReadFile(filepath.Join(out, "manifest.json")); err != nil || json.Unmarshal(data, &man) != nil || man.Runtime.Name != "docker" {
		t.Errorf("the cases did not run on docker: manifest runtime %+v (%v)", man.Runtime, err)
	}

	out = t.TempDir()
	r = wasmeval(t, "run", agentTasks, "--submission", agentTasks+"/agents/broken", "--env", spec, "--out", out, "--progress", "none")
	if r.code != 1 {
		t.Fatalf("broken agent on docker: exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	wantOutcomes(t, byID(t, out), map[string]result.Outcome{
		"capital": result.OutcomeFailed, "count-csv": result.OutcomePassed, "longest-word": result.OutcomeFailed,
		"stock-json": result.OutcomeError, "sum-report": result.OutcomeError,
	})
}
