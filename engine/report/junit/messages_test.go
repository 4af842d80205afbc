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
			if _, dup := cases[c.Name]; dup {
				t.Fatalf("two testcases named %q", c.Name)
			}
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

// A server group's start-up is a testcase of its own before the group's
// first case, its time the server's start-up time; a group whose server
// never answered has none.
func TestJUnitServerStartupTime(t *testing.T) {
	var buf bytes.Buffer
	run := reporttest.BrowserRun(t, nil)
	if err := Write(&buf, run.Dir, report.RunInfo{RunID: "run-1", Problem: "todo-web"}, run.Sums); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests  int `xml:"tests,attr"`
		Suites []struct {
			Tests int `xml:"tests,attr"`
			Cases []struct {
				Class   string    `xml:"classname,attr"`
				Name    string    `xml:"name,attr"`
				Time    string    `xml:"time,attr"`
				Failure *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range doc.Suites[0].Cases {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, ","); got != StartupCase+",heading,echo,ok,slow,down,fine" {
		t.Fatalf("testcases: %s", got)
	}
	c := doc.Suites[0].Cases[0]
	if c.Class != "todo-web.checkpoint_1.ui" || c.Time != "0.420" || c.Failure != nil || doc.Tests != 7 || doc.Suites[0].Tests != 7 {
		t.Errorf("start-up testcase %+v; %d tests, suite %d", c, doc.Tests, doc.Suites[0].Tests)
	}
}

// A case that is an error because a mock faulted is an error of type
// mock_error naming the mock and its fault; a failing case that sent a
// request no route matched says so in its message, and its text lists
// the calls that went wrong — escaped, as CI parses the XML.
func TestJUnitMockCalls(t *testing.T) {
	cases, doc := parseCases(t, reporttest.BrowserRun(t, nil, reporttest.MockCases))
	if c := cases["rates"]; c.Error == nil || c.Error.Type != "mock_error" || c.Error.Message != "mock rates: "+reporttest.MockFault ||
		!strings.Contains(c.Error.Text, "#1 rates GET /v1/rates?base=EUR → 500 (fault: "+reporttest.MockFault+")") {
		t.Errorf("rates: %+v", c.Error)
	}
	if c := cases["nomock"]; c.Error == nil || c.Error.Type != "mock_error" || c.Error.Message != reporttest.MockStartError {
		t.Errorf("nomock: %+v", c.Error)
	}
	if c := cases["refund"]; c.Failure == nil || c.Failure.Type != "incorrect" ||
		c.Failure.Message != "score 0.00; incorrect: status_code (exact); unmatched mock call: payments DELETE /v1/charges/ch_1" ||
		!strings.Contains(c.Failure.Text, "mock calls: 2 received, 1 unmatched\n  #2 payments DELETE /v1/charges/ch_1 → 501 (unmatched)") {
		t.Errorf("refund: %+v", c.Failure)
	}
	if c := cases["flood"]; c.Failure == nil || !strings.Contains(c.Failure.Message, "; 60 unmatched mock calls, the first: payments GET /v1/charges/0") ||
		!strings.Contains(c.Failure.Text, "… and 50 more") || len(c.Failure.Text) > 4<<10 {
		t.Errorf("flood: %+v", c.Failure)
	}
	if c := cases["charged"]; c.Failure != nil || c.Error != nil || c.SystemOut != "" {
		t.Errorf("a passing case with mock calls: %+v", c)
	}
	// The calls that went well are not listed: the document stays short.
	if strings.Contains(doc, "amount") || strings.Contains(doc, "/v1/charges?") {
		t.Errorf("the JUnit document carries a passing case's calls:\n%s", doc)
	}
}
