package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/batch"
	"github.com/wasmeval/wasmeval/engine/manifest"
	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/result"
)

const batchExample = "../../examples/batch"

func readBatch(t *testing.T, dir string) *batch.File {
	t.Helper()
	f, err := batch.ReadFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func pairOf(t *testing.T, f *batch.File, sub, prob string) batch.PairResult {
	t.Helper()
	for _, p := range f.Pairs {
		if p.Submission == sub && p.Problem == prob {
			return p
		}
	}
	t.Fatalf("no pair %s/%s in batch.json", sub, prob)
	return batch.PairResult{}
}

// The leaderboard's numbers are each pair's own checkpoint summaries (the
// evaluation.json files `run` wrote), and the totals their sums.
func TestBatchExampleLeaderboardMatchesPairSummaries(t *testing.T) {
	out := filepath.Join(t.TempDir(), "batch")
	r := wasmeval(t, "batch", batchExample+"/problems/*", "--submissions", batchExample+"/submissions", "--out", out, "--jobs", "3")
	if r.code != 0 {
		t.Fatalf("batch: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	f := readBatch(t, out)
	if f.Status != batch.StatusComplete || len(f.Pairs) != 6 {
		t.Fatalf("batch.json: status %s, %d pairs; want complete, 6", f.Status, len(f.Pairs))
	}
	for _, p := range f.Pairs {
		if p.Status != batch.PairComplete {
			t.Fatalf("pair %s/%s: status %s, want complete", p.Submission, p.Problem, p.Status)
		}
		var cases, passed, failed, errored int
		for _, c := range p.Checkpoints {
			data, err := os.ReadFile(filepath.Join(out, p.Dir, c.Name, "evaluation.json"))
			if err != nil {
				t.Fatal(err)
			}
			var s report.CheckpointSummary
			if err := json.Unmarshal(data, &s); err != nil {
				t.Fatal(err)
			}
			if c.Cases != s.Cases || c.Passed != s.CasesPassed || c.Failed != s.CasesFailed || c.Errored != s.CasesErrored || c.Verdict != s.Verdict || c.MeanScore != s.MeanScore {
				t.Errorf("%s/%s %s: leaderboard %+v, summary cases %d passed %d failed %d errored %d verdict %s score %v",
					p.Submission, p.Problem, c.Name, c, s.Cases, s.CasesPassed, s.CasesFailed, s.CasesErrored, s.Verdict, s.MeanScore)
			}
			cases, passed, failed, errored = cases+s.Cases, passed+s.CasesPassed, failed+s.CasesFailed, errored+s.CasesErrored
		}
		if p.Cases != cases || p.Passed != passed || p.Failed != failed || p.Errored != errored {
			t.Errorf("%s/%s: pair counts %+v, summaries sum to %d/%d/%d/%d", p.Submission, p.Problem, p.Counts, cases, passed, failed, errored)
		}
	}
	// What the example is built to show.
	ref := pairOf(t, f, "reference", "wordcount")
	crash := pairOf(t, f, "crasher", "wordcount")
	broken := pairOf(t, f, "broken", "add")
	if ref.Verdict != result.VerdictPassed || ref.Passed != 4 {
		t.Errorf("reference/wordcount: %s, %d passed; want passed, 4", ref.Verdict, ref.Passed)
	}
	if crash.Verdict != result.VerdictFailed || crash.Failed != 3 || crash.Passed != 1 || crash.Errored != 0 {
		t.Errorf("crasher/wordcount: %s, %+v; want failed with 3 crashed cases failed, 1 passed, no errors", crash.Verdict, crash.Counts)
	}
	if broken.Verdict != result.VerdictFailed || broken.Failed == 0 {
		t.Errorf("broken/add: %s, %+v; want failed", broken.Verdict, broken.Counts)
	}
	for _, tot := range f.Totals {
		var want batch.Counts
		cps, cpPassed := 0, 0
		for _, p := range f.Pairs {
			if p.Submission == tot.Submission {
				want.Cases += p.Cases
				want.Passed += p.Passed
				want.Failed += p.Failed
				cps += len(p.Checkpoints)
				for _, c := range p.Checkpoints {
					if c.Verdict == result.VerdictPassed {
						cpPassed++
					}
				}
			}
		}
		if tot.Cases != want.Cases || tot.Passed != want.Passed || tot.Failed != want.Failed || tot.Checkpoints != cps || tot.CheckpointsPassed != cpPassed || tot.Problems != 2 {
			t.Errorf("total of %s: %+v; pairs sum to %+v, %d/%d checkpoints", tot.Submission, tot, want, cpPassed, cps)
		}
		if tot.Submission == "reference" && (tot.PassRate != 1 || tot.ProblemsPassed != 2) {
			t.Errorf("reference total: %+v, want every case and problem passed", tot)
		}
	}
	// The terminal table says the same.
	if !strings.Contains(r.stdout, "reference") || !strings.Contains(r.stdout, "3/3 checkpoints") {
		t.Errorf("leaderboard table:\n%s", r.stdout)
	}
	// Each pair is an ordinary run directory: report reads it.
	rep := wasmeval(t, "report", filepath.Join(out, "runs", "crasher", "wordcount"))
	if rep.code != 0 || !strings.Contains(rep.stdout, "FAILED") {
		t.Errorf("report of a pair: exit %d\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
	// A second batch in the same directory is refused.
	again := wasmeval(t, "batch", batchExample+"/problems/*", "--submissions", batchExample+"/submissions", "--out", out)
	if again.code != exitUsage || !strings.Contains(again.stderr, "--resume") {
		t.Errorf("second batch in the same directory: exit %d\n%s", again.code, again.stderr)
	}
}

// A submission without a directory for a problem is missing there: not
// run, not a fail, and said so.
func TestBatchMissingSubmission(t *testing.T) {
	subs := copyTree(t, batchExample+"/submissions")
	if err := os.RemoveAll(filepath.Join(subs, "crasher", "wordcount")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "batch")
	r := wasmeval(t, "batch", batchExample+"/problems/add", batchExample+"/problems/wordcount", "--submissions", subs, "--out", out)
	if r.code != 0 {
		t.Fatalf("batch: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	f := readBatch(t, out)
	p := pairOf(t, f, "crasher", "wordcount")
	if p.Status != batch.PairMissing || p.Cases != 0 || p.Failed != 0 || p.Verdict != "" {
		t.Errorf("crasher/wordcount: %+v; want missing, nothing counted", p)
	}
	if _, err := os.Stat(filepath.Join(out, p.Dir)); !os.IsNotExist(err) {
		t.Errorf("a missing pair has a run directory: %v", err)
	}
	for _, tot := range f.Totals {
		if tot.Submission == "crasher" && (tot.Missing != 1 || tot.Problems != 1 || tot.Failed != 0 || tot.PassRate != 1) {
			t.Errorf("crasher total: %+v; want 1 missing, 1 problem evaluated, every evaluated case passed", tot)
		}
	}
	line := ""
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, "crasher") {
			line = l
		}
	}
	if !strings.Contains(line, "missing") || !strings.Contains(line, "1 missing") {
		t.Errorf("leaderboard row of crasher does not say missing: %q\n%s", line, r.stdout)
	}
}

// slowBatch is a problem whose cases each take a moment and submissions
// that all answer it, so a batch can be killed in the middle.
func slowBatch(t *testing.T, subs int) (problems, submissions string) {
	t.Helper()
	files := map[string]string{
		"problems/slow/config.yaml": "name: slow\nversion: 1\nentry_file: echo\ncommand: python3 {entry_file}\nadapter: {type: cli}\ntimeout: 30\n" +
			"checkpoints:\n  c1:\n    groups:\n      g1: {type: Core}\n      g2: {type: Core}\n",
	}
	for _, g := range []string{"g1", "g2"} {
		var b strings.Builder
		for i := range 4 {
			fmt.Fprintf(&b, "case%d:\n  arguments: [%d]\n  expected: {status_code: 0, output: \"%d\\n\"}\n", i, i, i)
		}
		files["problems/slow/c1/"+g+".yaml"] = b.String()
	}
	for i := range subs {
		files[fmt.Sprintf("subs/s%d/slow/echo.py", i)] = "import sys, time\ntime.sleep(0.15)\nprint(sys.argv[1])\n"
	}
	root := writeTree(t, files)
	return filepath.Join(root, "problems"), filepath.Join(root, "subs")
}

// A batch killed in the middle (SIGKILL: nothing is flushed or recorded on
// the way out) resumes: finished pairs are kept as they were, interrupted
// ones continue from their journals, and every case of every pair is in
// its journal exactly once.
func TestBatchResumeAfterKill(t *testing.T) {
	problems, subs := slowBatch(t, 4)
	out := filepath.Join(t.TempDir(), "batch")
	cmd := exec.Command(binary, "batch", problems+"/*", "--submissions", subs, "--out", out, "--jobs", "1", "--progress-every", "0")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it once one pair is complete and another has some but not
	// all of its cases.
	deadline := time.Now().Add(2 * time.Minute)
	var keptID string
	var keptInfo os.FileInfo
	for {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the batch never reached the middle")
		}
		done, partial := "", false
		for i := range 4 {
			dir := filepath.Join(out, "runs", fmt.Sprintf("s%d", i), "slow")
			if m, err := manifest.Read(dir); err == nil && m.Status == manifest.StatusComplete {
				done = dir
			} else if recs := countLines(filepath.Join(dir, "results.jsonl")); recs > 0 && recs < 8 {
				partial = true
			}
		}
		if done != "" && partial {
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			m, _ := manifest.Read(done)
			keptID = m.RunID
			keptInfo, _ = os.Stat(filepath.Join(done, "results.jsonl"))
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	r := wasmeval(t, "batch", "--resume", out, "--progress-every", "0")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	f := readBatch(t, out)
	if f.Status != batch.StatusComplete {
		t.Errorf("batch status %s after resume", f.Status)
	}
	resumed := 0
	for _, p := range f.Pairs {
		dir := filepath.Join(out, p.Dir)
		recs := readJournal(t, dir)
		seen := map[string]int{}
		for _, rec := range recs {
			seen[rec.Key()]++
		}
		if len(recs) != 8 || len(seen) != 8 {
			t.Errorf("%s: %d records of %d cases, want each of 8 cases once", p.Dir, len(recs), len(seen))
		}
		if p.Status != batch.PairComplete || p.Passed != 8 {
			t.Errorf("%s: %s, %d passed; want complete, 8", p.Dir, p.Status, p.Passed)
		}
		m, err := manifest.Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		if m.RunID == keptID {
			// The pair finished before the kill was not run again.
			if len(m.Resumes) != 0 {
				t.Errorf("%s: finished before the kill, yet resumed", p.Dir)
			}
			if st, _ := os.Stat(filepath.Join(dir, "results.jsonl")); !st.ModTime().Equal(keptInfo.ModTime()) || st.Size() != keptInfo.Size() {
				t.Errorf("%s: finished before the kill, yet its journal changed", p.Dir)
			}
		}
		resumed += len(m.Resumes)
	}
	if resumed == 0 {
		t.Error("no pair was resumed: the interrupted pair started over")
	}
}

func countLines(path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return strings.Count(string(data), "\n")
}

// --seed reaches every submission as $WASMEVAL_SEED and is recorded in
// batch.json and in each pair's manifest; run --seed alone does the same.
func TestBatchSeedReachesSubmissions(t *testing.T) {
	root := writeTree(t, map[string]string{
		"problems/seeded/config.yaml": "name: seeded\nversion: 1\nentry_file: seed\ncommand: python3 {entry_file}\nadapter: {type: cli}\ntimeout: 30\n" +
			"checkpoints:\n  c1:\n    groups:\n      g1: {type: Core}\n",
		"problems/seeded/c1/g1.yaml": "says_seed:\n  arguments: []\n  expected: {output: \"41\\n\"}\n",
		"subs/a/seeded/seed.py":      "import os\nprint(os.environ.get('WASMEVAL_SEED', 'none'))\n",
		"subs/b/seeded/seed.py":      "import os\nprint(os.environ.get('WASMEVAL_SEED', 'none'))\n",
	})
	out := filepath.Join(t.TempDir(), "batch")
	r := wasmeval(t, "batch", filepath.Join(root, "problems", "seeded"), "--submissions", filepath.Join(root, "subs"), "--out", out, "--seed", "41")
	if r.code != 0 {
		t.Fatalf("batch: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	f := readBatch(t, out)
	if f.Seed == nil || *f.Seed != 41 {
		t.Errorf("batch.json seed %v, want 41", f.Seed)
	}
	for _, p := range f.Pairs {
		if p.Passed != 1 {
			t.Errorf("%s: the submission did not print the seed: %+v", p.Dir, p.Counts)
		}
		m, err := manifest.Read(filepath.Join(out, p.Dir))
		if err != nil {
			t.Fatal(err)
		}
		if m.Flags.Seed == nil || *m.Flags.Seed != 41 {
			t.Errorf("%s: manifest seed %v, want 41", p.Dir, m.Flags.Seed)
		}
	}
	if r := wasmeval(t, "batch", "--resume", out, "--seed", "5"); r.code != exitUsage || !strings.Contains(r.stderr, "seed") {
		t.Errorf("resume with another seed: exit %d\n%s", r.code, r.stderr)
	}
	// Without a seed the variable is not set: the case fails.
	run := wasmeval(t, "run", filepath.Join(root, "problems", "seeded"), "--submission", filepath.Join(root, "subs", "a", "seeded"), "--out", filepath.Join(t.TempDir(), "run"))
	if run.code != exitFail {
		t.Errorf("run without --seed: exit %d, want %d (no $WASMEVAL_SEED)\n%s", run.code, exitFail, run.stdout)
	}
}

// With --workers, every pair runs distributed (run --workers: an embedded
// NATS server and a local worker process): the leaderboard is the same as
// a batch run in process, and each pair's manifest names its workers.
func TestBatchDistributedPairs(t *testing.T) {
	root := t.TempDir()
	local, dist := filepath.Join(root, "local"), filepath.Join(root, "dist")
	for _, c := range []struct {
		out   string
		extra []string
	}{{local, nil}, {dist, []string{"--workers", "1"}}} {
		args := append([]string{"batch", batchExample + "/problems/*", "--submissions", batchExample + "/submissions", "--out", c.out, "--jobs", "2"}, c.extra...)
		if r := wasmeval(t, args...); r.code != 0 {
			t.Fatalf("batch %v: exit %d\n%s\n%s", c.extra, r.code, r.stdout, r.stderr)
		}
	}
	a, b := readBatch(t, local), readBatch(t, dist)
	for i := range a.Pairs {
		pa, pb := a.Pairs[i], b.Pairs[i]
		if pa.Verdict != pb.Verdict || pa.Counts != pb.Counts {
			t.Errorf("%s: in process %s %+v, distributed %s %+v", pa.Dir, pa.Verdict, pa.Counts, pb.Verdict, pb.Counts)
		}
		data, err := os.ReadFile(filepath.Join(dist, pb.Dir, "manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), `"workers"`) {
			t.Errorf("%s: the manifest names no workers: the pair did not run distributed", pb.Dir)
		}
	}
}

// A pair that run refuses (here a submission without its entry file) is
// reported as refused with run's reason; the other pairs still run, and the
// batch exits 1.
func TestBatchRefusedPair(t *testing.T) {
	subs := copyTree(t, batchExample+"/submissions")
	if err := os.Remove(filepath.Join(subs, "broken", "add", "add.py")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(subs, "broken", "add", "notes.txt"), []byte("no program here"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "batch")
	r := wasmeval(t, "batch", batchExample+"/problems/*", "--submissions", subs, "--out", out, "--jobs", "2")
	if r.code != exitFail || !strings.Contains(r.stderr, "1 pair(s) refused") {
		t.Fatalf("batch: exit %d, want %d\n%s\n%s", r.code, exitFail, r.stdout, r.stderr)
	}
	f := readBatch(t, out)
	p := pairOf(t, f, "broken", "add")
	if p.Status != batch.PairRefused || !strings.Contains(p.Error, "add") || p.Cases != 0 {
		t.Errorf("broken/add: %+v; want refused with run's reason", p)
	}
	if !strings.Contains(r.stdout, "refused: broken/add: ") {
		t.Errorf("the refusal is not printed:\n%s", r.stdout)
	}
	for _, q := range f.Pairs {
		if q.Dir != p.Dir && q.Status != batch.PairComplete {
			t.Errorf("%s: %s; the other pairs must still run", q.Dir, q.Status)
		}
	}
}
