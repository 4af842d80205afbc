package report_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/report/reporttest"
	"github.com/wasmeval/wasmeval/engine/result"
)

// mockRecords reads the mock fixture's cases back from its journal, by id.
func mockRecords(t *testing.T) (reporttest.Run, map[string]*result.CaseRecord) {
	t.Helper()
	run := reporttest.BrowserRun(t, nil, reporttest.MockCases)
	recs := map[string]*result.CaseRecord{}
	if err := report.EachCase(run.Dir, func(r *result.CaseRecord) error {
		if r.Group == "pay" {
			recs[r.ID] = r
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return run, recs
}

// A case that is an error because a mock faulted says which mock and
// how; an unmatched call is named beside a failure's first diff line, in
// the console's list as in every one-line reason.
func TestMockCallsInReasonsAndConsole(t *testing.T) {
	run, recs := mockRecords(t)
	if k := result.ErrorKindOf(recs["rates"]); k != result.ErrorMock {
		t.Fatalf("rates: error kind %q, want mock", k)
	}
	for id, want := range map[string]string{
		"charged": "",
		"refund":  "status_code (exact): expected 200, got 502; unmatched mock call: payments DELETE /v1/charges/ch_1",
		"rates":   "mock rates: " + reporttest.MockFault,
		"nomock":  reporttest.MockStartError,
		"flood":   "status_code (exact): expected 200, got 502; 60 unmatched mock calls, the first: payments GET /v1/charges/0",
	} {
		if got := report.Reason(recs[id], 0); got != want {
			t.Errorf("%s: reason %q, want %q", id, got, want)
		}
	}
	if got := report.Status(recs["nomock"]); got != "error: mock" {
		t.Errorf("nomock: status %q", got)
	}
	if got := report.Status(recs["rates"]); got != "error: mock" {
		t.Errorf("rates: status %q", got)
	}
	var buf bytes.Buffer
	if err := report.PrintFailures(&buf, run.Dir, 20); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\nFAILED  checkpoint_1/pay/refund - status_code (exact): expected 200, got 502; unmatched mock call: payments DELETE /v1/charges/ch_1\n",
		"\nERROR   checkpoint_1/pay/rates - mock rates: " + reporttest.MockFault + "\n",
		"\nERROR   checkpoint_1/pay/nomock - " + reporttest.MockStartError + "\n",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("failure list lacks %q:\n%s", want, buf.String())
		}
	}
	if strings.Contains(buf.String(), "charged") {
		t.Errorf("a passing case with mock calls is in the failure list:\n%s", buf.String())
	}
}

// The failure detail lists the calls that went wrong, each with its
// mock, method, path and query, status and fault — a bounded list.
func TestMockCallsInFailureText(t *testing.T) {
	_, recs := mockRecords(t)
	if got, want := report.FailureText(recs["refund"], 0), "mock calls: 2 received, 1 unmatched\n  #2 payments DELETE /v1/charges/ch_1 → 501 (unmatched)\n"; !strings.Contains(got, want) {
		t.Errorf("refund's failure text:\n%s\nlacks:\n%s", got, want)
	}
	got := report.FailureText(recs["rates"], 0)
	if !strings.HasPrefix(got, "mock rates: "+reporttest.MockFault+"\n") ||
		!strings.Contains(got, "mock calls: 2 received, 1 faulted\n  #1 rates GET /v1/rates?base=EUR → 500 (fault: "+reporttest.MockFault+")\n") {
		t.Errorf("rates' failure text:\n%s", got)
	}
	got = report.FailureText(recs["flood"], 0)
	if !strings.Contains(got, "mock calls: 1000 received, 60 unmatched (940 not kept)\n") || !strings.Contains(got, "  #10 payments GET /v1/charges/9 → 501 (unmatched)\n  … and 50 more\n") ||
		strings.Contains(got, "/v1/charges/10 ") {
		t.Errorf("flood's failure text:\n%s", got)
	}
}

// The eval-results document's failure lines say it too.
func TestMockCallsInEvalResults(t *testing.T) {
	run, _ := mockRecords(t)
	doc, err := report.EvalResultsOf(run.Dir, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range doc.Results {
		got[e.ID] = strings.Join(e.Failures, " | ")
	}
	for id, want := range map[string]string{
		"charged": "",
		"refund":  "unmatched mock call: payments DELETE /v1/charges/ch_1 | status_code (exact): expected 200, got 502",
		"rates":   "mock rates: " + reporttest.MockFault,
		"nomock":  reporttest.MockStartError,
	} {
		if got[id] != want {
			t.Errorf("%s: failures %q, want %q", id, got[id], want)
		}
	}
}
