package workspace

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/workspace/confine"
)

// problemInput names the problem file rel under dir as the input file
// path, as a loader does.
func problemInput(t *testing.T, dir, rel, path string) cases.InputFile {
	t.Helper()
	tree, err := confine.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := cases.FromProblem(tree, rel, path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// sameContent compares two files a block at a time.
func sameContent(t *testing.T, a, b string) bool {
	t.Helper()
	fa, err := os.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Close()
	ba, bb := make([]byte, 1<<20), make([]byte, 1<<20)
	for {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false
		}
		if ea != nil || eb != nil {
			return ea == eb || (ea == io.ErrUnexpectedEOF && eb == io.ErrUnexpectedEOF)
		}
	}
}

// A 50 MB input file of the problem goes into the workspace file to file:
// the bytes arrive whole and the copy allocates a bounded amount,
// nowhere near the file's size (it used to be held in memory from the
// moment the case was loaded).
func TestWriteFilesCopiesProblemFilesWithoutHoldingThem(t *testing.T) {
	const size = 50 << 20
	problem, root := t.TempDir(), t.TempDir()
	src := filepath.Join(problem, "c1", "g", "a", "data.txt")
	mustWrite(t, src, strings.Repeat("0123456789abcdef", size/16), 0o644)
	f := problemInput(t, problem, "c1/g/a/data.txt", "in/data.txt")
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := WriteFiles(root, []cases.InputFile{f})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("copying a %d byte input allocated %d bytes, want at most 1 MiB", size, alloc)
	}
	if !sameContent(t, src, filepath.Join(root, "in", "data.txt")) {
		t.Error("the workspace copy differs from the problem file")
	}
}

// A problem file is opened when it is copied, through the problem's
// confinement: one replaced after the case was loaded by a symlink
// leading out of the problem is refused (the secret is not copied), and
// one replaced by a FIFO is refused without blocking.
func TestWriteFilesRefusesProblemFilesSwappedAfterLoading(t *testing.T) {
	base := t.TempDir()
	problem, root := filepath.Join(base, "problem"), t.TempDir()
	secret := filepath.Join(base, "secret")
	mustWrite(t, secret, "root:x:0:0\n", 0o600)
	mustWrite(t, filepath.Join(problem, "data.txt"), "data\n", 0o644)
	mustWrite(t, filepath.Join(problem, "fifo.txt"), "data\n", 0o644)
	data := problemInput(t, problem, "data.txt", "data.txt")
	fifo := problemInput(t, problem, "fifo.txt", "fifo.txt")

	os.Remove(filepath.Join(problem, "data.txt"))
	if err := os.Symlink(secret, filepath.Join(problem, "data.txt")); err != nil {
		t.Fatal(err)
	}
	err := WriteFiles(root, []cases.InputFile{data})
	if err == nil || !strings.Contains(err.Error(), "input file data.txt") || !strings.Contains(err.Error(), "leads outside the problem directory") {
		t.Errorf("a link swapped in to lead out: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "data.txt")); strings.Contains(string(got), "root:x") {
		t.Error("the secret was copied into the workspace")
	}

	os.Remove(filepath.Join(problem, "fifo.txt"))
	if err := syscall.Mkfifo(filepath.Join(problem, "fifo.txt"), 0o644); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no FIFOs here:", err)
		}
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan error, 1)
	go func() { done <- WriteFiles(root, []cases.InputFile{fifo}) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("a FIFO swapped in: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("copying a FIFO blocked")
	}
}
