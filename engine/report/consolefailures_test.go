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

// The list shows at most --failures lines, each cut short and
// printable; cases whose lines would say the same after their key share
// one line that counts them, so the lines show different reasons; past
// the cap, the list says how many more cases failed.
func TestConsoleFailureListCapsAndCounts(t *testing.T) {
	long := strings.Repeat("very long message with a \x1b[2J clear-screen ", 40)
	run := reporttest.BrowserRun(t, nil, func(add func(*result.CaseRecord)) {
		for i := range 30 {
			msg := fmt.Sprintf("case %d: %s", i, long) // 20 different reasons
			if i%3 == 0 {
				msg = "the same crash: " + long // and one, 10 times
			}
			add(&result.CaseRecord{Group: "many", ID: fmt.Sprintf("m%02d", i), Result: result.Execution{Error: msg + "\nsecond line"},
				Attributes: []verify.AttributeResult{{Attribute: "output", Weight: 1, Expected: "a", Actual: "b"}}})
		}
	})
	var buf bytes.Buffer
	if err := report.PrintFailures(&buf, run.Dir, 5); err != nil {
		t.Fatal(err)
	}
	// The run's 4 other failures, then m00's line for all 10 alike.
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 7 || lines[0] != "failures: 34 (14 shown)" ||
		!strings.HasPrefix(lines[5], "FAILED  checkpoint_1/many/m00 (and 9 more like it) - the same crash: very long") ||
		lines[6] != "… and 20 more not shown (--failures N lists more; the HTML report details every one)" {
		t.Fatalf("capped list:\n%s", buf.String())
	}
	buf.Reset()
	report.PrintFailures(&buf, run.Dir, 100)
	lines = strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 26 || lines[0] != "failures: 34" {
		t.Fatalf("%d lines for 25 reasons and a header:\n%s", len(lines), buf.String())
	}
	for _, l := range lines[5:] {
		if len(l) > 200 || strings.ContainsAny(l, "\x1b\n") || !strings.HasPrefix(l, "FAILED  checkpoint_1/many/m") || !strings.HasSuffix(l, "…") {
			t.Errorf("line not kept short and printable (%d bytes): %q", len(l), l)
		}
	}
	if strings.Count(buf.String(), "the same crash") != 1 {
		t.Errorf("the 10 alike take more than one line:\n%s", buf.String())
	}
}
