package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/cases"
)

func mustWrite(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

func TestSafeJoin(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	os.Mkdir(filepath.Join(root, "in"), 0o755)
	os.Symlink(outside, filepath.Join(root, "out"))
	os.Symlink("in", filepath.Join(root, "alias"))
	os.Symlink(filepath.Join(root, "nowhere"), filepath.Join(root, "dangling"))
	ok := []string{"a.txt", "in/b.txt", "in/new/deep/c", "alias/x"}
	for _, p := range ok {
		got, err := SafeJoin(root, p)
		if err != nil || got != filepath.Join(root, p) {
			t.Errorf("%s: %q %v", p, got, err)
		}
	}
	bad := map[string]string{
		"":            "escapes",
		"/etc/passwd": "escapes",
		"../x":        "escapes",
		"in/../../x":  "escapes",
		"out/x":       "leaves the workspace through a symlink",
		"out":         "leaves the workspace through a symlink",
		"dangling/x":  "broken symlink",
		"a\x00b":      "escapes",
	}
	for p, want := range bad {
		if _, err := SafeJoin(root, p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error containing %q", p, err, want)
		}
	}
}

func TestCopyKeepsModesAndInnerLinks(t *testing.T) {
	src := t.TempDir()
	mustWrite(t, filepath.Join(src, "run.sh"), "#!/bin/sh\n", 0o755)
	mustWrite(t, filepath.Join(src, "lib/data.txt"), "data", 0o644)
	os.Symlink("lib/data.txt", filepath.Join(src, "link"))
	dst := filepath.Join(t.TempDir(), "w")
	if err := Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dst, "run.sh"))
	if err != nil || st.Mode().Perm() != 0o755 {
		t.Fatalf("mode not kept: %v %v", st, err)
	}
	if data, _ := os.ReadFile(filepath.Join(dst, "link")); string(data) != "data" {
		t.Errorf("inner symlink: %q", data)
	}
	os.Chmod(filepath.Join(src, "lib/data.txt"), 0o444)
	w2 := filepath.Join(t.TempDir(), "w2")
	if err := Copy(w2, src); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(w2, "lib/data.txt")); err != nil || st.Mode().Perm() != 0o444 {
		t.Errorf("read-only file mode: %v %v", st, err)
	}
	if err := Copy(filepath.Join(src, "lib", "copy"), src); err == nil || !strings.Contains(err.Error(), "is inside it") {
		t.Errorf("copy into itself: %v", err)
	}
	// A chain of links that climbs out through ".." is judged by where it
	// lands, not by its text.
	chain := t.TempDir()
	os.Symlink(".", filepath.Join(chain, "b"))
	os.Symlink("b/..", filepath.Join(chain, "c"))
	os.Symlink("c/..", filepath.Join(chain, "d"))
	err = Copy(filepath.Join(t.TempDir(), "w"), chain)
	if err == nil || !strings.Contains(err.Error(), "points outside the submission") {
		t.Errorf("link chain escaping the submission: %v", err)
	}
	os.Symlink("/etc/passwd", filepath.Join(src, "evil"))
	err = Copy(filepath.Join(t.TempDir(), "w"), src)
	if err == nil || !strings.Contains(err.Error(), "points outside the submission") {
		t.Errorf("outside symlink: %v", err)
	}
	if err := Copy(t.TempDir(), filepath.Join(src, "missing")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing source: %v", err)
	}
}

func TestWriteFilesRefusesEscapes(t *testing.T) {
	root := t.TempDir()
	if err := WriteFiles(root, []cases.InputFile{{Path: "a/b/c.txt", Content: []byte("x")}}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "a/b/c.txt")); string(data) != "x" {
		t.Errorf("content %q", data)
	}
	err := WriteFiles(root, []cases.InputFile{{Path: "../evil", Content: []byte("x")}})
	if err == nil || !strings.Contains(err.Error(), "escapes") {
		t.Errorf("escape: %v", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(root), "evil")); err == nil {
		t.Error("file written outside the workspace")
	}
	// A file symlink planted by a submission is replaced, not written through.
	target := filepath.Join(t.TempDir(), "victim")
	mustWrite(t, target, "safe", 0o644)
	os.Symlink(target, filepath.Join(root, "planted"))
	if err := WriteFiles(root, []cases.InputFile{{Path: "planted", Content: []byte("owned")}}); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("a symlink planted out of the workspace must be refused, got %v", err)
	}
	if data, _ := os.ReadFile(target); string(data) != "safe" {
		t.Errorf("wrote through a symlink: %q", data)
	}
}

