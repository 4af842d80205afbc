package report

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/journal/journaltest"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// A summary that does not fit on the disk leaves the previous one whole.
func TestWriteOnAFullDiskKeepsThePreviousSummary(t *testing.T) {
	dir, _ := journaltest.Tmpfs(t, "64k")
	sum := func(groups int) []*CheckpointSummary {
		s := &CheckpointSummary{Name: "c1", Complete: true, GroupOutcomes: map[string]*GroupOutcome{}}
		for i := 0; i < groups; i++ {
			g := strings.Repeat("g", 200) + string(rune('a'+i%26)) + strings.Repeat("x", i)
			s.Groups = append(s.Groups, g)
			s.GroupOutcomes[g] = &GroupOutcome{Type: problem.Core, Results: map[string]float64{}, Failed: []string{}}
		}
		return []*CheckpointSummary{s}
	}
	if err := Write(dir, sum(2)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "c1", "evaluation.json")
	before, _ := os.ReadFile(path)
	// Fill what is left of the disk.
	filler, _ := os.Create(filepath.Join(dir, "filler"))
	for {
		if _, err := filler.Write(make([]byte, 4096)); err != nil {
			break
		}
	}
	filler.Close()
	err := Write(dir, sum(200))
	if err == nil || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("write on a full disk: %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatalf("the previous summary was damaged: %d bytes, was %d", len(after), len(before))
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Fatalf("files left behind: %v", entries)
	}
}

// A spooling builder writes the same evaluation.json as one that holds
// every case, byte for byte, and reads back without the per-case entries
// all the same.
func TestSpooledSummariesAreWrittenTheSame(t *testing.T) {
	p := &problem.Problem{Name: "p", Version: 2}
	cp := &problem.Checkpoint{Name: "c1", Version: 1}
	for _, g := range []string{"b", "a<&>", "empty", "z"} {
		cp.Groups = append(cp.Groups, &problem.Group{Name: g, Type: problem.Core})
	}
	start := time.Unix(1700000000, 0)
	held, spooled := NewBuilder(p, []*problem.Checkpoint{cp}, result.DefaultPolicy, start), NewBuilder(p, []*problem.Checkpoint{cp}, result.DefaultPolicy, start)
	if err := spooled.Spool(); err != nil {
		t.Fatal(err)
	}
	defer spooled.Close()
	for i := 0; i < 1500; i++ {
		g := []string{"b", "a<&>", "z"}[i%3]
		if i > 700 {
			g = "z" // one group's cases in several chunks
		}
		score := []float64{1, 0, 0.5, 1e-7, 1.0 / 3}[i%5]
		r := &result.CaseRecord{Checkpoint: "c1", Group: g, GroupType: problem.Core, ID: fmt.Sprintf("case \"%04d\" ü", 1500-i), Score: score, Passed: score == 1, Duration: 0.25}
		// Every outcome, in every group.
		switch {
		case i%7 == 3:
			r.Outcome, r.ErrorKind, r.Passed = result.OutcomeError, result.ErrorPlugin, false
		case i%11 == 5:
			r.Outcome, r.Passed = result.OutcomeUnscored, false
		case r.Passed:
			r.Outcome = result.OutcomePassed
		default:
			r.Outcome = result.OutcomeFailed
		}
		held.Add(r)
		spooled.Add(r)
	}
	held.GroupError("c1", "b", "stopped")
	spooled.GroupError("c1", "b", "stopped")
	spooled.GroupDone("c1", "a<&>")
	a, b := t.TempDir(), t.TempDir()
	heldSums, spooledSums := held.Summaries(), spooled.Summaries()
	if err := Write(a, heldSums); err != nil {
		t.Fatal(err)
	}
	if err := Write(b, spooledSums); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(a, "c1", "evaluation.json"))
	got, _ := os.ReadFile(filepath.Join(b, "c1", "evaluation.json"))
	if !bytes.Equal(got, want) {
		t.Fatalf("spooled summary differs:\n%s\nwant:\n%s", got, want)
	}
	if !bytes.Contains(want, []byte(`"errored": [`)) || !bytes.Contains(want, []byte(`"cases_unscored": `)) {
		t.Fatalf("the summary does not list errored and unscored cases:\n%.2000s", want)
	}
	if g := spooledSums[0].GroupOutcomes["z"]; g.Results != nil || g.Failed != nil || math.Abs(g.MeanScore()-heldSums[0].GroupOutcomes["z"].MeanScore()) > 1e-12 {
		t.Errorf("a spooled group: %+v", g)
	}
	var table, heldTable bytes.Buffer
	PrintTable(&table, spooledSums)
	PrintTable(&heldTable, heldSums)
	if table.String() != heldTable.String() {
		t.Errorf("table:\n%s\nwant:\n%s", table.String(), heldTable.String())
	}
	// Read back without the entries: the rest is the summary.
	full, err := ReadSummary(a, "c1")
	if err != nil {
		t.Fatal(err)
	}
	counts, err := ReadSummaryCounts(a, "c1")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range full.GroupOutcomes {
		g.Results, g.Failed = nil, nil
	}
	if !reflect.DeepEqual(counts, full) {
		t.Errorf("read without the entries:\n%+v\nwant\n%+v", counts, full)
	}
	if s, err := ReadSummaryCounts(t.TempDir(), "c1"); s != nil || err != nil {
		t.Errorf("no summary: %v %v", s, err)
	}
	os.WriteFile(filepath.Join(a, "c1", "evaluation.json"), []byte(`{"group_outcomes": {"g": {"results": {"a": 1}, "failed": [}}}`), 0o644)
	if _, err := ReadSummaryCounts(a, "c1"); err == nil || !strings.Contains(err.Error(), "not a checkpoint summary") {
		t.Errorf("a damaged summary: %v", err)
	}
	// Once closed, the entries are gone: writing says so.
	spooled.Close()
	if err := Write(b, spooledSums); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("write after Close: %v", err)
	}
}

