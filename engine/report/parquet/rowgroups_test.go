package parquet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/report"
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

// The table layout (a batch's: large row groups whose pages wait in
// unlinked temporary files) writes the same rows as a run's, read back
// by DuckDB, and leaves nothing beside the file.
func TestParquetTableLayout(t *testing.T) {
	const n = 3*maxGroupRows + 123
	dir := t.TempDir()
	jpath, err := synth.Journal(dir, n)
	if err != nil {
		t.Fatal(err)
	}
	outDir := filepath.Join(dir, "out")
	if err := os.Mkdir(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	runFile, tableFile := filepath.Join(dir, FileName), filepath.Join(outDir, FileName)
	if _, err := FromJournal(jpath, runFile, "r", "s"); err != nil {
		t.Fatal(err)
	}
	// Row groups of 5,000 rows: several groups, each spooled, with
	// spool files reused between them.
	l := TableLayout
	l.GroupRows = 5000
	w, err := CreateLayout(tableFile, "r", "s", l)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := report.ReadEveryAttempt(jpath, w.Add); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(outDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != FileName {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("beside the table: %v, want only %s", names, FileName)
	}
	// Every column of every row is the run layout's.
	q := func(f string) string {
		return "SELECT md5(string_agg(CAST(t AS VARCHAR), '|' ORDER BY id, attempt, epoch)) AS h, count(*) AS n FROM read_parquet('" + f + "') t"
	}
	res := duckQuery(t, map[string]string{
		"run":    q(runFile),
		"table":  q(tableFile),
		"groups": "SELECT count(DISTINCT row_group_id) AS g FROM parquet_metadata('" + tableFile + "')",
		"cols":   "SELECT (SELECT count(*) FROM parquet_schema('" + runFile + "')) AS a, (SELECT count(*) FROM parquet_schema('" + tableFile + "')) AS b",
	})
	if res["run"][0]["h"] != res["table"][0]["h"] || num(res["table"][0]["n"]) != n {
		t.Errorf("table layout's rows differ from the run layout's: %v, %v", res["table"], res["run"])
	}
	if g := num(res["groups"][0]["g"]); g != 3 {
		t.Errorf("row groups: %v, want 3 of at most 5,000 rows", g)
	}
	if c := res["cols"][0]; c["a"] != c["b"] {
		t.Errorf("schema elements: run %v, table %v", c["a"], c["b"])
	}
}
