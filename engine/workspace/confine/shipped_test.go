package confine

import (
	"path/filepath"
	"testing"
)

// Outside lists what was resolved under a mount root, as named, without
// what a listed directory holds, and nothing of the problem's own.
func TestOutsideListsWhatWasResolvedUnderAMountRoot(t *testing.T) {
	root := t.TempDir()
	prob, shared := filepath.Join(root, "p"), filepath.Join(root, "shared")
	write(t, filepath.Join(prob, "in.txt"), "in")
	write(t, filepath.Join(shared, "a.txt"), "a")
	write(t, filepath.Join(shared, "d", "b.txt"), "b")
	write(t, filepath.Join(shared, "never.txt"), "n")
	tree, err := New(prob, shared)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"in.txt", "../shared/a.txt", filepath.Join(shared, "d", "b.txt"), "../shared/d"} {
		if _, err := tree.Resolve(name); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if _, err := tree.Resolve("../shared/missing"); err == nil {
		t.Fatal("a missing file resolved")
	}
	got := tree.Outside()
	want := []string{filepath.Join(shared, "a.txt"), filepath.Join(shared, "d")}
	if len(got) != len(want) {
		t.Fatalf("Outside() = %+v, want %v", got, want)
	}
	for i, w := range want {
		if got[i].Path != w {
			t.Errorf("Outside()[%d] = %s, want %s", i, got[i].Path, w)
		}
	}
}

// A tree of a problem loaded first elsewhere leads the paths it names
// there — relative with "..", absolute — to their copies here, and
// refuses the paths of that machine nobody sent.
func TestNewShippedLeadsTheOriginsPathsToTheirCopies(t *testing.T) {
	here := t.TempDir()
	prob := filepath.Join(here, "problem-copy")
	write(t, filepath.Join(prob, "config.yaml"), "x")
	fileCopy := filepath.Join(here, "files", "blob.bin")
	write(t, fileCopy, "blob")
	dirCopy := filepath.Join(here, "dirs", "tree")
	write(t, filepath.Join(dirCopy, "inner", "x.bin"), "inner")
	tree, err := NewShipped(prob, &Shipped{Origin: "/origin/work/prob", Copies: []Copy{
		{From: "/origin/shared/blob.bin", To: fileCopy},
		{From: "/origin/shared/tree", To: dirCopy},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"config.yaml":                       "x",
		"../../shared/blob.bin":             "blob",
		"/origin/shared/blob.bin":           "blob",
		"../shared/tree/inner/x.bin":        "", // /origin/work/shared: not a copy
		"../../shared/tree/inner/x.bin":     "inner",
		"/origin/shared/tree/inner/x.bin":   "inner",
		"/origin/work/prob/config.yaml":     "x",
		"/origin/shared/unsent.txt":         "",
		filepath.Join(fileCopy):             "blob", // a path of here, already the copy
		filepath.Join(dirCopy, "inner/..."): "",
	} {
		data, err := tree.ReadFile(name)
		switch {
		case want == "" && err == nil:
			t.Errorf("%s: read %q, want it refused", name, data)
		case want != "" && (err != nil || string(data) != want):
			t.Errorf("%s: read %q (%v), want %q", name, data, err, want)
		}
	}
	if got := tree.Abs("../../shared/tree/inner"); got != filepath.Join(dirCopy, "inner") {
		t.Errorf("Abs = %s, want the copy %s", got, filepath.Join(dirCopy, "inner"))
	}
	if _, err := NewShipped(prob, &Shipped{Origin: "relative/prob"}); err == nil {
		t.Error("a relative origin was accepted")
	}
}
