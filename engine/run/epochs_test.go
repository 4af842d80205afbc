package run

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
)

// epochProblem: "flaky" answers wrong on its 2nd and 4th runs (a counter
// file outside the workspace says which run it is), "steady" always
// right, "wrong" always wrong, and "state" right only in a fresh
// workspace (it leaves a file behind and fails when it finds one).
func epochProblem(t *testing.T) (prob, sub, counters string) {
	t.Helper()
	sub, counters = t.TempDir(), t.TempDir()
	files := map[string]string{
		"config.yaml": `name: epochs
command: sh main.sh
env: {COUNTERS: ` + strconv.Quote(counters) + `}
checkpoints:
  c1:
    groups:
      core: {type: Core, isolated: false}
`,
		"c1/core.yaml": `flaky: {arguments: [flaky], expected: {output: "ok\n"}}
steady: {arguments: [steady], expected: {output: "ok\n"}}
wrong: {arguments: [wrong], expected: {output: "ok\n"}}
state: {arguments: [state], expected: {output: "ok\n"}}
`,
	}
	prob = writeFiles(t, files)
	// mkdir is atomic: epochs running side by side each take their own
	// run number.
	script := `n=1; while ! mkdir "$COUNTERS/$1.$n" 2>/dev/null; do n=$((n+1)); done
case $1 in
flaky) if [ $n = 2 ] || [ $n = 4 ]; then echo no; else echo ok; fi ;;
wrong) echo no ;;
state) if [ -e left-behind ]; then echo no; else touch left-behind; echo ok; fi ;;
*) echo ok ;;
esac
`
	if err := os.WriteFile(filepath.Join(sub, "main.sh"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	return prob, sub, counters
}

// epochRuns reads how many times each case of epochProblem ran.
func epochRuns(t *testing.T, counters string) map[string]int {
	t.Helper()
	entries, err := os.ReadDir(counters)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, e := range entries {
		id, _, _ := strings.Cut(e.Name(), ".")
		out[id]++
	}
	return out
}

// A deliberately flaky submission is caught by --epochs 5: the case is
// flaky, its pass@k follow the estimator, the reducer decides its
// outcome, each epoch runs in a fresh workspace, and a report rebuilt from
// the journal says the same.
func TestEpochsCatchAFlakyCase(t *testing.T) {
	prob, sub, counters := epochProblem(t)
	p, err := LoadProblem(prob)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	res, err := Run(context.Background(), Options{Problem: p, Submission: sub, OutDir: out, Jobs: 2,
		Runtime: local.New(local.Options{BaseDir: t.TempDir()}), Loader: BuiltinLoader, Epochs: 5, Reducer: result.ReduceMean})
	if err != nil {
		t.Fatal(err)
	}
	if n := epochRuns(t, counters); n["flaky"] != 5 || n["steady"] != 5 || n["state"] != 5 {
		t.Fatalf("runs: %v, want 5 of each", n)
	}
	outcomes, epochs := map[string][]string{}, map[string][]int{}
	if err := journal.Read(filepath.Join(out, journal.FileName), func(r *result.CaseRecord) error {
		outcomes[r.ID] = append(outcomes[r.ID], string(r.Outcome))
		epochs[r.ID] = append(epochs[r.ID], r.Epoch)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{
		"flaky": "failed failed passed passed passed", "steady": "passed passed passed passed passed",
		"wrong": "failed failed failed failed failed",
		// Each epoch starts from a fresh copy of the submission.
		"state": "passed passed passed passed passed",
	} {
		// Epochs of a group run side by side (--jobs 2): which epoch met
		// which run of the counter is not fixed, what they came to is.
		got := slices.Clone(outcomes[id])
		slices.Sort(got)
		e := slices.Sorted(slices.Values(epochs[id]))
		if strings.Join(got, " ") != want || !slices.Equal(e, []int{1, 2, 3, 4, 5}) {
			t.Errorf("%s: outcomes %v in epochs %v, want %s in 1…5", id, got, e, want)
		}
	}
	check := func(what string, s *report.CheckpointSummary) {
		t.Helper()
		g := s.GroupOutcomes["core"]
		if s.Epochs != 5 || s.Cases != 4 || s.CasesPassed != 2 || s.CasesFlaky != 1 || strings.Join(g.Flaky, ",") != "flaky" || g.Flakiness != 0.25 {
			t.Errorf("%s: %d epochs, %d of %d passed, flaky %d %v (%.2f)", what, s.Epochs, s.CasesPassed, s.Cases, s.CasesFlaky, g.Flaky, g.Flakiness)
		}
		// Per case pass@1 is c/n: (3/5 + 1 + 0 + 1) / 4.
		if got, want := s.PassAtK["1"], (0.6+1+0+1)/4; math.Abs(got-want) > 1e-12 {
			t.Errorf("%s: pass@1 %v, want %v", what, got, want)
		}
		// pass@2 of the flaky case: 1 − C(2,2)/C(5,2) = 0.9.
		if got, want := s.PassAtK["2"], (0.9+1+0+1)/4; math.Abs(got-want) > 1e-12 {
			t.Errorf("%s: pass@2 %v, want %v", what, got, want)
		}
		// pass^2 of the flaky case: C(3,2)/C(5,2) = 0.3.
		if got, want := s.PassHatK["2"], (0.3+1+0+1)/4; math.Abs(got-want) > 1e-12 {
			t.Errorf("%s: pass^2 %v, want %v", what, got, want)
		}
		if !strings.Contains(s.VerdictLine(), "epochs: 5 (mean), flaky: 1, pass@1 0.65") {
			t.Errorf("%s: verdict line %q", what, s.VerdictLine())
		}
	}
	check("run", res.Summaries[0])
	var md strings.Builder
	if err := report.WriteMarkdown(&md, out, report.RunInfo{Problem: "epochs"}, res.Summaries); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "**Flaky in c1** (epochs disagree): `core/flaky`") || !strings.Contains(md.String(), "flaky [epoch") {
		t.Errorf("the Markdown report does not list the flaky case and its epochs:\n%s", md.String())
	}
	sums, err := report.FromRun(out, nil, report.Judging{Policy: result.DefaultPolicy, Epochs: 5, Reducer: result.ReduceMean}, "")
	if err != nil {
		t.Fatal(err)
	}
	check("rebuilt", sums[0])
	// Under max, a case passes when one epoch did.
	sums, err = report.FromRun(out, nil, report.Judging{Policy: result.DefaultPolicy, Epochs: 5, Reducer: result.ReduceMax}, "")
	if err != nil {
		t.Fatal(err)
	}
	if s := sums[0]; s.CasesPassed != 3 {
		t.Errorf("under max: %d passed, want 3", s.CasesPassed)
	}
	// Resumed, a finished run with epochs runs nothing again and counts
	// the same.
	finished, err := LoadFinished(filepath.Join(out, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	again, err := Run(context.Background(), Options{Problem: p, Submission: sub, OutDir: out, Resume: finished,
		Runtime: local.New(local.Options{BaseDir: t.TempDir()}), Loader: BuiltinLoader, Epochs: 5, Reducer: result.ReduceMean})
	if err != nil {
		t.Fatal(err)
	}
	if n := epochRuns(t, counters); n["flaky"] != 5 || n["steady"] != 5 || n["wrong"] != 5 {
		t.Errorf("resumed: runs %v, want none more", n)
	}
	check("resumed", again.Summaries[0])
}
