package run

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/run/runtest"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
)

// chainLoader is stateful: case n's argument (and expected output) is the
// previous case's actual output plus one, so it can only produce case n
// when it is handed the results of every earlier case.
type chainLoader struct{ n int }

func (l chainLoader) Open(_ context.Context, g cases.GroupInput) (cases.Stream, error) {
	return &chainStream{g: g, total: l.n}, nil
}

type chainStream struct {
	g        cases.GroupInput
	i, total int
}

func (s *chainStream) NeedsHistory() bool { return true }
func (s *chainStream) Len() int           { return s.total }
func (s *chainStream) Close() error       { return nil }

func (s *chainStream) Next(_ context.Context, history []cases.Outcome) (*cases.Case, error) {
	if s.i == s.total {
		return nil, io.EOF
	}
	if len(history) != s.i {
		return nil, io.ErrUnexpectedEOF
	}
	next := 1
	if s.i > 0 {
		prev, err := strconv.Atoi(strings.TrimSpace(history[s.i-1].Actual.Output))
		if err != nil {
			return nil, err
		}
		next = prev + 1
	}
	s.i++
	v := strconv.Itoa(next)
	return &cases.Case{ID: "step" + strconv.Itoa(s.i), Checkpoint: s.g.Checkpoint, Group: s.g.Group, GroupType: s.g.GroupType,
		Arguments: []string{v}, Timeout: s.g.Timeout, Expected: map[string]any{"output": v + "\n"}}, nil
}

// An interrupted run resumed from its journal runs only the unfinished
// cases, and a stateful loader gets the journal's results for the finished
// ones, so it produces the same remaining cases.
func TestResumeStatefulGroupFromJournal(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("name: chain\ncommand: sh echo.sh\ncheckpoints:\n  c1:\n    groups:\n      g: {type: Core}\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "c1", "g"), 0o755)
	log := filepath.Join(t.TempDir(), "invocations")
	sub := t.TempDir()
	os.WriteFile(filepath.Join(sub, "echo.sh"), []byte("echo \"$1\" >> "+log+"\necho \"$1\"\n"), 0o644)
	p, err := LoadProblem(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	opts := Options{Problem: p, Submission: sub, OutDir: out, Runtime: local.New(local.Options{BaseDir: t.TempDir()}),
		Loader: func(string) (cases.Loader, bool) { return chainLoader{n: 5}, true }}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := opts
	first.Progress = &runtest.CancelAfter{N: 2, Cancel: cancel}
	res, err := Run(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	jpath := filepath.Join(out, journal.FileName)
	if !res.Interrupted || len(runtest.JournalIDs(t, jpath)) != 2 {
		t.Fatalf("first run: interrupted=%v journal=%v", res.Interrupted, runtest.JournalIDs(t, jpath))
	}

	fin, err := LoadFinished(jpath)
	if err != nil || fin.Len() != 2 {
		t.Fatalf("finished: %v %v", fin.Len(), err)
	}
	second := opts
	second.Resume = fin
	res, err = Run(context.Background(), second)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(runtest.JournalIDs(t, jpath), ","); got != "step1=true,step2=true,step3=true,step4=true,step5=true" {
		t.Fatalf("journal after resume: %s", got)
	}
	s := res.Summaries[0]
	if res.Interrupted || !res.Passed || s.Cases != 5 || s.CasesPassed != 5 || !s.Complete {
		t.Fatalf("summary after resume: %+v", s)
	}
	// The isolated group's finished cases were not run again (case 3 may
	// have started before the interrupt reached it; it was not recorded).
	data, _ := os.ReadFile(log)
	got := strings.Join(strings.Fields(string(data)), " ")
	if !strings.HasPrefix(got, "1 2 3 ") || !strings.HasSuffix(got, " 3 4 5") || strings.Count(got, "1") != 1 || strings.Count(got, "2") != 1 {
		t.Fatalf("submission invocations: %v", got)
	}
}
