package rundir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pq "github.com/parquet-go/parquet-go"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/manifest"
	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/report/html"
	"github.com/wasmeval/wasmeval/engine/report/junit"
	"github.com/wasmeval/wasmeval/engine/report/parquet"
	"github.com/wasmeval/wasmeval/engine/report/synth"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// allCorrect is a record of the same case whose every attribute is correct:
// what a second run of a fixed submission would have appended.
func allCorrect(r *result.CaseRecord) *result.CaseRecord {
	c := *r
	c.Attributes = append([]verify.AttributeResult(nil), r.Attributes...)
	for i := range c.Attributes {
		c.Attributes[i].IsCorrect, c.Attributes[i].Diff = true, nil
	}
	c.Score, c.Passed = result.Score(c.Attributes)
	return &c
}

// Two runs into one directory, before run directories were locked,
// interleaved their records: every case of a 40-case run has two, the
// second run's all passing. Every report counts each case once, by its
// first record (a resume's rule), and says how many records it ignored.
func TestDuplicateRecordsAreCountedOnce(t *testing.T) {
	const n = 40
	dir := t.TempDir()
	w, err := journal.Create(filepath.Join(dir, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	// First run: case i; second run, a step behind: case i-1, passing.
	for i := 0; i <= n; i++ {
		if i < n {
			if err := w.Append(synth.Record(i)); err != nil {
				t.Fatal(err)
			}
		}
		if i > 0 {
			if err := w.Append(allCorrect(synth.Record(i - 1))); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	m := &manifest.Manifest{Schema: manifest.SchemaVersion, RunID: "r-dup", Status: manifest.StatusComplete,
		Problem:    manifest.Problem{Name: "synthetic", Checkpoints: []string{"checkpoint_1", "checkpoint_2", "checkpoint_3", "checkpoint_4"}},
		Submission: manifest.Submission{Path: "/sub"}, Flags: manifest.Flags{PassPolicy: string(result.PolicyAllCases)}, StartedAt: time.Now()}
	if err := manifest.Write(dir, m); err != nil {
		t.Fatal(err)
	}
	// What the first run's records alone say: some cases fail, and with
	// them their checkpoints (all-cases).
	wantPassed, cpFails := 0, map[string]bool{}
	for i := 0; i < n; i++ {
		if r := synth.Record(i); r.Passed {
			wantPassed++
		} else {
			cpFails[r.Checkpoint] = true
		}
	}
	if wantPassed == n {
		t.Fatal("the first run's records must include failures, or the test proves nothing")
	}

	run, err := Open(dir, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if run.Info.DuplicatesIgnored != n {
		t.Errorf("duplicates ignored: %d, want %d", run.Info.DuplicatesIgnored, n)
	}
	tot := report.Sum(run.Summaries)
	if tot.Cases != n || tot.Passed != wantPassed {
		t.Errorf("summaries: %d/%d cases passed, want %d/%d", tot.Passed, tot.Cases, wantPassed, n)
	}
	for _, s := range run.Summaries {
		if s.DuplicatesIgnored != n/4 || s.Passed == cpFails[s.Name] {
			t.Errorf("%s: duplicates ignored %d, passed %v; want %d and passed %v (as its first records say)", s.Name, s.DuplicatesIgnored, s.Passed, n/4, !cpFails[s.Name])
		}
		for name, g := range s.GroupOutcomes {
			if g.Total != len(g.Results) {
				t.Errorf("%s/%s: total %d for %d cases", s.Name, name, g.Total, len(g.Results))
			}
		}
	}

	// The files a run directory holds.
	if err := run.WriteFiles(); err != nil {
		t.Fatal(err)
	}
	rows, err := pq.ReadFile[parquet.Row](filepath.Join(dir, parquet.FileName))
	if err != nil {
		t.Fatal(err)
	}
	seen, passed := map[string]bool{}, 0
	for _, r := range rows {
		key := r.Checkpoint + "/" + r.Group + "/" + r.ID
		if seen[key] {
			t.Errorf("parquet: %s has two rows", key)
		}
		seen[key] = true
		if r.Passed {
			passed++
		}
	}
	if len(rows) != n || passed != wantPassed {
		t.Errorf("parquet: %d rows, %d passing; want %d and %d", len(rows), passed, n, wantPassed)
	}
	var page bytes.Buffer
	if err := html.Write(&page, dir, run.HTMLOptions(), run.Summaries); err != nil {
		t.Fatal(err)
	}
	p := page.String()
	if got := strings.Count(p, `<tr class="`); got != n {
		t.Errorf("HTML: %d case rows, want %d", got, n)
	}
	if got := strings.Count(p, `<details class="failure"`); got != n-wantPassed {
		t.Errorf("HTML: %d failure details, want %d", got, n-wantPassed)
	}
	if !strings.Contains(p, `<p class="meta" id="duplicates">Note: 40 duplicate journal record(s) ignored`) {
		t.Error("HTML: no note of the duplicates ignored")
	}

	// The formats of `wasmeval report`.
	var x bytes.Buffer
	if err := junit.Write(&x, dir, run.Info, run.Summaries); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(x.String(), "<testcase "); got != n {
		t.Errorf("JUnit: %d test cases, want %d", got, n)
	}
	if root := fmt.Sprintf(`<testsuites name="synthetic" tests="%d" failures="%d" errors="0"`, n, n-wantPassed); !strings.Contains(x.String(), root) {
		t.Errorf("JUnit root: %s", x.String()[:min(x.Len(), 300)])
	}
	if got := strings.Count(x.String(), `<property name="duplicate_records_ignored" value="10"></property>`); got != 4 {
		t.Errorf("JUnit: %d suites with the duplicates property, want 4", got)
	}
	var md bytes.Buffer
	if err := report.WriteMarkdown(&md, dir, run.Info, run.Summaries); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), fmt.Sprintf("· %d/%d cases passed", wantPassed, n)) || !strings.Contains(md.String(), "> **Note:** 40 duplicate journal record(s) ignored") ||
		strings.Count(md.String(), "<details>") != n-wantPassed {
		t.Errorf("Markdown:\n%s", md.String())
	}
	var js bytes.Buffer
	if err := report.WriteJSON(&js, "", run.Info, run.Summaries); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases      int `json:"cases"`
		Passed     int `json:"cases_passed"`
		Duplicates int `json:"duplicate_records_ignored"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil || doc.Cases != n || doc.Passed != wantPassed || doc.Duplicates != n {
		t.Errorf("JSON: %+v %v", doc, err)
	}
}
