package confine

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// A problem directory with links that stay inside and links that lead out
// (to a secret next to it, to /etc); only the inside ones are followed.
func TestTreeRefusesWhatLeavesTheProblem(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "problem")
	secret := filepath.Join(base, "secret.txt")
	write(t, secret, "top secret")
	write(t, filepath.Join(dir, "data", "a.txt"), "a")
	symlink(t, "data/a.txt", filepath.Join(dir, "alias.txt"))
	symlink(t, "data", filepath.Join(dir, "aliasdir"))
	symlink(t, secret, filepath.Join(dir, "leak.txt"))
	symlink(t, "../../secret.txt", filepath.Join(dir, "data", "climb.txt"))
	symlink(t, "/etc", filepath.Join(dir, "etc"))
	symlink(t, "nowhere", filepath.Join(dir, "dangling"))
	tree, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}

	for name, want := range map[string]string{"alias.txt": "a", "aliasdir/a.txt": "a", "data/a.txt": "a", filepath.Join(dir, "data/a.txt"): "a"} {
		if data, err := tree.ReadFile(name); err != nil || string(data) != want {
			t.Errorf("ReadFile(%q) = %q, %v; want %q", name, data, err, want)
		}
	}
	refused := map[string]string{
		"leak.txt":            "leads outside the problem directory through a symlink (to " + secret + "; a directory holding it can be allowed with --mount-root)",
		"data/climb.txt":      "leads outside the problem directory through a symlink",
		"etc/shadow":          "leads outside the problem directory through a symlink",
		"etc":                 "leads outside the problem directory through a symlink",
		"../secret.txt":       "is outside the problem directory",
		"../../../../etc":     "is outside the problem directory",
		"/etc/passwd":         "is outside the problem directory",
		"/var/run":            "is outside the problem directory",
		"dangling":            "broken symlink",
		"a\x00b":              "NUL",
		"":                    "empty path",
		"data/../../problemx": "is outside the problem directory",
	}
	for name, want := range refused {
		if _, err := tree.Resolve(name); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Resolve(%q) = %v, want an error containing %q", name, err, want)
		}
		if data, err := tree.ReadFile(name); err == nil {
			t.Errorf("ReadFile(%q) read %q", name, data)
		}
	}
	if _, err := tree.ReadDir("etc"); err == nil {
		t.Error("ReadDir followed a symlink to /etc")
	}
	if _, err := tree.Stat("leak.txt"); err == nil {
		t.Error("Stat followed a symlink out")
	}

	// A walk reads inside links and refuses one that leads out.
	files, err := tree.WalkFiles("aliasdir")
	if err == nil || !strings.Contains(err.Error(), "leads outside") {
		t.Errorf("walk over a tree with a link out: %v %v", files, err)
	}
	os.Remove(filepath.Join(dir, "data", "climb.txt"))
	symlink(t, "a.txt", filepath.Join(dir, "data", "b.txt"))
	files, err = tree.WalkFiles("aliasdir")
	if err != nil || len(files) != 2 || files[0].Path != "a.txt" || files[1].Path != "b.txt" || string(files[1].Content) != "a" {
		t.Errorf("walk: %+v %v", files, err)
	}
	symlink(t, "..", filepath.Join(dir, "data", "loop"))
	if _, err := tree.WalkFiles("data"); err == nil || !strings.Contains(err.Error(), "symlink to a directory") {
		t.Errorf("walk over a directory link: %v", err)
	}
}

