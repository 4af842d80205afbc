package rundir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/manifest"
	"github.com/wasmeval/wasmeval/engine/report/html"
	"github.com/wasmeval/wasmeval/engine/report/parquet"
	"github.com/wasmeval/wasmeval/engine/report/synth"
	"github.com/wasmeval/wasmeval/engine/result"
)

// A run that crashed — manifest still "running", a torn last journal line —
// is reported from what finished, and never as passing.
func TestOpenCrashedRun(t *testing.T) {
	dir := t.TempDir()
	jpath, err := synth.Journal(dir, 40)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(jpath, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"checkpoint":"checkpoint_1","id":"torn`)
	f.Close()
	m := &manifest.Manifest{Schema: manifest.SchemaVersion, RunID: "r-crash", Status: manifest.StatusRunning,
		Problem:    manifest.Problem{Name: "synthetic", Checkpoints: []string{"checkpoint_1", "checkpoint_2", "checkpoint_3", "checkpoint_4", "checkpoint_5"}},
		Submission: manifest.Submission{Path: "/sub"}, Flags: manifest.Flags{PassPolicy: string(result.PolicyAny)}, StartedAt: time.Now()}
	if err := manifest.Write(dir, m); err != nil {
		t.Fatal(err)
	}
	run, err := Open(dir, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Summaries) != 5 || run.Info.RunID != "r-crash" || run.Info.Status != manifest.StatusRunning {
		t.Fatalf("summaries %d, info %+v", len(run.Summaries), run.Info)
	}
	total := 0
	for _, s := range run.Summaries {
		total += s.Cases
		if s.Passed || s.Complete {
			t.Errorf("%s of a crashed run: passed %v complete %v", s.Name, s.Passed, s.Complete)
		}
		if s.Policy != result.PolicyAny || s.RunID != "r-crash" {
			t.Errorf("%s: policy %s run %q", s.Name, s.Policy, s.RunID)
		}
	}
	if total != 40 || run.Summaries[4].Cases != 0 {
		t.Errorf("cases: %d (checkpoint_5: %d)", total, run.Summaries[4].Cases)
	}
	if err := run.WriteFiles(); err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(filepath.Join(dir, html.FileName))
	if !strings.Contains(string(page), "r-crash") || strings.Count(string(page), `<tr class="`) != 40 {
		t.Errorf("HTML report of the crashed run: %d rows", strings.Count(string(page), `<tr class="`))
	}
	if st, err := os.Stat(filepath.Join(dir, parquet.FileName)); err != nil || st.Size() == 0 {
		t.Errorf("parquet: %v", err)
	}
}

func TestOpenRefusesNonRunDirectory(t *testing.T) {
	_, err := Open(t.TempDir(), "", "")
	if err == nil || !strings.Contains(err.Error(), "not a run directory") || !strings.Contains(err.Error(), journal.FileName) {
		t.Fatalf("error: %v", err)
	}
}

// A corrupt line in the middle of the journal is refused with every
// corrupt line named; Salvage sets them aside, and the run is then
// reported from the other records, never as passing: it lacks cases.
func TestCorruptJournalIsRefusedThenSalvaged(t *testing.T) {
	dir := t.TempDir()
	jpath, err := synth.Journal(dir, 40)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(jpath)
	lines := strings.SplitAfter(string(data), "\n")
	lines[9] = lines[9][:len(lines[9])/2] + "\n" // a write cut short, then more records after it
	lines[20] = "\x00\x00\x00\n"
	os.WriteFile(jpath, []byte(strings.Join(lines, "")), 0o644)
	m := &manifest.Manifest{Schema: manifest.SchemaVersion, RunID: "r-corrupt", Status: manifest.StatusComplete,
		Problem:    manifest.Problem{Name: "synthetic", Checkpoints: []string{"checkpoint_1", "checkpoint_2", "checkpoint_3", "checkpoint_4"}},
		Submission: manifest.Submission{Path: "/sub"}, Flags: manifest.Flags{PassPolicy: string(result.PolicyAny)}, StartedAt: time.Now()}
	if err := manifest.Write(dir, m); err != nil {
		t.Fatal(err)
	}

	_, err = Open(dir, "", "")
	var c *journal.Corruption
	if !errors.As(err, &c) || len(c.Lines) != 2 || c.Lines[0].Line != 10 || c.Lines[1].Line != 21 {
		t.Fatalf("open a corrupt journal: %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, jpath+":10: corrupt journal line: unexpected end of JSON input") || !strings.Contains(msg, jpath+":21: corrupt journal line: not a JSON object") {
		t.Fatalf("message: %s", msg)
	}

	// Not while a writer holds the directory.
	lock, err := journal.LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var le *journal.LockedError
	if _, err := Salvage(dir); !errors.As(err, &le) || le.PID != os.Getpid() {
		t.Fatalf("salvage while the directory is locked: %v", err)
	}
	lock.Unlock()

	c, err = Salvage(dir)
	if err != nil || c == nil || len(c.Lines) != 2 {
		t.Fatalf("salvage: %v %v", c, err)
	}
	run, err := Open(dir, "", "")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, s := range run.Summaries {
		total += s.Cases
		if s.Passed || s.Complete {
			t.Errorf("%s of a salvaged run: passed %v complete %v", s.Name, s.Passed, s.Complete)
		}
	}
	if total != 38 || run.Info.Status != manifest.StatusInterrupted {
		t.Fatalf("salvaged run: %d cases, status %s", total, run.Info.Status)
	}
	aside, _ := os.ReadFile(filepath.Join(dir, journal.SetAsideName))
	if string(aside) != lines[9]+lines[20] {
		t.Fatalf("set aside: %q", aside)
	}
}

// A report says whether a process is writing the run right now.
func TestOpenTellsAnActiveWriter(t *testing.T) {
	dir := t.TempDir()
	if _, err := synth.Journal(dir, 4); err != nil {
		t.Fatal(err)
	}
	run, err := Open(dir, "", "")
	if err != nil || run.Writer.Active || !run.Writer.Known {
		t.Fatalf("no writer: %+v %v", run.Writer, err)
	}
	lock, err := journal.LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	run, err = Open(dir, "", "")
	if err != nil || !run.Writer.Active || run.Writer.PID != os.Getpid() {
		t.Fatalf("writer: %+v %v", run.Writer, err)
	}
}
