package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/journal"
)

// A run that ended wrote whole lines only: when its journal's last line
// has since been cut short, report says so (the case it held is not in
// the report) rather than calling the run complete as if nothing were
// missing.
func TestReportWarnsOfATornJournalOfAnEndedRun(t *testing.T) {
	reference, _ := exampleRuns(t)
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(dir, os.DirFS(reference)); err != nil {
		t.Fatal(err)
	}
	r := wasmeval(t, "report", dir)
	if r.code != 0 || strings.Contains(r.stderr, "cut short") {
		t.Fatalf("report of the whole run: %d\n%s", r.code, r.stderr)
	}
	jpath := filepath.Join(dir, journal.FileName)
	st, err := os.Stat(jpath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(jpath, st.Size()-10); err != nil {
		t.Fatal(err)
	}
	r = wasmeval(t, "report", dir)
	if want := "yet the last line of " + jpath + " is cut short"; !strings.Contains(r.stderr, want) {
		t.Errorf("report of a run whose journal was cut: %d, stderr:\n%s\nwant %q", r.code, r.stderr, want)
	}
}
