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

	"github.com/wasmeval/wasmeval/engine/journal/journaltest"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/result"
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
