package junit

import (
	"bytes"
	"encoding/xml"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

type xmlCase struct {
	Class   string `xml:"classname,attr"`
	Name    string `xml:"name,attr"`
	Failure *struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	} `xml:"failure"`
	Error *struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
	} `xml:"error"`
	Skipped *struct {
		Message string `xml:"message,attr"`
	} `xml:"skipped"`
	SystemErr string `xml:"system-err"`
}

type xmlSuites struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Errors   int `xml:"errors,attr"`
	Skipped  int `xml:"skipped,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Props    []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []xmlCase `xml:"testcase"`
	} `xml:"testsuite"`
}

// Cases of two checkpoints arrive interleaved (groups run concurrently);
// each lands in its checkpoint's suite with the right verdict.
func TestJUnitSuitesFromInterleavedJournal(t *testing.T) {
	dir := t.TempDir()
	w, _ := journal.Create(filepath.Join(dir, journal.FileName))
	add := func(cp, id string, pass bool, mutate func(*result.CaseRecord)) {
		r := &result.CaseRecord{Problem: "p", Checkpoint: cp, Group: "g", GroupType: problem.Core, ID: id}
		a := verify.AttributeResult{Attribute: "output", IsCorrect: pass, Weight: 1, Expected: "x", Actual: "y"}
		if !pass {
			a.Diff = &verify.Diff{Summary: "differs", Unified: "-x\n+y\n"}
		}
		r.Attributes = []verify.AttributeResult{a}
		if mutate != nil {
			mutate(r)
		}
		r.Score, _ = result.Score(r.Attributes)
		result.Classification{}.Classify(r)
		w.Append(r)
	}
	add("c1", "a", true, nil)
	add("c2", "b", false, nil)
	add("c1", "c", false, func(r *result.CaseRecord) { r.Result.TimedOut = true; r.Result.Stderr = "bell\x07 here" })
	add("c2", "d", true, nil)
	add("c1", "e", false, nil)
	add("c1", "f", false, func(r *result.CaseRecord) { r.Result.PluginError = "verifier trapped: unreachable\nat …" })
	add("c2", "g", true, func(r *result.CaseRecord) { r.Unscored = "no reference answer" })
	w.Close()
	sums, err := report.FromRun(dir, nil, report.Judging{Policy: result.PolicyAllCases}, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, dir, report.RunInfo{RunID: "run-1", Problem: "p", ManifestLink: "manifest.json"}, sums); err != nil {
		t.Fatal(err)
	}
	var got xmlSuites
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("not XML: %v\n%s", err, buf.String())
	}
	if got.Tests != 7 || got.Failures != 3 || got.Errors != 1 || got.Skipped != 1 || len(got.Suites) != 2 {
		t.Fatalf("totals %d tests, %d failures, %d errors, %d skipped; suites: %+v", got.Tests, got.Failures, got.Errors, got.Skipped, got.Suites)
	}
	c1, c2 := got.Suites[0], got.Suites[1]
	if c1.Name != "p.c1" || c1.Tests != 4 || c1.Failures != 2 || c1.Errors != 1 || len(c1.Cases) != 4 {
		t.Errorf("c1 suite: %+v", c1)
	}
	if c2.Name != "p.c2" || c2.Tests != 3 || c2.Failures != 1 || c2.Errors != 0 || len(c2.Cases) != 3 {
		t.Errorf("c2 suite: %+v", c2)
	}
	// A plugin fault is an error of the harness, not a wrong answer.
	if c := c1.Cases[3]; c.Error == nil || c.Error.Type != "plugin_error" || c.Error.Message != "verifier trapped: unreachable …" || c.Failure != nil {
		t.Errorf("plugin-fault case: %+v", c)
	}
	if c := c2.Cases[2]; c.Skipped == nil || c.Skipped.Message != "unscored: no reference answer" || c.Failure != nil || c.Error != nil {
		t.Errorf("unscored case: %+v", c)
	}
	var ids []string
	for _, c := range c1.Cases {
		ids = append(ids, c.Name)
	}
	if strings.Join(ids, ",") != "a,c,e,f" {
		t.Errorf("c1 cases: %v", ids)
	}
	// A timeout is the submission's answer: a failure.
	if c := c1.Cases[1]; c.Failure == nil || c.Failure.Type != "timeout" || c.Error != nil || !strings.Contains(c.SystemErr, "bell\uFFFD here") {
		t.Errorf("timed-out case: %+v", c)
	}
	if c := c1.Cases[2]; c.Failure == nil || !strings.Contains(c.Failure.Message, "incorrect: output") || !strings.Contains(c.Failure.Text, "-x\n+y") {
		t.Errorf("failing case: %+v", c)
	}
	if c1.Cases[0].Failure != nil || c1.Cases[0].Error != nil {
		t.Errorf("passing case has a verdict: %+v", c1.Cases[0])
	}
	props := map[string]string{}
	for _, p := range c1.Props {
		props[p.Name] = p.Value
	}
	if props["run_id"] != "run-1" || props["manifest"] != "manifest.json" || props["checkpoint_passed"] != "false" {
		t.Errorf("properties: %v", props)
	}
}

// A case's category is in its classname (what CI tools show) and, with
// its tags, in its properties; a case without one keeps its classname.
func TestJUnitCategory(t *testing.T) {
	dir := t.TempDir()
	w, err := journal.Create(filepath.Join(dir, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*result.CaseRecord{
		{Problem: "agents", Checkpoint: "c1", Group: "g", GroupType: problem.Core, ID: "q1",
			Case: &result.CaseInfo{Category: "edge.case", Tags: []string{"tools", "a<b"}}},
		{Problem: "agents", Checkpoint: "c1", Group: "g", GroupType: problem.Core, ID: "q2", Case: &result.CaseInfo{}},
	} {
		r.Attributes = []verify.AttributeResult{{Attribute: "output", IsCorrect: true, Weight: 1}}
		r.Score, _ = result.Score(r.Attributes)
		result.Classification{}.Classify(r)
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	sums, err := report.FromRun(dir, nil, report.Judging{Policy: result.PolicyAllCases}, "r")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, dir, report.RunInfo{Problem: "agents"}, sums); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []struct {
			Class string `xml:"classname,attr"`
			Name  string `xml:"name,attr"`
			Props []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
		} `xml:"testsuite>testcase"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if len(doc.Cases) != 2 {
		t.Fatalf("test cases: %+v", doc.Cases)
	}
	c1, c2 := doc.Cases[0], doc.Cases[1]
	if c1.Class != "agents.c1.g.edge_case" || len(c1.Props) != 3 || c1.Props[0].Name != "category" || c1.Props[0].Value != "edge.case" ||
		c1.Props[1].Value != "tools" || c1.Props[2].Name != "tag" || c1.Props[2].Value != "a<b" {
		t.Errorf("categorised case: %+v", c1)
	}
	if c2.Class != "agents.c1.g" || len(c2.Props) != 0 {
		t.Errorf("case without a category: %+v", c2)
	}
	if strings.Contains(buf.String(), "<properties></properties>") {
		t.Errorf("empty testcase properties written:\n%s", buf.String())
	}
}
