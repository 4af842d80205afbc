package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// Every file a real run leaves in its run directory has the journal's
// mode, 0644 less the umask: the files written whole (manifest, summaries,
// Parquet, HTML) used to be 0600, unreadable in a shared directory.
func TestRunDirectoryFilesHaveOneMode(t *testing.T) {
	_, broken := exampleRuns(t)
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("the umask cannot be read here: %v", err)
	}
	m := regexp.MustCompile(`(?m)^Umask:\s+([0-7]+)$`).FindSubmatch(status)
	if m == nil {
		t.Skip("the kernel does not report the umask")
	}
	umask, _ := strconv.ParseUint(string(m[1]), 8, 32)
	want := fs.FileMode(0o644) &^ fs.FileMode(umask)
	seen := map[string]bool{}
	err = filepath.WalkDir(broken, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		st, err := d.Info()
		if err != nil {
			return err
		}
		seen[d.Name()] = true
		if st.Mode().Perm() != want {
			t.Errorf("%s: mode %03o, want %03o (0644 less the umask %03o)", p, st.Mode().Perm(), want, umask)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"results.jsonl", "manifest.json", "results.parquet", "report.html", "evaluation.json", "run.log"} {
		if !seen[name] {
			t.Errorf("the run directory has no %s", name)
		}
	}
	// A report written with --output gets the same mode.
	out := filepath.Join(t.TempDir(), "report.xml")
	if r := wasmeval(t, "report", broken, "--format", "junit", "--output", out); r.code != 0 && r.code != 1 {
		t.Fatalf("report --output: %d %s", r.code, r.stderr)
	}
	if st, err := os.Stat(out); err != nil || st.Mode().Perm() != want {
		t.Errorf("report --output: %v, mode %v, want %03o", err, st, want)
	}
}