func TestReadTracked(t *testing.T) {
	root := t.TempDir()
	mustWrite(t, filepath.Join(root, "out/a.txt"), "alpha\n", 0o644)
	mustWrite(t, filepath.Join(root, "out/sub/b.bin"), "\xff\x00\x01", 0o644)
	mustWrite(t, filepath.Join(root, "logs/x/1.log"), "one", 0o644)
	mustWrite(t, filepath.Join(root, "logs/2.log"), "two", 0o644)
	mustWrite(t, filepath.Join(root, "logs/skip.txt"), "no", 0o644)
	mustWrite(t, filepath.Join(root, "big.txt"), strings.Repeat("é", 10), 0o644) // 20 bytes
	secret := filepath.Join(t.TempDir(), "secret")
	mustWrite(t, secret, "host secret", 0o644)
	os.Symlink(secret, filepath.Join(root, "out/leak.txt"))

	got, err := ReadTracked(root, []string{"./out/", "logs/**/*.log", "none/*.txt"}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"out/a.txt":     "alpha\n",
		"out/sub/b.bin": []byte{0xff, 0x00, 0x01},
		"logs/x/1.log":  "one",
		"logs/2.log":    "two",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v\nwant %#v", got, want)
	}
	got, err = ReadTracked(root, []string{"big.txt"}, 7)
	if err != nil {
		t.Fatal(err)
	}
	// 7 bytes cut inside the 4th "é": keep the 3 whole ones (6 bytes).
	if want := "ééé" + "\n[wasmeval: file truncated, 14 more bytes dropped]"; got["big.txt"] != want {
		t.Errorf("truncated: %q, want %q", got["big.txt"], want)
	}
	for _, bad := range []string{"../x", "/etc/passwd", ""} {
		if _, err := ReadTracked(root, []string{bad}, 10); err == nil {
			t.Errorf("pattern %q must be refused", bad)
		}
	}
}

// A submission cannot make the engine read unbounded output: past
// MaxTrackedFiles files or MaxTrackedBytes in all, the case gets an error
// saying so instead of the files. (Sparse files: the test writes nothing.)
func TestReadTrackedTotalLimits(t *testing.T) {
	root := t.TempDir()
	const fileBytes = 8 << 20
	n := MaxTrackedBytes/fileBytes + 1
	for i := 0; i < n; i++ {
		f := filepath.Join(root, "out", fmt.Sprintf("%02d.bin", i))
		mustWrite(t, f, "", 0o644)
		if err := os.Truncate(f, fileBytes); err != nil {
			t.Fatal(err)
		}
	}
	_, err := ReadTracked(root, []string{"out"}, fileBytes)
	if want := fmt.Sprintf("the tracked files add up to more than 128 MiB, the most a case may track (%d of %d files read)", n-1, n); err == nil || err.Error() != want {
		t.Errorf("bytes: got %v, want %q", err, want)
	}
	// Cut to the per-file cap first, the same files fit.
	if got, err := ReadTracked(root, []string{"out"}, 1<<20); err != nil || len(got) != n {
		t.Errorf("with a 1 MiB per-file cap: %d files, %v", len(got), err)
	}

	many := t.TempDir()
	for i := 0; i <= MaxTrackedFiles; i++ {
		mustWrite(t, filepath.Join(many, "out", fmt.Sprintf("%05d", i)), "x", 0o644)
	}
	if _, err := ReadTracked(many, []string{"out"}, 10); err == nil || !strings.Contains(err.Error(), "the tracked files are 10001 files; a case may track at most 10000") {
		t.Errorf("count: %v", err)
	}
}
