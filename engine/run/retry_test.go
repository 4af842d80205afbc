package run

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
)

// retryProblem is a problem whose case "flaky" hangs past its timeout for
// its first `hang` runs — an error, since the problem counts timeouts as
// errors — and answers right after; "steady" always answers right and
// "wrong" always wrong. Each case counts its runs in a file of counters.
func retryProblem(t *testing.T, hang int) (prob, sub, counters string) {
	t.Helper()
	sub, counters = t.TempDir(), t.TempDir()
	files := map[string]string{
		"config.yaml": `name: retries
command: sh main.sh
timeout_outcome: error
env: {COUNTERS: ` + strconv.Quote(counters) + `, HANG: "` + strconv.Itoa(hang) + `"}
checkpoints:
  c1:
    groups:
      core: {type: Core, timeout: 5}
      extra: {type: Functionality}
`,
		"c1/core.yaml": `flaky: {arguments: [flaky], expected: {output: "ok\n"}}
steady: {arguments: [steady], expected: {output: "ok\n"}}
`,
		"c1/extra.yaml": `wrong: {arguments: [wrong], expected: {output: "ok\n"}}
`,
	}
	prob = writeFiles(t, files)
	script := `n=$(cat "$COUNTERS/$1" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$COUNTERS/$1"
if [ "$1" = flaky ] && [ $n -le $HANG ]; then exec sleep 600; fi
if [ "$1" = wrong ]; then echo no; exit 0; fi
echo ok
`
	if err := os.WriteFile(filepath.Join(sub, "main.sh"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	return prob, sub, counters
}

// runs reads how many times each case ran.
func runs(t *testing.T, counters string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, id := range []string{"flaky", "steady", "wrong"} {
		data, err := os.ReadFile(filepath.Join(counters, id))
		if err != nil {
			continue
		}
		n, _ := strconv.Atoi(strings.TrimSpace(string(data)))
		out[id] = n
	}
	return out
}

// attemptsOf lists each journal record as id:attempt:outcome, in order.
func attemptsOf(t *testing.T, out string) string {
	t.Helper()
	var got []string
	if err := journal.Read(filepath.Join(out, journal.FileName), func(r *result.CaseRecord) error {
		got = append(got, r.ID+":"+strconv.Itoa(r.Attempt)+":"+string(r.Outcome)+":"+string(r.ErrorKind))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return strings.Join(got, " ")
}

func retryRun(t *testing.T, prob, sub, out string, retries int, resume *Finished) *Outcome {
	t.Helper()
	p, err := LoadProblem(prob)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Options{
		Problem: p, Submission: sub, OutDir: out, Runtime: local.New(local.Options{BaseDir: t.TempDir()}),
		Loader: BuiltinLoader, RetryErrors: retries, RetryBackoff: time.Millisecond, Resume: resume,
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// An error is retried, and its next attempt counts; a wrong answer is
// never retried; every attempt stays in the journal, and a report rebuilt
// from the journal counts each case once, by its last attempt.
func TestErrorsAreRetriedAndFailuresAreNot(t *testing.T) {
	prob, sub, counters := retryProblem(t, 1)
	out := t.TempDir()
	res := retryRun(t, prob, sub, out, 2, nil)
	if got, want := attemptsOf(t, out), "flaky:1:error:timeout flaky:2:passed: steady:1:passed: wrong:1:failed:"; got != want {
		t.Errorf("journal: %s, want %s", got, want)
	}
	if n := runs(t, counters); n["flaky"] != 2 || n["steady"] != 1 || n["wrong"] != 1 {
		t.Errorf("runs: %v (a wrong answer must not run again)", n)
	}
	s := res.Summaries[0]
	if s.Retries != 1 || !strings.Contains(s.VerdictLine(), "retries: 1") {
		t.Errorf("retries %d, verdict line %q", s.Retries, s.VerdictLine())
	}
	if s.CasesPassed != 2 || s.CasesFailed != 1 || s.CasesErrored != 0 || s.Cases != 3 || s.Verdict != result.VerdictPassed {
		t.Errorf("summary: %d passed, %d failed, %d errors of %d: %s", s.CasesPassed, s.CasesFailed, s.CasesErrored, s.Cases, s.Verdict)
	}
	sums, err := report.FromRun(out, nil, report.Judging{Policy: result.DefaultPolicy}, "")
	if err != nil {
		t.Fatal(err)
	}
	if r := sums[0]; r.CasesPassed != 2 || r.CasesFailed != 1 || r.Cases != 3 || r.DuplicatesIgnored != 0 {
		t.Errorf("rebuilt from the journal: %d passed, %d failed of %d (%d duplicates)", r.CasesPassed, r.CasesFailed, r.Cases, r.DuplicatesIgnored)
	}
	every := 0
	if _, err := report.ReadEveryAttempt(filepath.Join(out, journal.FileName), func(*result.CaseRecord) error { every++; return nil }); err != nil || every != 4 {
		t.Errorf("every attempt: %d records (%v), want 4", every, err)
	}
}

// Retries run out: the case stays an error with every attempt recorded,
// and its checkpoint, which it decides, is inconclusive.
func TestRetriesRunOut(t *testing.T) {
	prob, sub, counters := retryProblem(t, 99)
	out := t.TempDir()
	res := retryRun(t, prob, sub, out, 1, nil)
	if got, want := attemptsOf(t, out), "flaky:1:error:timeout flaky:2:error:timeout steady:1:passed: wrong:1:failed:"; got != want {
		t.Errorf("journal: %s, want %s", got, want)
	}
	if n := runs(t, counters); n["flaky"] != 2 {
		t.Errorf("runs: %v", n)
	}
	if s := res.Summaries[0]; s.CasesErrored != 1 || s.Verdict != result.VerdictInconclusive || res.Verdict != result.VerdictInconclusive {
		t.Errorf("summary: %d errors, verdict %s; run %s", s.CasesErrored, s.Verdict, res.Verdict)
	}
}

// A finished run's errored cases run again with --resume --retry-errors:
// only those, as their next attempt, and the verdict they decided
// follows.
func TestResumeRetriesOnlyTheErrors(t *testing.T) {
	prob, sub, counters := retryProblem(t, 1)
	out := t.TempDir()
	first := retryRun(t, prob, sub, out, 0, nil)
	if first.Verdict != result.VerdictInconclusive {
		t.Fatalf("first run: %s, want inconclusive (the errored Core case decides it)", first.Verdict)
	}
	finished, err := LoadFinished(filepath.Join(out, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	res := retryRun(t, prob, sub, out, 1, finished)
	if got, want := attemptsOf(t, out), "flaky:1:error:timeout steady:1:passed: wrong:1:failed: flaky:2:passed:"; got != want {
		t.Errorf("journal: %s, want %s", got, want)
	}
	if n := runs(t, counters); n["flaky"] != 2 || n["steady"] != 1 || n["wrong"] != 1 {
		t.Errorf("runs: %v (only the errored case runs again)", n)
	}
	s := res.Summaries[0]
	if s.Cases != 3 || s.CasesPassed != 2 || s.CasesErrored != 0 || s.Verdict != result.VerdictPassed || res.Verdict != result.VerdictPassed {
		t.Errorf("resumed: %d passed, %d errors of %d, verdict %s (run %s)", s.CasesPassed, s.CasesErrored, s.Cases, s.Verdict, res.Verdict)
	}
	// Resumed again without retries, the run is as it was: nothing runs.
	finished, err = LoadFinished(filepath.Join(out, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	again := retryRun(t, prob, sub, out, 0, finished)
	if n := runs(t, counters); n["flaky"] != 2 || again.Verdict != result.VerdictPassed {
		t.Errorf("resumed once more: runs %v, verdict %s", n, again.Verdict)
	}
}

func TestRetryWaitDoubles(t *testing.T) {
	for tries, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 10: MaxRetryBackoff} {
		if got := retryWait(0, tries); got != want {
			t.Errorf("after attempt %d: %s, want %s", tries, got, want)
		}
	}
}