// A directory the user allowed with a mount root may be named, by an
// absolute path or through a symlink; nothing else outside is.
func TestTreeMountRoots(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "problem")
	shared := filepath.Join(base, "shared")
	write(t, filepath.Join(shared, "big.csv"), "x,y\n")
	write(t, filepath.Join(base, "other", "o.txt"), "o")
	symlink(t, shared, filepath.Join(dir, "shared"))
	tree, err := New(dir, shared)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{filepath.Join(shared, "big.csv"), "shared/big.csv", "../shared/big.csv"} {
		if data, err := tree.ReadFile(name); err != nil || string(data) != "x,y\n" {
			t.Errorf("ReadFile(%q) = %q, %v", name, data, err)
		}
	}
	if _, err := tree.ReadFile(filepath.Join(base, "other", "o.txt")); err == nil || !strings.Contains(err.Error(), "every --mount-root") {
		t.Errorf("a path outside every root: %v", err)
	}
	if _, err := tree.ProblemOnly().ReadFile("shared/big.csv"); err == nil {
		t.Error("ProblemOnly followed a link into a mount root")
	}
	if _, err := New(dir, filepath.Join(base, "missing")); err == nil || !strings.Contains(err.Error(), "mount root") {
		t.Errorf("a missing mount root: %v", err)
	}
}

// Special files are never opened for reading: a FIFO would block the
// loader forever.
func TestTreeRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no FIFOs here:", err)
		}
		t.Skip("no FIFOs here:", err)
	}
	tree, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tree.ReadFile("fifo"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("ReadFile(fifo): %v", err)
	}
	if _, err := tree.ReadFileMax("fifo", 10); err == nil {
		t.Error("ReadFileMax(fifo) read")
	}
}

func TestInsideAny(t *testing.T) {
	base := t.TempDir()
	os.MkdirAll(filepath.Join(base, "a", "b"), 0o755)
	symlink(t, filepath.Join(base, "a"), filepath.Join(base, "link"))
	if !InsideAny(filepath.Join(base, "a", "b"), []string{filepath.Join(base, "link")}) {
		t.Error("a root given through a symlink")
	}
	if InsideAny(filepath.Join(base, "ab"), []string{filepath.Join(base, "a")}) {
		t.Error("a sibling sharing a prefix counted as inside")
	}
	if InsideAny("/etc", nil) {
		t.Error("no roots, yet inside")
	}
}

// Open hands out a file to stream under ReadFile's rules, judged when it
// is called: a file that became a symlink leading out since it was last
// looked at, or a FIFO, is refused.
func TestTreeOpen(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "problem")
	write(t, filepath.Join(base, "secret.txt"), "top secret")
	write(t, filepath.Join(dir, "data.txt"), "data")
	tree, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := tree.Open("data.txt")
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	n, _ := f.Read(buf)
	f.Close()
	if string(buf[:n]) != "data" {
		t.Errorf("Open read %q", buf[:n])
	}
	if _, err := tree.Stat("data.txt"); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "data.txt"))
	symlink(t, "../secret.txt", filepath.Join(dir, "data.txt"))
	if f, err := tree.Open("data.txt"); err == nil || !strings.Contains(err.Error(), "leads outside the problem directory") {
		if f != nil {
			f.Close()
		}
		t.Errorf("Open of a link swapped in to lead out: %v", err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err == nil {
		if _, err := tree.Open("fifo"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Open(fifo): %v", err)
		}
	}
}

// A file is read whole with one allocation the size of the file, not the
// doubling of io.ReadAll (which allocates about twice a large file).
func TestReadFileAllocatesTheFileOnce(t *testing.T) {
	dir := t.TempDir()
	const size = 8 << 20
	write(t, filepath.Join(dir, "big"), strings.Repeat("x", size))
	tree, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	data, err := tree.ReadFile("big")
	runtime.ReadMemStats(&after)
	if err != nil || len(data) != size {
		t.Fatalf("read %d bytes, %v", len(data), err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; float64(got) > 1.1*size {
		t.Errorf("reading %d bytes allocated %d (%.2f×)", size, got, float64(got)/size)
	}
	names, err := tree.WalkNames(".")
	if err != nil || len(names) != 1 || names[0] != "big" {
		t.Errorf("WalkNames: %v %v", names, err)
	}
}
