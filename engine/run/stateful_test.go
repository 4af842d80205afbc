package run

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
)

// counterLoader is a stateful loader: each case expects the previous case's
// actual output plus one, so expected values exist only once earlier cases
// have run. It stands for the loader plugins that use the same seam.
type counterLoader struct{}

func (counterLoader) Open(_ context.Context, g cases.GroupInput) (cases.Stream, error) {
	return &counterStream{g: g}, nil
}

type counterStream struct {
	g   cases.GroupInput
	n   int
	saw [][]string // history lengths and outputs seen, for the test
}

func (s *counterStream) NeedsHistory() bool { return true }
func (s *counterStream) Len() int           { return 3 }
func (s *counterStream) Close() error       { return nil }

func (s *counterStream) Next(_ context.Context, history []cases.Outcome) (*cases.Case, error) {
	if s.n == 3 {
		return nil, io.EOF
	}
	if len(history) != s.n {
		return nil, io.ErrUnexpectedEOF // the engine must hand over every earlier case
	}
	want := "1\n"
	if s.n > 0 {
		prev, _ := strconv.Atoi(history[s.n-1].Actual.Output[:len(history[s.n-1].Actual.Output)-1])
		want = strconv.Itoa(prev+1) + "\n"
	}
	s.n++
	return &cases.Case{
		ID: "step" + strconv.Itoa(s.n), Checkpoint: s.g.Checkpoint, Group: s.g.Group, GroupType: s.g.GroupType,
		Arguments: []string{}, Timeout: s.g.Timeout, Expected: map[string]any{"output": want},
	}, nil
}

// The loader seam hands each Next every earlier case with its actual
// result, so expected values can depend on earlier answers.
func TestStatefulLoaderSeesHistory(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("name: counter\ncommand: sh count.sh\ncheckpoints:\n  c1:\n    groups:\n      g: {type: Core, isolated: false}\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "c1", "g"), 0o755)
	sub := t.TempDir()
	// Prints 1, 2, 3 on successive runs (state kept in the shared workspace),
	// except that the third run prints 5: the loader's expectation (3) fails.
	os.WriteFile(filepath.Join(sub, "count.sh"), []byte("n=$(cat n 2>/dev/null || echo 0); n=$((n+1)); echo $n > n; [ $n = 3 ] && n=5; echo $n\n"), 0o644)
	p, err := LoadProblem(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	_, err = Run(context.Background(), Options{
		Problem: p, Submission: sub, OutDir: out, Runtime: local.New(local.Options{BaseDir: t.TempDir()}),
		Loader: func(string) (cases.Loader, bool) { return counterLoader{}, true },
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	journal.Read(filepath.Join(out, journal.FileName), func(r *result.CaseRecord) error {
		got = append(got, r.ID+"="+strconv.FormatBool(r.Passed))
		return nil
	})
	if len(got) != 3 || got[0] != "step1=true" || got[1] != "step2=true" || got[2] != "step3=false" {
		t.Fatalf("got %v", got)
	}
}
