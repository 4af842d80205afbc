package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/report/reporttest"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// A timed-out case's message — which step or request timed out — is in
// the Markdown report and the eval-results document, not a bare "timed
// out".
func TestTimeoutMessageInMarkdownAndEvalResults(t *testing.T) {
	run := reporttest.BrowserRun(t, nil)
	var md bytes.Buffer
	if err := report.WriteMarkdown(&md, run.Dir, report.RunInfo{RunID: "run-1", Problem: "todo-web"}, run.Sums); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"timed out: " + reporttest.StepTimeout,
		"timed out: " + reporttest.APITimeout,
		"(timed out, score 0.00)",
		reporttest.ServerDown,
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown report lacks %q:\n%s", want, md.String())
		}
	}
	var ev bytes.Buffer
	if err := report.WriteEvalResults(&ev, run.Dir, time.Time{}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Results []struct {
			ID       string   `json:"id"`
			Failures []string `json:"failures"`
		} `json:"results"`
	}
	if err := json.Unmarshal(ev.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	failures := map[string]string{}
	for _, r := range doc.Results {
		failures[r.ID] = strings.Join(r.Failures, " | ")
	}
	if got := failures["echo"]; !strings.HasPrefix(got, "timed out: "+reporttest.StepTimeout) {
		t.Errorf("eval-results failures of echo: %q", got)
	}
	if got := failures["slow"]; !strings.HasPrefix(got, "timed out: "+reporttest.APITimeout) {
		t.Errorf("eval-results failures of slow: %q", got)
	}
}

// Reason is one line for any status, with the execution's message kept.
func TestReasonSaysWhyInOneLine(t *testing.T) {
	attr := func(correct bool, d *verify.Diff) []verify.AttributeResult {
		return []verify.AttributeResult{{Attribute: "output", Weight: 1, IsCorrect: correct, Expected: "a", Actual: "b", Diff: d},
			{Attribute: "stderr", Weight: 1, IsCorrect: correct, Expected: "", Actual: "x"}}
	}
	tests := []struct {
		name string
		r    result.CaseRecord
		want string
	}{
		{"timeout", result.CaseRecord{Result: result.Execution{TimedOut: true, Error: reporttest.APITimeout}, Attributes: attr(false, nil)},
			"timed out: " + reporttest.APITimeout},
		{"timeout error", result.CaseRecord{Result: result.Execution{TimedOut: true, Error: "no response within 4s"}, Outcome: result.OutcomeError, ErrorKind: result.ErrorTimeout},
			"timed out (the problem counts timeouts as errors): no response within 4s"},
		{"bare timeout", result.CaseRecord{Result: result.Execution{TimedOut: true}, Attributes: attr(false, nil)}, "timed out"},
		{"crash", result.CaseRecord{Case: &result.CaseInfo{}, Result: result.Execution{AdapterError: true, Error: reporttest.ServerDown}},
			"could not run (an error of the harness, not judged): server exited with status 1 before the case …"},
		{"crash", result.CaseRecord{Result: result.Execution{StatusCode: 139, Signal: "segmentation fault"}, Attributes: attr(false, nil)},
			"killed by a signal (segmentation fault)"},
		{"oom", result.CaseRecord{Result: result.Execution{OOMKilled: true}, Attributes: attr(false, nil)}, "killed at its memory limit"},
		{"failed step", result.CaseRecord{Result: result.Execution{StatusCode: 1, Error: "step 2 (click css=\"#add\"): no such element"}, Attributes: attr(false, nil)},
			"step 2 (click css=\"#add\"): no such element"},
		{"plugin", result.CaseRecord{Result: result.Execution{PluginError: "verifier trapped\nat 0x1"}, Attributes: attr(false, nil)},
			"plugin error: verifier trapped …"},
		{"diff summary", result.CaseRecord{Attributes: attr(false, &verify.Diff{Summary: "line 2 differs"})}, "output: line 2 differs (and 1 more incorrect)"},
		{"unified", result.CaseRecord{Attributes: attr(false, &verify.Diff{Unified: "--- expected\n+++ actual\n@@ -1 +1 @@\n-a\n+b\n"})},
			"output: -a (and 1 more incorrect)"},
		{"values", result.CaseRecord{Attributes: attr(false, nil)}, `output: expected "a", got "b" (and 1 more incorrect)`},
		{"control characters", result.CaseRecord{Result: result.Execution{Error: "bad \x1b[2Jthing"}, Attributes: attr(false, nil)}, "bad \uFFFD[2Jthing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.r
			if r.Outcome == "" {
				r.Score, _ = result.Score(r.Attributes)
				result.Classification{}.Classify(&r)
			}
			if got := report.Reason(&r, 0); got != tt.want {
				t.Errorf("Reason = %q, want %q", got, tt.want)
			}
			if got := report.Reason(&r, 20); len(got) > 20 || !strings.HasSuffix(got, "…") && len(tt.want) > 20 {
				t.Errorf("Reason cut at 20 bytes = %q (%d bytes)", got, len(got))
			}
		})
	}
	passed := result.CaseRecord{Attributes: attr(true, nil)}
	result.Classification{}.Classify(&passed)
	if got := report.Reason(&passed, 0); got != "" {
		t.Errorf("a passed case has a reason: %q", got)
	}
}

