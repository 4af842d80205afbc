package junit

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/report/reporttest"
)

// junitCase is a testcase as a CI system reads it.
type junitCase struct {
	Name    string `xml:"name,attr"`
	Time    string `xml:"time,attr"`
	Failure *struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	} `xml:"failure"`
	Error *struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	} `xml:"error"`
	SystemOut string `xml:"system-out"`
	SystemErr string `xml:"system-err"`
}

// parseCases writes the run's JUnit report and reads its testcases back
// with encoding/xml, by name.
func parseCases(t *testing.T, run reporttest.Run) (map[string]junitCase, string) {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, run.Dir, report.RunInfo{RunID: "run-1", Problem: "todo-web"}, run.Sums); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Suites []struct {
			Cases []junitCase `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, buf.String())
	}
	cases := map[string]junitCase{}
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			cases[c.Name] = c
		}
	}
	return cases, buf.String()
}

// A timed-out case's failure says which step or request timed out, in
// its message (what CI lists) and its text.
func TestJUnitTimeoutCarriesItsMessage(t *testing.T) {
	cases, doc := parseCases(t, reporttest.BrowserRun(t, nil))
	for id, want := range map[string]string{"echo": reporttest.StepTimeout, "slow": reporttest.APITimeout} {
		c := cases[id]
		if c.Failure == nil || c.Failure.Type != "timeout" {
			t.Fatalf("%s: %+v\n%s", id, c, doc)
		}
		if c.Failure.Message != "timed out: "+want || !strings.Contains(c.Failure.Text, "timed out: "+want) {
			t.Errorf("%s: message %q, text %q; want the timeout's message %q", id, c.Failure.Message, c.Failure.Text, want)
		}
	}
	if c := cases["down"]; c.Error == nil || c.Error.Type != "adapter_error" || c.Error.Message != "server exited with status 1 before the case …" ||
		!strings.Contains(c.Error.Text, reporttest.ServerDown) {
		t.Errorf("adapter error: %+v", c.Error)
	}
}
