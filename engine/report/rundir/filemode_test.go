package rundir

import (
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/manifest"
	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/report/synth"
	"github.com/wasmeval/wasmeval/engine/result"
)

// Every file of a run directory — the journal and everything written
// whole beside it (manifest, summaries, Parquet, HTML) — is readable by
// others: run directories are shared.
func TestRunDirectoryFilesAreReadable(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	if _, err := synth.Journal(dir, 12); err != nil {
		t.Fatal(err)
	}
	m := &manifest.Manifest{Schema: manifest.SchemaVersion, RunID: "r-modes", Status: manifest.StatusComplete,
		Problem:    manifest.Problem{Name: "synthetic", Checkpoints: []string{"checkpoint_1", "checkpoint_2", "checkpoint_3", "checkpoint_4"}},
		Submission: manifest.Submission{Path: "/sub"}, Flags: manifest.Flags{PassPolicy: string(result.PolicyAny)}, StartedAt: time.Now()}
	if err := manifest.Write(dir, m); err != nil {
		t.Fatal(err)
	}
	run, err := Open(dir, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := report.Write(dir, run.Summaries); err != nil {
		t.Fatal(err)
	}
	if err := run.WriteFiles(); err != nil {
		t.Fatal(err)
	}
	files := 0
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		st, err := d.Info()
		if err != nil {
			return err
		}
		if st.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %03o, want 644", p, st.Mode().Perm())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// results.jsonl, manifest.json, results.parquet, report.html and an
	// evaluation.json per checkpoint.
	if files != 8 {
		t.Errorf("%d files in the run directory, want 8", files)
	}
}
