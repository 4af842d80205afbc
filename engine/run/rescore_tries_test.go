package run

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
)

// A rescore of a run with retries rescores each case's last attempt: the
// attempts a retry replaced are neither rescored nor duplicates.
func TestRescoreTakesTheLastAttempt(t *testing.T) {
	prob, sub, _ := retryProblem(t, 1)
	from := t.TempDir()
	retryRun(t, prob, sub, from, 2, nil)
	p, err := LoadProblem(prob)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	res, err := Rescore(context.Background(), RescoreOptions{Problem: p, From: from, Loader: BuiltinLoader}, RescoreTarget{OutDir: out})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rescored != 3 || res.Duplicates != 0 || res.LeftOut != 0 || res.VerdictsChanged != 0 {
		t.Errorf("rescore: %+v", res)
	}
	if got, want := attemptsOf(t, out), "flaky:2:passed: steady:1:passed: wrong:1:failed:"; got != want {
		t.Errorf("rescored journal: %s, want %s", got, want)
	}
	if s := res.Summaries[0]; s.CasesPassed != 2 || s.CasesErrored != 0 || s.Verdict != result.VerdictPassed {
		t.Errorf("summary: %d passed, %d errors, %s", s.CasesPassed, s.CasesErrored, s.Verdict)
	}
}

// A rescore of a run with epochs rescores every epoch's records and
// reduces them as the run did.
func TestRescoreOfEpochs(t *testing.T) {
	prob, sub, _ := epochProblem(t)
	p, err := LoadProblem(prob)
	if err != nil {
		t.Fatal(err)
	}
	from := t.TempDir()
	run, err := Run(context.Background(), Options{Problem: p, Submission: sub, OutDir: from, Jobs: 2,
		Runtime: localRuntime(t), Loader: BuiltinLoader, Epochs: 5, Reducer: result.ReduceMean})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	res, err := Rescore(context.Background(), RescoreOptions{Problem: p, From: from, Loader: BuiltinLoader, Jobs: 2,
		Epochs: 5, Reducer: result.ReduceMean}, RescoreTarget{OutDir: out})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rescored != 20 || res.Duplicates != 0 || res.LeftOut != 0 || res.VerdictsChanged != 0 {
		t.Errorf("rescore: %+v", res)
	}
	a, b := run.Summaries[0], res.Summaries[0]
	if a.CasesPassed != b.CasesPassed || a.CasesFlaky != b.CasesFlaky || b.CasesFlaky != 1 || a.PassAtK["2"] != b.PassAtK["2"] || b.Epochs != 5 {
		t.Errorf("run: %d passed, %d flaky, pass@2 %v; rescore: %d passed, %d flaky, pass@2 %v (%d epochs)",
			a.CasesPassed, a.CasesFlaky, a.PassAtK["2"], b.CasesPassed, b.CasesFlaky, b.PassAtK["2"], b.Epochs)
	}
}

func localRuntime(t *testing.T) *local.Runtime {
	return local.New(local.Options{BaseDir: t.TempDir()})
}
