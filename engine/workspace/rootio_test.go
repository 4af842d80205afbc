package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wasmeval/wasmeval/engine/cases"
)

// flipper plays a submission's process that keeps swapping name (under
// root) between a real directory and a symlink to outside, as fast as it
// can, until stopped: whatever the engine checked a moment ago may be a
// link by the time it writes or reads.
func flipper(t *testing.T, root, name, outside string) (stop func()) {
	t.Helper()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		p := filepath.Join(root, name)
		for {
			select {
			case <-done:
				return
			default:
			}
			os.RemoveAll(p)
			os.Symlink(outside, p)
			os.Remove(p)
			os.Mkdir(p, 0o755)
		}
	}()
	return func() { close(done); wg.Wait() }
}

func assertEmptyDir(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		t.Errorf("written outside the workspace: %s", filepath.Join(dir, e.Name()))
	}
}

func TestWritesNeverFollowAPlantedLink(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	stop := flipper(t, root, "sub", outside)
	for i := 0; i < 2000; i++ {
		// Errors are expected (the directory vanishes under the write);
		// a write outside is not.
		WriteFiles(root, []cases.InputFile{{Path: "sub/in.txt", Content: []byte("input")}})
	}
	stop()
	assertEmptyDir(t, outside)

	src := t.TempDir()
	mustWrite(t, filepath.Join(src, "sub/payload"), "chosen content", 0o755)
	stop = flipper(t, root, "sub", outside)
	for i := 0; i < 2000; i++ {
		r, err := os.OpenRoot(root)
		if err != nil {
			t.Fatal(err)
		}
		CopyInto(r, src, -1, -1)
		r.Close()
		os.RemoveAll(filepath.Join(root, "sub", "payload"))
	}
	stop()
	assertEmptyDir(t, outside)
}

func TestTrackedReadsNeverFollowAPlantedLink(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	mustWrite(t, filepath.Join(outside, "out.txt"), "host secret", 0o644)
	stop := flipper(t, root, "sub", outside)
	defer stop()
	for i := 0; i < 2000; i++ {
		got, err := ReadTracked(root, []string{"sub/out.txt", "sub"}, 1<<20)
		if err != nil {
			continue
		}
		for name, content := range got {
			if s, ok := content.(string); ok && strings.Contains(s, "secret") {
				t.Fatalf("read %s from outside the workspace through a link", name)
			}
		}
	}
}

func TestCopyIntoCreatesExclusively(t *testing.T) {
	src := t.TempDir()
	mustWrite(t, filepath.Join(src, "run.sh"), "#!/bin/sh\n", 0o750)
	mustWrite(t, filepath.Join(src, "data/a.txt"), "a", 0o640)
	os.Symlink("data/a.txt", filepath.Join(src, "link"))
	dst := t.TempDir()
	r, err := os.OpenRoot(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := CopyInto(r, src, -1, -1); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(dst, "run.sh")); err != nil || st.Mode().Perm() != 0o750 {
		t.Errorf("run.sh: %v %v", st, err)
	}
	if got, err := os.ReadFile(filepath.Join(dst, "link")); err != nil || string(got) != "a" {
		t.Errorf("inner link: %q %v", got, err)
	}
	// A name that exists already (planted) is refused, not written through.
	os.RemoveAll(filepath.Join(dst, "run.sh"))
	victim := filepath.Join(t.TempDir(), "victim")
	mustWrite(t, victim, "safe", 0o644)
	os.Symlink(victim, filepath.Join(dst, "run.sh"))
	os.RemoveAll(filepath.Join(dst, "data"))
	os.Remove(filepath.Join(dst, "link"))
	if err := CopyInto(r, src, -1, -1); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("a planted name: %v", err)
	}
	if got, _ := os.ReadFile(victim); string(got) != "safe" {
		t.Errorf("wrote through a planted link: %q", got)
	}
}
