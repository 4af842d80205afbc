package workspace

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// A run directory left by a run that is gone is removed; those of live
// runs, this process's own and unrelated directories are kept, unless all.
func TestCleanRunDirs(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	own, err := NewRunDir()
	if err != nil {
		t.Fatal(err)
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	mk := func(name string) string {
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Join(p, "c1-g", "work"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dead := mk(fmt.Sprintf("%s%d-123", runDirPrefix, gone.Process.Pid))
	live := mk(runDirPrefix + "1-456") // init is always alive
	old := mk(runDirPrefix + "789")    // named before names carried a pid
	other := mk("something-else")

	removed, err := CleanRunDirs(false)
	if err != nil || !slices.Equal(removed, []string{dead}) {
		t.Fatalf("clean: %v %v, want [%s]", removed, err, dead)
	}
	removed, err = CleanRunDirs(true)
	slices.Sort(removed)
	if want := []string{live, old}; err != nil || !slices.Equal(removed, want) {
		t.Fatalf("clean --all: %v %v, want %v", removed, err, want)
	}
	for _, kept := range []string{own, other} {
		if _, err := os.Stat(kept); err != nil {
			t.Errorf("%s was removed", kept)
		}
	}
}