// The JSON report lists every failing or errored case with why, a
// timeout with its message; a run without failures has an empty list.
func TestJSONReportListsFailuresWithWhy(t *testing.T) {
	run := reporttest.BrowserRun(t, nil)
	var buf bytes.Buffer
	if err := report.WriteJSON(&buf, run.Dir, report.RunInfo{RunID: "run-1", Problem: "todo-web"}, run.Sums); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases       int                  `json:"cases"`
		Checkpoints []json.RawMessage    `json:"checkpoints"`
		Failures    []report.JSONFailure `json:"failures"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, buf.String())
	}
	got := map[string]report.JSONFailure{}
	for _, f := range doc.Failures {
		got[f.ID] = f
	}
	if doc.Cases != 6 || len(doc.Checkpoints) != 1 || len(doc.Failures) != 4 {
		t.Fatalf("%d cases, %d checkpoints, failures %+v", doc.Cases, len(doc.Checkpoints), doc.Failures)
	}
	if f := got["echo"]; f.Status != "timed out" || f.Outcome != result.OutcomeFailed || f.Reason != "timed out: "+reporttest.StepTimeout || f.Group != "ui" {
		t.Errorf("echo: %+v", f)
	}
	if f := got["slow"]; f.Reason != "timed out: "+reporttest.APITimeout {
		t.Errorf("slow: %+v", f)
	}
	if f := got["down"]; f.Outcome != result.OutcomeError || f.ErrorKind != result.ErrorAdapter || f.Status != "error: adapter" {
		t.Errorf("down: %+v", f)
	}

	passing := reporttest.BrowserRun(t, nil)
	// Only the passing cases' records: a journal of one passing case.
	only := t.TempDir()
	reporttest.WriteFile(t, only, "results.jsonl", passingLine(t, passing.Dir))
	buf.Reset()
	if err := report.WriteJSON(&buf, only, report.RunInfo{}, nil); err != nil {
		t.Fatal(err)
	}
	var empty map[string]any
	if err := json.Unmarshal(buf.Bytes(), &empty); err != nil || fmt.Sprint(empty["failures"]) != "[]" {
		t.Errorf("no failures: %v %v\n%s", err, empty["failures"], buf.String())
	}
}

// passingLine is the journal line of the fixture's passing case "ok".
func passingLine(t *testing.T, dir string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		if bytes.Contains(l, []byte(`"id":"ok"`)) {
			return l
		}
	}
	t.Fatal("no passing case in the fixture")
	return nil
}
