package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/journal"
)

// A journal written by two runs into one --out (before run directories
// were locked) holds two records of every case: here the broken
// submission's run, then the reference's. report counts each case once,
// by its first record, says on stderr how many records it ignored, and
// --compare, either way round, sees the broken run's verdicts.
func TestReportCountsDuplicateRecordsOnce(t *testing.T) {
	reference, broken := exampleRuns(t)
	nCases, nPassed, _, _ := journalCounts(t, broken)
	if refCases, refPassed, _, _ := journalCounts(t, reference); refCases != nCases || refPassed == nPassed {
		t.Fatalf("the reference run (%d/%d) must differ from the broken one (%d/%d), or the test proves nothing", refPassed, refCases, nPassed, nCases)
	}
	dup := t.TempDir()
	if err := os.CopyFS(dup, os.DirFS(broken)); err != nil {
		t.Fatal(err)
	}
	refLines, err := os.ReadFile(filepath.Join(reference, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dup, journal.FileName), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(refLines); err != nil {
		t.Fatal(err)
	}
	f.Close()

	r := wasmeval(t, "report", dup, "--format", "json", "--write")
	if r.code != 0 {
		t.Fatalf("report: exit %d\n%s", r.code, r.stderr)
	}
	var doc struct {
		Cases      int `json:"cases"`
		Passed     int `json:"cases_passed"`
		Duplicates int `json:"duplicate_records_ignored"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("report JSON: %v\n%s", err, r.stdout)
	}
	if doc.Cases != nCases || doc.Passed != nPassed || doc.Duplicates != nCases {
		t.Errorf("report: %d/%d cases passed, %d duplicates; want %d/%d and %d", doc.Passed, doc.Cases, doc.Duplicates, nPassed, nCases, nCases)
	}
	note := fmt.Sprintf("note: %s: %d duplicate journal record(s) ignored", filepath.Join(dup, journal.FileName), nCases)
	if !strings.Contains(r.stderr, note) {
		t.Errorf("stderr does not say %q:\n%s", note, r.stderr)
	}
	page, err := os.ReadFile(filepath.Join(dup, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(page), `<tr class="`); got != nCases {
		t.Errorf("report.html: %d case rows, want %d", got, nCases)
	}

	// Against the broken run itself, nothing changed, whichever is the
	// baseline: the reference's later records are not the duplicated run's.
	for _, args := range [][]string{{dup, "--compare", broken}, {broken, "--compare", dup}} {
		r := wasmeval(t, append([]string{"report", "--format", "json"}, args...)...)
		var res struct {
			Regressions []any `json:"regressions"`
			Fixes       []any `json:"fixes"`
			Unchanged   int   `json:"unchanged"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
			t.Fatalf("report %v: exit %d, %v\n%s", args, r.code, err, r.stderr)
		}
		if r.code != 0 || len(res.Regressions) != 0 || len(res.Fixes) != 0 || res.Unchanged != nCases {
			t.Errorf("report %v: exit %d, %d regressions, %d fixes, %d unchanged; want 0, 0, 0, %d", args, r.code, len(res.Regressions), len(res.Fixes), res.Unchanged, nCases)
		}
	}
}
