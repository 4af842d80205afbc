package runfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// withUmask runs the test under umask m (process-wide: this package's
// tests do not run in parallel).
func withUmask(t *testing.T, m int) {
	old := syscall.Umask(m)
	t.Cleanup(func() { syscall.Umask(old) })
}

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

// A replaced file gets the run directory's mode, whatever the file it
// replaces had, and the umask applies as it does to the journal.
func TestWriteGivesTheRunDirectoryMode(t *testing.T) {
	for _, tc := range []struct {
		umask int
		want  fs.FileMode
	}{{0o022, 0o644}, {0o027, 0o640}, {0o077, 0o600}} {
		withUmask(t, tc.umask)
		dir := t.TempDir()
		path := filepath.Join(dir, "manifest.json")
		if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := WriteBytes(path, []byte("new\n")); err != nil {
			t.Fatal(err)
		}
		if got := mode(t, path); got != tc.want {
			t.Errorf("umask %03o: %s has mode %03o, want %03o", tc.umask, path, got, tc.want)
		}
		// The journal beside it, created as the journal creates it, has
		// the same mode.
		j, err := os.OpenFile(filepath.Join(dir, "results.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		j.Close()
		if got := mode(t, j.Name()); got != tc.want {
			t.Errorf("umask %03o: the journal has mode %03o, want %03o", tc.umask, got, tc.want)
		}
		f, err := CreateTemp(dir, ".results-*.parquet")
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		if got := mode(t, f.Name()); got != tc.want {
			t.Errorf("umask %03o: CreateTemp made %s with mode %03o, want %03o", tc.umask, f.Name(), got, tc.want)
		}
		if m, _ := filepath.Match(filepath.Join(dir, ".results-*.parquet"), f.Name()); !m {
			t.Errorf("CreateTemp named the file %s", f.Name())
		}
	}
}

// A write that fails leaves the previous file and no temporary file.
func TestWriteThatFailsKeepsThePreviousFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	if err := WriteBytes(path, []byte("previous")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error {
		w.Write([]byte("half"))
		return boom
	})
	if !errors.Is(err, boom) || err.Error() != "write "+path+": boom" {
		t.Fatalf("error: %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "previous" {
		t.Fatalf("the previous file holds %q", data)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("files left behind: %v", entries)
	}
}
