package cases

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/cases/casetest"
	"github.com/wasmeval/wasmeval/engine/workspace/confine"
)

// A case directory with a 50 MB input file and a 50 MB expected output:
// loading the case reads the expected output once, into the string the
// case keeps, and does not read the input at all (it is named, to be
// copied when the case runs). It used to allocate about five times the
// expected output: both files read with io.ReadAll's growing buffer, the
// expected one converted to a string.
func TestLargeCaseFilesAreNotCopiedOnLoad(t *testing.T) {
	const size = 50 << 20
	dir := t.TempDir()
	casetest.WriteLargeText(t, filepath.Join(dir, "core", "big", "data.txt"), size)
	casetest.WriteLargeText(t, filepath.Join(dir, "core", "big", "expected_output"), size)
	if err := os.WriteFile(filepath.Join(dir, "core", "big", "case.yaml"), []byte("expected: {status_code: 0}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cs, err := loadAll(t, LoaderCaseDirs, groupIn(dir, "core"))
	runtime.ReadMemStats(&after)
	if err != nil || len(cs) != 1 {
		t.Fatalf("load: %v", err)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	ratio := float64(alloc) / size
	t.Logf("loading the case allocated %.1f MiB, %.2f× the expected output", float64(alloc)/(1<<20), ratio)
	if ratio > 1.1 {
		t.Errorf("loading allocated %.2f× the expected output, want at most 1.1× (it alone is held)", ratio)
	}
	c := cs[0]
	if out, ok := c.Expected["output"].(string); !ok || len(out) != size {
		t.Errorf("expected output: %T of %d bytes", c.Expected["output"], len(out))
	}
	if len(c.InputFiles) != 1 || c.InputFiles[0].From == nil || c.InputFiles[0].Content != nil || c.InputFiles[0].Size() != size {
		t.Errorf("the input is named, not held: %+v", c.InputFiles)
	}
}

// {{static:NAME}} is resolved in text input files of the problem up to
// StaticMaxBytes, which are read for it when the case is loaded; a larger
// file is copied as it is and never read to look for references.
func TestStaticReferencesInProblemInputFiles(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"g/a/case.yaml":  "{}\n",
		"g/a/small.txt":  "path={{static:cat}}\n",
		"g/a/plain.txt":  "no references\n",
		"g/a/binary.bin": "\xff{{static:cat}}",
	})
	big := "{{static:big}}" + strings.Repeat("x", StaticMaxBytes)
	if err := os.WriteFile(filepath.Join(dir, "g", "a", "large.txt"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	cs, err := loadAll(t, LoaderCaseDirs, groupIn(dir, "g"))
	if err != nil {
		t.Fatal(err)
	}
	c := cs[0]
	held := map[string]bool{}
	for _, f := range c.InputFiles {
		held[f.Path] = f.From == nil
	}
	if want := map[string]bool{"small.txt": true, "plain.txt": false, "binary.bin": false, "large.txt": false}; !reflect.DeepEqual(held, want) {
		t.Errorf("held in memory: %v, want %v", held, want)
	}
	if got := StaticNames(c); !reflect.DeepEqual(got, []string{"cat"}) {
		t.Errorf("names %v: the small file's, not the large one's", got)
	}
	if err := ResolveStatic(c, func(string) (string, bool) { return "/static/cat.csv", true }); err != nil {
		t.Fatal(err)
	}
	for _, f := range c.InputFiles {
		got := inputContent(t, f)
		switch f.Path {
		case "small.txt":
			if got != "path=/static/cat.csv\n" {
				t.Errorf("small.txt resolved to %q", got)
			}
		case "large.txt":
			if f.From == nil || got != big {
				t.Errorf("large.txt is copied as it is: From %v, %d bytes", f.From, len(got))
			}
		}
	}
}

// A problem file that is not a regular file, or that has gone, cannot be
// an input file; the error names it.
func TestFromProblemRefusesWhatCannotBeCopied(t *testing.T) {
	dir := writeTree(t, map[string]string{"d/f.txt": "x"})
	tree := groupTree(t, dir)
	if _, err := FromProblem(tree, "d", "d"); err == nil || !strings.Contains(err.Error(), "d is not a regular file") {
		t.Errorf("a directory: %v", err)
	}
	f, err := FromProblem(tree, "d/f.txt", "f.txt")
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "d", "f.txt"))
	if _, err := f.Open(); err == nil || !strings.Contains(err.Error(), "f.txt") {
		t.Errorf("a file gone since loading: %v", err)
	}
}

func groupTree(t *testing.T, dir string) *confine.Tree {
	t.Helper()
	tree, err := confine.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}
