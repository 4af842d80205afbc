package report

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// agentRecord builds a classified agent case: category cat ("" for none),
// with the given outcome.
func agentRecord(cp, id, cat string, o result.Outcome) *result.CaseRecord {
	r := &result.CaseRecord{Problem: "agents", Checkpoint: cp, Group: "cases", GroupType: problem.Core, ID: id,
		StartedAt: time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC), Duration: 1.5,
		Case:   &result.CaseInfo{Instruction: "do " + id, Category: cat, Tags: []string{"t1"}},
		Result: result.Execution{Agent: true, Output: `{"task_result": "answer ` + id + `"}`, Elapsed: 1.25}}
	ok := o == result.OutcomePassed
	r.Attributes = []verify.AttributeResult{{Attribute: "output", Check: "test", IsCorrect: ok, Weight: 1,
		Diff: &verify.Diff{Summary: "expected Paris, got " + id}}}
	if ok {
		r.Attributes[0].Diff = nil
	}
	switch o {
	case result.OutcomeError:
		r.Result.AdapterError, r.Result.Error = true, "agent did not start"
	case result.OutcomeUnscored:
		r.Unscored = "no reference"
	}
	r.Score, _ = result.Score(r.Attributes)
	result.Classification{}.Classify(r)
	return r
}

// categoryRecords: happy_path 2 passed 1 failed; adversarial 1 passed, 1
// errored, 1 unscored; one case without a category; a second checkpoint
// with a failed happy_path case.
func categoryRecords() []*result.CaseRecord {
	return []*result.CaseRecord{
		agentRecord("c1", "h1", "happy_path", result.OutcomePassed),
		agentRecord("c1", "h2", "happy_path", result.OutcomePassed),
		agentRecord("c1", "a1", "adversarial", result.OutcomePassed),
		agentRecord("c1", "a2", "adversarial", result.OutcomeError),
		agentRecord("c1", "a3", "adversarial", result.OutcomeUnscored),
		agentRecord("c1", "n1", "", result.OutcomeFailed),
		agentRecord("c2", "h3", "happy_path", result.OutcomeFailed),
	}
}

