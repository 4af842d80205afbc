package history

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// runDoc writes a journal whose cases pass as given and builds its
// eval-results document the way a run does.
func runDoc(t *testing.T, start time.Time, cases map[string]bool) *report.EvalResults {
	t.Helper()
	dir := t.TempDir()
	w, err := journal.Create(filepath.Join(dir, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, 0, len(cases))
	for id := range cases {
		ids = append(ids, id)
	}
	// Journal order is run order; keep it fixed for the lists compared.
	slices.Sort(ids)
	for _, id := range ids {
		r := &result.CaseRecord{Problem: "agents", Checkpoint: "c", Group: "g", GroupType: problem.Core, ID: id, StartedAt: start,
			Case:   &result.CaseInfo{Instruction: "ask " + id, Category: "happy_path"},
			Result: result.Execution{Agent: true, Output: `{"task_result": "x"}`}}
		r.Attributes = []verify.AttributeResult{{Attribute: "output", IsCorrect: cases[id], Weight: 1}}
		r.Score, _ = result.Score(r.Attributes)
		result.Classification{}.Classify(r)
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	doc, err := report.EvalResultsOf(dir, start)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func readLatest(t *testing.T, dir string) *report.EvalResults {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, LatestName))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := report.ReadEvalResults(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestRecordAndCompare(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "history")
	t1 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	t2, t3 := t1.Add(time.Hour), t1.Add(2*time.Hour)

	first := runDoc(t, t1, map[string]bool{"a": true, "b": false, "c": true, "gone": true})
	e1, prev, err := Record(dir, "run-1", time.Time{}, first)
	if err != nil {
		t.Fatal(err)
	}
	if prev != nil {
		t.Errorf("the first run has a previous one: %v", prev.Path)
	}
	if filepath.Base(e1.Path) != "20260501T100000Z-run-1.json" {
		t.Errorf("entry name: %s", e1.Path)
	}

	third := runDoc(t, t3, map[string]bool{"a": true, "b": true, "c": true})
	_, prev, err = Record(dir, "run-3", t3, third)
	if err != nil {
		t.Fatal(err)
	}
	if prev == nil || prev.Path != e1.Path {
		t.Fatalf("previous of run 3: %v", prev)
	}

	// A run recorded late (it started before run 3): its previous run is
	// the one that started before it, and latest.json stays run 3's.
	second := runDoc(t, t2, map[string]bool{"a": false, "b": true, "c": true, "new": false})
	_, prev, err = Record(dir, "run/2", t2, second)
	if err != nil {
		t.Fatal(err)
	}
	if prev == nil || prev.Path != e1.Path {
		t.Fatalf("previous of run 2: %v", prev)
	}
	ch := Compare(prev.Results, second)
	want := Changes{Regressions: []string{"a"}, Fixes: []string{"b"}, New: []string{"new"}, Removed: []string{"gone"}, Unchanged: 1}
	if !reflect.DeepEqual(ch, want) {
		t.Errorf("changes: %+v, want %+v", ch, want)
	}
	var out bytes.Buffer
	ch.Print(&out)
	if !strings.Contains(out.String(), "1 regressions, 1 fixes, 1 new, 1 removed, 1 unchanged") || !strings.Contains(out.String(), "regressed a") {
		t.Errorf("printed changes:\n%s", out.String())
	}
	if latest := readLatest(t, dir); latest.RunAt != "2026-05-01T12:00:00Z" || latest.Passed != 3 {
		t.Errorf("latest.json is not run 3's: %s, %d passed", latest.RunAt, latest.Passed)
	}
	if l, err := Latest(dir); err != nil || l.Results.RunAt != "2026-05-01T12:00:00Z" {
		t.Errorf("Latest: %v %v", l, err)
	}

	// The same run recorded again keeps the first entry and adds one.
	e3b, prev, err := Record(dir, "run-3", t3, third)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(e3b.Path) != "20260501T120000Z-run-3-2.json" || prev == nil || filepath.Base(prev.Path) != "20260501T120000Z-run-3.json" {
		t.Errorf("second record of run 3: %s, previous %v", e3b.Path, prev)
	}
	names, _ := entries(filepath.Join(dir, RunsDir))
	wantNames := []string{"20260501T100000Z-run-1.json", "20260501T110000Z-run_2.json", "20260501T120000Z-run-3.json", "20260501T120000Z-run-3-2.json"}
	if !reflect.DeepEqual(names, wantNames) {
		t.Errorf("entries: %v, want %v", names, wantNames)
	}
	// Nothing else is left in the directories (no temporary files).
	for _, d := range []string{dir, filepath.Join(dir, RunsDir)} {
		des, _ := os.ReadDir(d)
		for _, de := range des {
			if strings.HasPrefix(de.Name(), ".") {
				t.Errorf("left behind: %s", filepath.Join(d, de.Name()))
			}
		}
	}
	// Every entry reads back whole.
	for _, n := range names {
		if _, err := Read(filepath.Join(dir, RunsDir, n)); err != nil {
			t.Error(err)
		}
	}
}

func TestCompareWithoutAPreviousRun(t *testing.T) {
	cur := &report.EvalResults{Results: []*report.EvalResult{{ID: "x", Passed: true}, {ID: "y"}}}
	if ch := Compare(nil, cur); !reflect.DeepEqual(ch.New, []string{"x", "y"}) || len(ch.Regressions)+len(ch.Fixes)+len(ch.Removed) != 0 {
		t.Errorf("changes without a previous run: %+v", ch)
	}
}

// helperEnv makes the test binary a history writer (see
// TestHistoryHelperProcess): the directory, a writer number and a count.
const helperEnv = "WASMEVAL_HISTORY_HELPER"

// Not a test: the body of each writer process of
// TestConcurrentWritersKeepEveryEntry.
func TestHistoryHelperProcess(t *testing.T) {
	spec := os.Getenv(helperEnv)
	if spec == "" {
		t.Skip("runs only as a helper process")
	}
	parts := strings.Split(spec, ",")
	dir := parts[0]
	writer, _ := strconv.Atoi(parts[1])
	n, _ := strconv.Atoi(parts[2])
	base := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		// Interleaved run starts: the writers' entries alternate in
		// time, and some share a start and id (names must not clash).
		at := base.Add(time.Duration(2*i+writer%2) * time.Minute)
		doc := &report.EvalResults{RunAt: at.Format(time.RFC3339), Total: 1, Results: []*report.EvalResult{
			{ID: fmt.Sprintf("w%d-%d", writer, i), Passed: true, Failures: []string{}, ToolsCalled: []string{}}}}
		if _, _, err := Record(dir, fmt.Sprintf("run-%d", i%3), at, doc); err != nil {
			t.Fatal(err)
		}
	}
}

// Two processes recording at once keep every entry, whole, and
// latest.json ends as the newest run's.
func TestConcurrentWritersKeepEveryEntry(t *testing.T) {
	dir := t.TempDir()
	const writers, each = 3, 25
	var wg sync.WaitGroup
	errs := make([]error, writers)
	outs := make([][]byte, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestHistoryHelperProcess$", "-test.count=1")
			// Writers 0 and 2 share run starts and ids: their entries
			// compete for the same names.
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s,%d,%d", helperEnv, dir, w, each))
			outs[w], errs[w] = cmd.CombinedOutput()
		}()
	}
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v\n%s", w, err, outs[w])
		}
	}
	names, err := entries(filepath.Join(dir, RunsDir))
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != writers*each {
		t.Fatalf("%d entries, want %d", len(names), writers*each)
	}
	seen := map[string]bool{}
	for _, n := range names {
		e, err := Read(filepath.Join(dir, RunsDir, n))
		if err != nil {
			t.Fatal(err)
		}
		if len(e.Results.Results) != 1 {
			t.Fatalf("%s: %+v", n, e.Results)
		}
		seen[e.Results.Results[0].ID] = true
	}
	for w := 0; w < writers; w++ {
		for i := 0; i < each; i++ {
			if id := fmt.Sprintf("w%d-%d", w, i); !seen[id] {
				t.Errorf("entry of %s lost", id)
			}
		}
	}
	newest, err := os.ReadFile(filepath.Join(dir, RunsDir, names[len(names)-1]))
	if err != nil {
		t.Fatal(err)
	}
	latest, err := os.ReadFile(filepath.Join(dir, LatestName))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(latest, newest) {
		var l report.EvalResults
		json.Unmarshal(latest, &l)
		t.Errorf("latest.json is not the newest entry %s: run_at %s", names[len(names)-1], l.RunAt)
	}
}

// A run id that begins with the run's start, as wasmeval's run ids do,
// names the entry alone: the start is not written twice.
func TestEntryNameOfAStampedRunID(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	e, _, err := Record(dir, "20260501T100000Z-ab12cd34", at, runDoc(t, at, map[string]bool{"a": true}))
	if err != nil {
		t.Fatal(err)
	}
	if got := filepath.Base(e.Path); got != "20260501T100000Z-ab12cd34.json" {
		t.Errorf("entry name %s", got)
	}
}
