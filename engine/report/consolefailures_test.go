package report_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/report/reporttest"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// The console's failure list: each failing or errored case on a line
// with its status and why, timeouts with their message, capped, with how
// many more there are.
func TestConsoleFailureList(t *testing.T) {
	run := reporttest.BrowserRun(t, nil)
	var buf bytes.Buffer
	if err := report.PrintFailures(&buf, run.Dir, 10); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"",
		"failures: 4",
		`FAILED  checkpoint_1/ui/heading - output (json): $.heading: expected "Todos", got "Todo"`,
		"TIMEOUT checkpoint_1/ui/echo - timed out: " + reporttest.StepTimeout,
		"TIMEOUT checkpoint_1/api/slow - timed out: " + reporttest.APITimeout,
		"ERROR   checkpoint_1/api/down - adapter: server exited with status 1 before the case …",
		"",
	}, "\n")
	if buf.String() != want {
		t.Errorf("failure list:\n%s\nwant:\n%s", buf.String(), want)
	}

	buf.Reset()
	if err := report.PrintFailures(&buf, run.Dir, 0); err != nil || buf.Len() != 0 {
		t.Errorf("--failures 0 printed %q (%v)", buf.String(), err)
	}
}

// Past the cap, the list says how many more cases failed; every line
// stays one short line whatever the case's message holds.
func TestConsoleFailureListCapsAndCounts(t *testing.T) {
	run := reporttest.BrowserRun(t, nil, func(add func(*result.CaseRecord)) {
		for i := range 30 {
			add(&result.CaseRecord{Group: "many", ID: fmt.Sprintf("m%02d", i), Result: result.Execution{
				Error: strings.Repeat("very long message with a \x1b[2J clear-screen ", 40) + "\nsecond line"},
				Attributes: []verify.AttributeResult{{Attribute: "output", Weight: 1, Expected: "a", Actual: "b"}}})
		}
	})
	var buf bytes.Buffer
	if err := report.PrintFailures(&buf, run.Dir, 5); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if lines[0] != "failures: 34 (the first 5 shown)" || len(lines) != 7 ||
		lines[6] != "… and 29 more not shown (--failures N lists more; the HTML report details every one)" {
		t.Fatalf("capped list:\n%s", buf.String())
	}
	buf.Reset()
	report.PrintFailures(&buf, run.Dir, 100)
	lines = strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 35 {
		t.Fatalf("%d lines for 34 failures and a header", len(lines))
	}
	for _, l := range lines[5:] {
		if len(l) > 200 || strings.ContainsAny(l, "\x1b\n") || !strings.HasPrefix(l, "FAILED  checkpoint_1/many/m") || !strings.HasSuffix(l, "…") {
			t.Errorf("line not kept short and printable (%d bytes): %q", len(l), l)
		}
	}
}