func writeTestJournal(t *testing.T, dir string, recs []*result.CaseRecord) {
	t.Helper()
	w, err := journal.Create(filepath.Join(dir, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestCategoriesCountedFromAJournal(t *testing.T) {
	dir := t.TempDir()
	writeTestJournal(t, dir, categoryRecords())
	sums, err := FromRun(dir, nil, Judging{Policy: result.PolicyAllCases}, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	cats := Categories(sums)
	want := map[string]CategoryCounts{
		"happy_path":  {Cases: 3, Passed: 2, Failed: 1, PassRatePct: 66.7},
		"adversarial": {Cases: 3, Passed: 1, Errored: 1, Unscored: 1, PassRatePct: 50},
		NoCategory:    {Cases: 1, Failed: 1},
	}
	if len(cats) != len(want) {
		t.Fatalf("categories: %v", cats)
	}
	for name, w := range want {
		if c := cats[name]; c == nil || *c != w {
			t.Errorf("%s: %+v, want %+v", name, c, w)
		}
	}
	// A checkpoint's own counts are in its summary (and evaluation.json).
	if c := sums[1].ByCategory["happy_path"]; c == nil || c.Cases != 1 || c.Failed != 1 || len(sums[1].ByCategory) != 1 {
		t.Errorf("c2 by category: %v", sums[1].ByCategory)
	}

	var text bytes.Buffer
	PrintSummary(&text, sums)
	out := text.String()
	for _, line := range []string{
		"CATEGORY     CASES  PASSED  FAILED  ERRORED  PASS RATE",
		"adversarial  3      1       0       1        50.0%",
		"happy_path   3      2       1       -        66.7%",
		"(none)       1      0       1       -        0.0%",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("text summary lacks %q:\n%s", line, out)
		}
	}
	// The none row comes last, after the sorted categories.
	if strings.Index(out, "(none)") < strings.Index(out, "happy_path   3") {
		t.Errorf("category rows out of order:\n%s", out)
	}
	var table bytes.Buffer
	PrintTable(&table, sums)
	if !strings.Contains(table.String(), "happy_path   3      2       1       -        66.7%") {
		t.Errorf("end-of-run table lacks the category rows:\n%s", table.String())
	}

	var js bytes.Buffer
	if err := WriteJSON(&js, "", RunInfo{RunID: "run-1"}, sums); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		ByCategory map[string]map[string]float64 `json:"by_category"`
	}
	if err := json.Unmarshal(js.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if h := rep.ByCategory["happy_path"]; h["cases"] != 3 || h["passed"] != 2 || h["failed"] != 1 || h["pass_rate_pct"] != 66.7 {
		t.Errorf("JSON by_category: %v", rep.ByCategory)
	}

	var md bytes.Buffer
	if err := WriteMarkdown(&md, dir, RunInfo{RunID: "run-1"}, sums); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "## By category") || !strings.Contains(md.String(), "| adversarial | 3 | 1 | 0 | 1 | 50.0% |") {
		t.Errorf("markdown by category:\n%s", md.String())
	}

	// A summary written and read back keeps its categories.
	if err := Write(dir, sums); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSummaryCounts(dir, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if c := Categories([]*CheckpointSummary{back}); c["adversarial"] == nil || c["adversarial"].Errored != 1 || c[NoCategory].Cases != 1 {
		t.Errorf("categories read back: %v", c)
	}
}

// Reports of problems without categories do not change.
func TestNoCategoryTableWithoutCategories(t *testing.T) {
	dir := t.TempDir()
	recs := categoryRecords()
	for _, r := range recs {
		r.Case.Category = ""
	}
	writeTestJournal(t, dir, recs)
	sums, err := FromRun(dir, nil, Judging{Policy: result.PolicyAllCases}, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	var text, js bytes.Buffer
	PrintSummary(&text, sums)
	if err := WriteJSON(&js, "", RunInfo{}, sums); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String(), "CATEGORY") || strings.Contains(js.String(), "by_category") {
		t.Errorf("a category table without categories:\n%s\n%s", text.String(), js.String())
	}
}

// With epochs, a case counts once under its category, reduced.
func TestCategoriesWithEpochs(t *testing.T) {
	b := NewOpenBuilder("agents", nil, result.PolicyAllCases)
	b.SetEpochs(2, result.ReduceMode)
	for e := 1; e <= 2; e++ {
		r := agentRecord("c1", "h1", "happy_path", result.OutcomePassed)
		r.Epoch = e
		b.Add(r)
	}
	cats := Categories(b.Summaries())
	if c := cats["happy_path"]; c == nil || c.Cases != 1 || c.Passed != 1 {
		t.Errorf("by category with epochs: %v", cats)
	}
}

// Tags (and a task spec's apps, app:<name>) get their own table: a case
// counts under each of its tags; without tags there is none.
func TestTagTable(t *testing.T) {
	dir := t.TempDir()
	recs := categoryRecords()
	recs[0].Case.Tags = []string{"t1", "app:jupyter"}
	recs[3].Case.Tags = []string{"app:jupyter"}
	writeTestJournal(t, dir, recs)
	sums, err := FromRun(dir, nil, Judging{Policy: result.PolicyAllCases}, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	tags := Tags(sums)
	if j := tags["app:jupyter"]; j == nil || j.Cases != 2 || j.Passed != 1 || j.Errored != 1 {
		t.Errorf("app:jupyter %+v", j)
	}
	if t1 := tags["t1"]; t1 == nil || t1.Cases != 6 || t1.Passed != 3 || t1.Unscored != 1 || t1.PassRatePct != 60 {
		t.Errorf("t1 %+v", t1)
	}
	var text, js bytes.Buffer
	PrintSummary(&text, sums)
	if err := WriteJSON(&js, "", RunInfo{}, sums); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "TAG ") || !strings.Contains(text.String(), "app:jupyter  2      1       0       1") || !strings.Contains(js.String(), `"by_tag"`) {
		t.Errorf("tag table:\n%s", text.String())
	}
	for _, r := range recs {
		r.Case.Tags = nil
	}
	dir2 := t.TempDir()
	writeTestJournal(t, dir2, recs)
	sums, _ = FromRun(dir2, nil, Judging{Policy: result.PolicyAllCases}, "run-2")
	text.Reset()
	PrintSummary(&text, sums)
	if strings.Contains(text.String(), "TAG ") || Tags(sums) != nil {
		t.Errorf("a tag table without tags:\n%s", text.String())
	}
}

// Names and categories come from the problem: the Markdown report shows
// HTML in them as text, where a renderer would otherwise act on it.
func TestMarkdownShowsHTMLAsText(t *testing.T) {
	dir := t.TempDir()
	recs := []*result.CaseRecord{
		agentRecord("c1", "<img src=x onerror=alert(1)>", "<b onmouseover=alert(2)>x</b>", result.OutcomeFailed),
		agentRecord("c1", "ok", "plain", result.OutcomePassed),
	}
	writeTestJournal(t, dir, recs)
	sums, err := FromRun(dir, nil, Judging{Policy: result.PolicyAllCases}, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, dir, RunInfo{RunID: "run-1", Problem: "<script>p</script>"}, sums); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	// A fenced code block shows what it holds as written: HTML there is
	// text already.
	outside := regexp.MustCompile("(?s)```diff\n.*?```\n").ReplaceAllString(out, "")
	for _, raw := range []string{"<img", "<b ", "<script>"} {
		if strings.Contains(outside, raw) {
			t.Errorf("the report holds %q as HTML:\n%s", raw, out)
		}
	}
	for _, shown := range []string{"&lt;img src=x onerror=alert(1)&gt;", "&lt;b onmouseover=alert(2)&gt;x&lt;/b&gt;", "# &lt;script&gt;p&lt;/script&gt;"} {
		if !strings.Contains(out, shown) {
			t.Errorf("the report does not show %q as text:\n%s", shown, out)
		}
	}
}

// A category or group name with terminal control sequences is printed
// with them replaced: a report read in a terminal cannot move its cursor
// or change its colours.
func TestTerminalTablesShowNamesPrintable(t *testing.T) {
	dir := t.TempDir()
	writeTestJournal(t, dir, []*result.CaseRecord{agentRecord("c1", "a", "\x1b[31mred\x1b[0m", result.OutcomePassed)})
	sums, err := FromRun(dir, nil, Judging{Policy: result.PolicyAllCases}, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	PrintSummary(&out, sums)
	PrintCategories(&out, sums)
	PrintTable(&out, sums)
	if strings.Contains(out.String(), "\x1b") || !strings.Contains(out.String(), "\uFFFD[31mred") {
		t.Errorf("terminal output holds an escape, or lacks the category:\n%q", out.String())
	}
}
