package parquet

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/report/synth"
)

// A file spanning several row groups (flushed while streaming) reads back
// whole: every row, in order, with its attributes.
func TestParquetManyRowGroups(t *testing.T) {
	const n = 3*maxGroupRows + 123
	dir := t.TempDir()
	jpath, err := synth.Journal(dir, n)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, FileName)
	if _, err := FromJournal(jpath, out, "r", "s"); err != nil {
		t.Fatal(err)
	}
	wantPassed := 0
	for i := range n {
		if synth.Record(i).Passed {
			wantPassed++
		}
	}
	f := "'" + out + "'"
	last := synth.Record(n - 1)
	res := duckQuery(t, map[string]string{
		"groups": "SELECT count(DISTINCT row_group_id) AS g FROM parquet_metadata(" + f + ")",
		"totals": "SELECT count(*) AS n, count(*) FILTER (WHERE passed) AS passed, count(DISTINCT id) AS ids FROM read_parquet(" + f + ")",
		"last":   "SELECT id, \"group\", a.attribute, a.diff FROM (SELECT id, \"group\", unnest(attributes) AS a FROM read_parquet(" + f + ")) WHERE id = '" + last.ID + "' AND a.attribute = 'output'",
	})
	if g := num(res["groups"][0]["g"]); g < 4 {
		t.Errorf("row groups: %v, want at least 4", g)
	}
	tot := res["totals"][0]
	if num(tot["n"]) != n || num(tot["ids"]) != n || num(tot["passed"]) != float64(wantPassed) {
		t.Errorf("totals: %v, want %d rows, %d passed", tot, n, wantPassed)
	}
	l := res["last"]
	if len(l) != 1 || l[0]["group"] != last.Group {
		t.Fatalf("last row: %v", l)
	}
	d, _ := l[0]["diff"].(string)
	if last.Attributes[1].Diff != nil && !strings.Contains(d, "item-") || last.Attributes[1].Diff == nil && d != "null" {
		t.Errorf("last row's output diff: %q", d)
	}
}