// A summary counts each outcome apart: errors are neither passes nor
// failures, unscored cases count in no denominator, the mean score is the
// judged cases', and a checkpoint its errors decide is inconclusive.
func TestSummaryCountsOutcomesApart(t *testing.T) {
	p := &problem.Problem{Name: "p"}
	cp := &problem.Checkpoint{Name: "c1", Groups: []*problem.Group{
		{Name: "core", Type: problem.Core}, {Name: "errors", Type: problem.Error}}}
	add := func(b *Builder, group string, gt problem.GroupType, id string, o result.Outcome, kind result.ErrorKind, score float64) {
		b.Add(&result.CaseRecord{Checkpoint: "c1", Group: group, GroupType: gt, ID: id, Score: score,
			Passed: o == result.OutcomePassed, Outcome: o, ErrorKind: kind})
	}
	build := func(errs result.ErrorPolicy) *CheckpointSummary {
		b := NewBuilder(p, []*problem.Checkpoint{cp}, result.DefaultPolicy, time.Now())
		b.SetErrorPolicy(errs)
		add(b, "core", problem.Core, "a", result.OutcomePassed, "", 1)
		add(b, "core", problem.Core, "b", result.OutcomeError, result.ErrorAdapter, 0)
		add(b, "core", problem.Core, "c", result.OutcomeUnscored, "", 0)
		add(b, "core", problem.Core, "d", result.OutcomePassed, "", 1)
		add(b, "errors", problem.Error, "e", result.OutcomeFailed, "", 0.5)
		return b.Summaries()[0]
	}
	s := build("")
	if s.Cases != 5 || s.CasesPassed != 2 || s.CasesFailed != 1 || s.CasesErrored != 1 || s.CasesUnscored != 1 {
		t.Fatalf("counts: %+v", s)
	}
	if s.ErrorKinds[result.ErrorAdapter] != 1 || s.ErrorCounts[problem.Core] != 1 || s.TotalCounts[problem.Core] != 3 {
		t.Errorf("by kind %v, error counts %v, totals %v", s.ErrorKinds, s.ErrorCounts, s.TotalCounts)
	}
	if want := 2.5 / 3; math.Abs(s.MeanScore-want) > 1e-12 {
		t.Errorf("mean score %v, want %v (the judged cases')", s.MeanScore, want)
	}
	g := s.GroupOutcomes["core"]
	if g.Passed != 2 || g.Errors != 1 || g.Unscored != 1 || g.Total != 4 || g.Counted() != 3 || len(g.Failed) != 0 || len(g.Errored) != 1 || g.MeanScore() != 1 {
		t.Errorf("core group: %+v", g)
	}
	if s.Verdict != result.VerdictInconclusive || s.Passed {
		t.Errorf("verdict %s (passed %v), want inconclusive: the errored Core case decides it", s.Verdict, s.Passed)
	}
	line := s.VerdictLine()
	for _, want := range []string{"INCONCLUSIVE", "errors: 1 (adapter 1)", "unscored: 1", "Error cases passed: 0 of 1, not counted by core-cases"} {
		if !strings.Contains(line, want) {
			t.Errorf("verdict line %q does not say %q", line, want)
		}
	}
	if v := build(result.ErrorsFail).Verdict; v != result.VerdictFailed {
		t.Errorf("errors counted as failures: %s", v)
	}
	if v := build(result.ErrorsIgnore).Verdict; v != result.VerdictPassed {
		t.Errorf("errors left out: %s", v)
	}
}

