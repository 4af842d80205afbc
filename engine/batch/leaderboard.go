package batch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/manifest"
	"github.com/wasmeval/wasmeval/engine/report/rundir"
	"github.com/wasmeval/wasmeval/engine/result"
)

// Pair statuses. A pair's run directory says most of them (its manifest's
// status); missing and refused are the batch's own.
const (
	// PairPending: not started yet.
	PairPending = "pending"
	// PairMissing: the submission has no directory for the problem. It is
	// not run and counts as neither pass nor fail.
	PairMissing = "missing"
	// PairRefused: `run` refused the pair before any case ran (a bad
	// problem or submission); Error says why.
	PairRefused     = "refused"
	PairComplete    = manifest.StatusComplete
	PairInterrupted = manifest.StatusInterrupted
	PairFailed      = manifest.StatusFailed
	// PairRunning: the manifest still says running — the run is going
	// on, or it crashed; `batch --resume` resumes it.
	PairRunning = manifest.StatusRunning
)

// PairResult is one pair in batch.json and the leaderboard.
type PairResult struct {
	Submission string `json:"submission"`
	Problem    string `json:"problem"`
	// Dir is the pair's run directory, relative to the batch directory.
	Dir    string `json:"dir"`
	Status string `json:"status"`
	RunID  string `json:"run_id,omitempty"`
	Error  string `json:"error,omitempty"`
	// Verdict is the worst checkpoint verdict: passed only when every
	// checkpoint passed its policy.
	Verdict     result.Verdict     `json:"verdict,omitempty"`
	Checkpoints []CheckpointResult `json:"checkpoints,omitempty"`
	Counts
}

// Counts are case counts and scores, summed over checkpoints. Errored
// cases are the harness's failures, counted apart from failed ones; the
// pass rate is over every case, the mean score over judged cases (passed
// or failed), as a checkpoint summary's.
type Counts struct {
	Cases     int     `json:"cases"`
	Passed    int     `json:"passed"`
	Failed    int     `json:"failed"`
	Errored   int     `json:"errored"`
	Unscored  int     `json:"unscored"`
	PassRate  float64 `json:"pass_rate"`
	MeanScore float64 `json:"mean_score"`
	// scoreSum is the sum of judged cases' scores, for the mean.
	scoreSum float64
}

// CheckpointResult is one checkpoint of a pair, from its summary.
type CheckpointResult struct {
	Name    string         `json:"name"`
	Verdict result.Verdict `json:"verdict"`
	Counts
}

// Total is one submission over the batch.
type Total struct {
	Submission string `json:"submission"`
	// Problems counts the problems it was evaluated on (pairs not
	// missing), Missing those it has no directory for, ProblemsPassed
	// those whose every checkpoint passed.
	Problems       int `json:"problems"`
	Missing        int `json:"missing"`
	ProblemsPassed int `json:"problems_passed"`
	// Checkpoints and CheckpointsPassed count over its pairs.
	Checkpoints       int `json:"checkpoints"`
	CheckpointsPassed int `json:"checkpoints_passed"`
	Counts
}

func (c *Counts) add(o Counts) {
	c.Cases += o.Cases
	c.Passed += o.Passed
	c.Failed += o.Failed
	c.Errored += o.Errored
	c.Unscored += o.Unscored
	c.scoreSum += o.scoreSum
	c.finish()
}

func (c *Counts) finish() {
	c.PassRate, c.MeanScore = 0, 0
	if c.Cases > 0 {
		c.PassRate = float64(c.Passed) / float64(c.Cases)
	}
	if j := c.Passed + c.Failed; j > 0 {
		c.MeanScore = c.scoreSum / float64(j)
	}
}

// ReadPair reads a pair's results from its run directory under batchDir:
// the same summaries `wasmeval report` shows for it (rundir.Open, with the
// run's own policies). A pair whose directory holds no journal yet is
// pending.
func ReadPair(batchDir string, k PairKey) (PairResult, error) {
	pr := PairResult{Submission: k.Submission, Problem: k.Problem, Dir: k.RunDir(), Status: PairPending}
	if k.Missing {
		pr.Status = PairMissing
		return pr, nil
	}
	dir := filepath.Join(batchDir, pr.Dir)
	if _, err := os.Stat(filepath.Join(dir, journal.FileName)); errors.Is(err, fs.ErrNotExist) {
		if m, err := manifest.Read(dir); err == nil && m.Status == manifest.StatusFailed {
			pr.Status, pr.RunID = PairFailed, m.RunID
		}
		return pr, nil
	}
	r, err := rundir.Open(dir, "", "")
	if err != nil {
		return pr, fmt.Errorf("pair %s/%s: %w", k.Submission, k.Problem, err)
	}
	if r.Manifest != nil {
		pr.Status, pr.RunID = r.Manifest.Status, r.Manifest.RunID
	}
	pr.Verdict = result.VerdictPassed
	for _, s := range r.Summaries {
		c := CheckpointResult{Name: s.Name, Verdict: s.Verdict}
		c.Cases, c.Passed, c.Failed, c.Errored, c.Unscored = s.Cases, s.CasesPassed, s.CasesFailed, s.CasesErrored, s.CasesUnscored
		c.scoreSum = s.MeanScore * float64(s.CasesPassed+s.CasesFailed)
		c.finish()
		pr.Checkpoints = append(pr.Checkpoints, c)
		pr.Counts.add(c.Counts)
		pr.Verdict = worse(pr.Verdict, s.Verdict)
	}
	if len(r.Summaries) == 0 {
		pr.Verdict = result.VerdictIncomplete
	}
	return pr, nil
}

// verdictRank orders verdicts from best to worst for a pair's verdict.
var verdictRank = map[result.Verdict]int{
	result.VerdictPassed: 0, result.VerdictInconclusive: 1, result.VerdictIncomplete: 2, result.VerdictFailed: 3,
}

func worse(a, b result.Verdict) result.Verdict {
	if verdictRank[b] > verdictRank[a] {
		return b
	}
	return a
}

// Totals sums each submission's pairs, in plan order.
func Totals(plan *Plan, pairs []PairResult) []Total {
	idx := map[string]int{}
	out := make([]Total, len(plan.Submissions))
	for i, s := range plan.Submissions {
		idx[s.Name] = i
		out[i].Submission = s.Name
	}
	for _, p := range pairs {
		t := &out[idx[p.Submission]]
		if p.Status == PairMissing {
			t.Missing++
			continue
		}
		t.Problems++
		if p.Verdict == result.VerdictPassed && p.Status == PairComplete {
			t.ProblemsPassed++
		}
		for _, c := range p.Checkpoints {
			t.Checkpoints++
			if c.Verdict == result.VerdictPassed {
				t.CheckpointsPassed++
			}
		}
		t.Counts.add(p.Counts)
	}
	return out
}

// Collect reads every pair of the plan from its run directory.
func Collect(batchDir string, plan *Plan) ([]PairResult, error) {
	var out []PairResult
	for _, k := range plan.Pairs() {
		pr, err := ReadPair(batchDir, k)
		if err != nil {
			return nil, err
		}
		out = append(out, pr)
	}
	return out, nil
}
