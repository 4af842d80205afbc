package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// ReadFile is how read_asset and a check's expected_file reach the
// problem: it refuses what leaves the problem, and a FIFO, which would
// block the call, is refused before it is opened.
func TestReadFileStaysInTheProblem(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "problem")
	mustWrite(t, filepath.Join(base, "secret"), "s", 0o644)
	mustWrite(t, filepath.Join(dir, "ok.txt"), "ok", 0o644)
	os.Symlink("../secret", filepath.Join(dir, "leak"))
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(dir, "ok.txt", 10); err != nil || string(data) != "ok" {
		t.Fatalf("ReadFile(ok.txt) = %q, %v", data, err)
	}
	for rel, want := range map[string]string{
		"leak":     "leaves the workspace through a symlink",
		"fifo":     "not a regular file",
		"../x":     "escapes",
		"ok.txt/x": "not a directory",
	} {
		if _, err := ReadFile(dir, rel, 10); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadFile(%q) = %v, want an error containing %q", rel, err, want)
		}
	}
	if _, err := ReadFile(dir, "ok.txt", 1); err == nil || !strings.Contains(err.Error(), "over the 1 byte cap") {
		t.Errorf("cap: %v", err)
	}
}