// A report rebuilt from the journal lists groups in the run's order, not
// in the order their records first came (groups run side by side).
func TestRebuiltReportKeepsTheGroupOrder(t *testing.T) {
	dir := t.TempDir()
	p := &problem.Problem{Name: "p"}
	cp := &problem.Checkpoint{Name: "c1", Groups: []*problem.Group{{Name: "first", Type: problem.Core}, {Name: "second", Type: problem.Core}}}
	b := NewBuilder(p, []*problem.Checkpoint{cp}, result.DefaultPolicy, time.Now())
	w, err := journal.Create(filepath.Join(dir, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []string{"second", "first"} {
		r := &result.CaseRecord{Checkpoint: "c1", Group: g, GroupType: problem.Core, ID: "x", Passed: true, Outcome: result.OutcomePassed, Score: 1}
		w.Append(r)
		b.Add(r)
	}
	w.Close()
	if err := Write(dir, b.Summaries()); err != nil {
		t.Fatal(err)
	}
	sums, err := FromRun(dir, nil, Judging{Policy: result.DefaultPolicy}, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sums[0].Groups, ","); got != "first,second" {
		t.Errorf("groups %s, want first,second", got)
	}
}

// A checkpoint or group whose every case errored has no score to show.
func TestNothingJudgedHasNoScore(t *testing.T) {
	p := &problem.Problem{Name: "p"}
	cp := &problem.Checkpoint{Name: "c1", Groups: []*problem.Group{{Name: "g", Type: problem.Core}}}
	b := NewBuilder(p, []*problem.Checkpoint{cp}, result.DefaultPolicy, time.Now())
	b.Add(&result.CaseRecord{Checkpoint: "c1", Group: "g", GroupType: problem.Core, ID: "a", Outcome: result.OutcomeError, ErrorKind: result.ErrorAdapter})
	s := b.Summaries()[0]
	if s.ScoreCell() != "-" || s.GroupOutcomes["g"].ScoreCell() != "-" {
		t.Errorf("score cells %q %q, want -", s.ScoreCell(), s.GroupOutcomes["g"].ScoreCell())
	}
	var buf bytes.Buffer
	PrintTable(&buf, []*CheckpointSummary{s})
	if strings.Contains(buf.String(), "0.00") {
		t.Errorf("a score is shown for cases never judged:\n%s", buf.String())
	}
}

// A case that could not run shows why, not the verdicts of its checks on
// the result it never gave.
func TestFailureTextOfACaseThatCouldNotRun(t *testing.T) {
	r := &result.CaseRecord{Case: &result.CaseInfo{}, Result: result.Execution{AdapterError: true, Error: "run \"./main\": permission denied"},
		Attributes: []verify.AttributeResult{{Attribute: "output", Expected: "hello", Diff: &verify.Diff{Summary: "1 line differs"}}}}
	got := FailureText(r, 1000)
	if !strings.Contains(got, "could not run (an error of the harness, not judged): run \"./main\": permission denied") || strings.Contains(got, "line differs") {
		t.Errorf("failure text: %q", got)
	}
}
