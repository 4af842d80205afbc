package batch

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Change kinds of a pair between two batches.
const (
	ChangeRegressed = "regressed" // its verdict got worse
	ChangeFixed     = "fixed"     // its verdict got better
	ChangeChanged   = "changed"   // same verdict, other counts or score
	ChangeAdded     = "added"     // only in the new batch (or missing before)
	ChangeRemoved   = "removed"   // only in the baseline (or missing now)
)

// PairChange is one pair whose results differ between two batches.
type PairChange struct {
	Submission string   `json:"submission"`
	Problem    string   `json:"problem"`
	Kind       string   `json:"kind"`
	Details    []string `json:"details"`
}

// Compare lists the pairs whose results differ between cur and base (two
// batch.json files), regressions first; pairs alike in both are left out.
// Pairs are matched by submission and problem name. Details say what
// changed: status, verdict, each checkpoint's verdict, pass rate, mean
// score, errors.
func Compare(cur, base *File) []PairChange {
	old := map[[2]string]PairResult{}
	for _, p := range base.Pairs {
		old[[2]string{p.Submission, p.Problem}] = p
	}
	seen := map[[2]string]bool{}
	var out []PairChange
	for _, p := range cur.Pairs {
		k := [2]string{p.Submission, p.Problem}
		seen[k] = true
		o, ok := old[k]
		if !ok || o.Status == PairMissing {
			if p.Status != PairMissing {
				out = append(out, PairChange{p.Submission, p.Problem, ChangeAdded, []string{describe(p)}})
			}
			continue
		}
		if p.Status == PairMissing {
			out = append(out, PairChange{p.Submission, p.Problem, ChangeRemoved, []string{"missing now; was " + describe(o)}})
			continue
		}
		if c, changed := diffPair(o, p); changed {
			out = append(out, c)
		}
	}
	for _, o := range base.Pairs {
		if k := [2]string{o.Submission, o.Problem}; !seen[k] && o.Status != PairMissing {
			out = append(out, PairChange{o.Submission, o.Problem, ChangeRemoved, []string{"not in this batch; was " + describe(o)}})
		}
	}
	order := map[string]int{ChangeRegressed: 0, ChangeFixed: 1, ChangeChanged: 2, ChangeAdded: 3, ChangeRemoved: 4}
	sort.SliceStable(out, func(i, j int) bool {
		if order[out[i].Kind] != order[out[j].Kind] {
			return order[out[i].Kind] < order[out[j].Kind]
		}
		if out[i].Submission != out[j].Submission {
			return out[i].Submission < out[j].Submission
		}
		return out[i].Problem < out[j].Problem
	})
	return out
}

func describe(p PairResult) string {
	if p.Status == PairMissing || p.Status == PairPending || p.Status == PairRefused {
		return p.Status
	}
	return fmt.Sprintf("%s, %d/%d cases passed, score %.2f", p.Verdict, p.Passed, p.Cases, p.MeanScore)
}

func diffPair(o, p PairResult) (PairChange, bool) {
	c := PairChange{Submission: p.Submission, Problem: p.Problem, Kind: ChangeChanged}
	if o.Status != p.Status {
		c.Details = append(c.Details, fmt.Sprintf("status %s → %s", o.Status, p.Status))
	}
	if o.Verdict != p.Verdict {
		c.Details = append(c.Details, fmt.Sprintf("verdict %s → %s", o.Verdict, p.Verdict))
		if verdictRank[p.Verdict] > verdictRank[o.Verdict] {
			c.Kind = ChangeRegressed
		} else {
			c.Kind = ChangeFixed
		}
	}
	ocp := map[string]CheckpointResult{}
	for _, x := range o.Checkpoints {
		ocp[x.Name] = x
	}
	for _, x := range p.Checkpoints {
		if y, ok := ocp[x.Name]; !ok {
			c.Details = append(c.Details, fmt.Sprintf("%s new: %s", x.Name, x.Verdict))
		} else if y.Verdict != x.Verdict {
			c.Details = append(c.Details, fmt.Sprintf("%s %s → %s", x.Name, y.Verdict, x.Verdict))
		}
		delete(ocp, x.Name)
	}
	for name := range ocp {
		c.Details = append(c.Details, fmt.Sprintf("%s not run now", name))
	}
	if o.Passed != p.Passed || o.Cases != p.Cases {
		c.Details = append(c.Details, fmt.Sprintf("passed %d/%d → %d/%d", o.Passed, o.Cases, p.Passed, p.Cases))
		if c.Kind == ChangeChanged && o.Cases == p.Cases {
			if p.Passed < o.Passed {
				c.Kind = ChangeRegressed
			} else {
				c.Kind = ChangeFixed
			}
		}
	}
	if fmt.Sprintf("%.4f", o.MeanScore) != fmt.Sprintf("%.4f", p.MeanScore) {
		c.Details = append(c.Details, fmt.Sprintf("score %.4f → %.4f", o.MeanScore, p.MeanScore))
	}
	if o.Errored != p.Errored {
		c.Details = append(c.Details, fmt.Sprintf("errors %d → %d", o.Errored, p.Errored))
	}
	return c, len(c.Details) > 0
}

// Regressions counts the regressed pairs.
func Regressions(cs []PairChange) int {
	n := 0
	for _, c := range cs {
		if c.Kind == ChangeRegressed {
			n++
		}
	}
	return n
}

// PrintCompare writes the changes as text, one pair a line.
func PrintCompare(w io.Writer, cur, base string, cs []PairChange) {
	fmt.Fprintf(w, "batch %s against %s\n", cur, base)
	if len(cs) == 0 {
		fmt.Fprintln(w, "no pair's results changed")
		return
	}
	counts := map[string]int{}
	for _, c := range cs {
		counts[c.Kind]++
		fmt.Fprintf(w, "%-10s %s/%s: %s\n", strings.ToUpper(c.Kind), c.Submission, c.Problem, strings.Join(c.Details, "; "))
	}
	var parts []string
	for _, k := range []string{ChangeRegressed, ChangeFixed, ChangeChanged, ChangeAdded, ChangeRemoved} {
		if counts[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
		}
	}
	fmt.Fprintf(w, "%s; `wasmeval report --compare` on two pairs' run directories lists their cases\n", strings.Join(parts, ", "))
}
