package run

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/run/runtest"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
)

// The reproduction as written: group g holds case a/b, group g/a holds
// case b. Both names are refused before anything runs — the group at its
// line in config.yaml, the case id at its line in the group file.
func TestPathLikeNamesAreRefusedBeforeARun(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	write("config.yaml", "name: keys\ncommand: sh echo.sh\ncheckpoints:\n  c1:\n    groups:\n      g: {type: Core}\n      g/a: {type: Core}\n")
	write("c1/g.yaml", "a/b: {arguments: [x], expected: {output: \"y\\n\"}}\n")
	write("c1/g/a/b/case.yaml", "arguments: [x]\nexpected: {output: \"x\\n\"}\n")
	_, err := LoadProblem(dir)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "config.yaml")+`:7: checkpoints.c1.groups.g/a: group name "g/a" contains a path separator`) {
		t.Fatalf("group g/a: %v", err)
	}

	// With the group renamed, the case id is what validation refuses.
	write("config.yaml", "name: keys\ncommand: sh echo.sh\ncheckpoints:\n  c1:\n    groups:\n      g: {type: Core}\n")
	os.RemoveAll(filepath.Join(dir, "c1", "g"))
	p, err := LoadProblem(dir)
	if err != nil {
		t.Fatal(err)
	}
	err = Validate(context.Background(), p, BuiltinLoader, nil)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "c1", "g.yaml")+`:1: a/b: case name "a/b" contains a path separator`) {
		t.Fatalf("case a/b: %v", err)
	}
}

// keyLoader yields, for each group, the cases the test names: it stands
// for any loader (a plugin, one added later) whose ids the engine does not
// choose.
type keyLoader map[string][]*cases.Case

func (l keyLoader) Open(_ context.Context, g cases.GroupInput) (cases.Stream, error) {
	var out []*cases.Case
	for _, c := range l[g.Group] {
		cc := *c
		cc.Checkpoint, cc.Group, cc.GroupType, cc.Timeout = g.Checkpoint, g.Group, g.GroupType, g.Timeout
		out = append(out, &cc)
	}
	return &sliceStream{cases: out}, nil
}

type sliceStream struct{ cases []*cases.Case }

func (s *sliceStream) Next(context.Context, []cases.Outcome) (*cases.Case, error) {
	if len(s.cases) == 0 {
		return nil, io.EOF
	}
	c := s.cases[0]
	s.cases = s.cases[1:]
	return c, nil
}
func (s *sliceStream) Len() int     { return -1 }
func (s *sliceStream) Close() error { return nil }

// Keys must tell cases apart whatever their names hold, not only because
// names are validated: a caller can build a problem in Go, and a loader
// yields ids the engine does not choose. Group g/a's case b passes, group
// g's case a/b fails; the run is interrupted after the first, then
// resumed. With keys joined by "/" both were c1/g/a/b, the resumed run
// took a/b for finished and a FAIL 1/2 became PASS 1/1 with exit 0.
func TestResumeTellsPathLikeKeysApart(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("name: keys\ncommand: sh echo.sh\ncheckpoints:\n  c1:\n    groups:\n      ga: {type: Core}\n      g: {type: Core}\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "c1"), 0o755)
	sub := t.TempDir()
	os.WriteFile(filepath.Join(sub, "echo.sh"), []byte("echo \"$1\"\n"), 0o644)
	p, err := LoadProblem(dir)
	if err != nil {
		t.Fatal(err)
	}
	p.Checkpoints[0].Groups[0].Name = "g/a" // past validation, as a Go caller may
	loader := keyLoader{
		"g/a": {{ID: "b", Arguments: []string{"hi"}, Expected: map[string]any{"output": "hi\n"}}},
		"g":   {{ID: "a/b", Arguments: []string{"hi"}, Expected: map[string]any{"output": "bye\n"}}},
	}
	out := t.TempDir()
	opts := Options{Problem: p, Submission: sub, OutDir: out, Policy: "all-cases",
		Runtime: local.New(local.Options{BaseDir: t.TempDir()}),
		Loader:  func(string) (cases.Loader, bool) { return loader, true }}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := opts
	first.Progress = &runtest.CancelAfter{N: 1, Cancel: cancel}
	res, err := Run(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	jpath := filepath.Join(out, journal.FileName)
	if got := strings.Join(runtest.JournalIDs(t, jpath), ","); !res.Interrupted || got != "b=true" {
		t.Fatalf("first run: interrupted=%v journal=%s", res.Interrupted, got)
	}

	fin, err := LoadFinished(jpath)
	if err != nil {
		t.Fatal(err)
	}
	second := opts
	second.Resume = fin
	res, err = Run(context.Background(), second)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(runtest.JournalIDs(t, jpath), ","); got != "b=true,a/b=false" {
		t.Fatalf("journal after resume: %s", got)
	}
	s := res.Summaries[0]
	if res.Passed || s.Cases != 2 || s.CasesPassed != 1 || !s.Complete {
		t.Fatalf("after resume: passed=%v cases=%d passed=%d complete=%v; want FAIL 1/2", res.Passed, s.Cases, s.CasesPassed, s.Complete)
	}
}

// A group whose directory holds no case, or whose group file is an empty
// mapping, is an error before a run: it would otherwise count as nothing
// and let a lenient policy pass.
func TestEmptyGroupIsRefusedBeforeARun(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("name: empty\ncommand: sh echo.sh\ncheckpoints:\n  c1:\n    groups:\n      dirs: {type: Core}\n      file: {type: Core}\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "c1", "dirs", ".hidden"), 0o755)
	os.WriteFile(filepath.Join(dir, "c1", "file.yaml"), []byte("{}\n"), 0o644)
	p, err := LoadProblem(dir)
	if err != nil {
		t.Fatal(err)
	}
	err = Validate(context.Background(), p, BuiltinLoader, nil)
	if err == nil {
		t.Fatal("a problem whose groups have no cases validated")
	}
	for _, want := range []string{
		"config.yaml:6: checkpoints.c1.groups.dirs: group c1/dirs has no cases. Layouts tried:",
		"holds only .hidden/, none of them a case",
		"config.yaml:7: checkpoints.c1.groups.file: group c1/file has no cases: its group file",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
}
