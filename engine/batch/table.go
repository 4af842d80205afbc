package batch

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/wasmeval/wasmeval/engine/result"
)

// PrintLeaderboard writes the terminal leaderboard: one row per submission,
// one column per problem and a total. A cell is the pair's pass rate (cases
// passed / cases), its mean score, one letter per checkpoint verdict (P
// passed, F failed, I inconclusive, ? incomplete) and its errored cases
// (E<n>), which are the harness's failures and counted apart from fails.
// A pair whose submission has no directory for the problem says missing.
func PrintLeaderboard(w io.Writer, plan *Plan, pairs []PairResult, totals []Total) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"submission"}
	for _, p := range plan.Problems {
		head = append(head, p.Name)
	}
	head = append(head, "total")
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	byKey := map[[2]string]PairResult{}
	for _, p := range pairs {
		byKey[[2]string{p.Submission, p.Problem}] = p
	}
	for i, s := range plan.Submissions {
		row := []string{s.Name}
		for _, p := range plan.Problems {
			row = append(row, pairCell(byKey[[2]string{s.Name, p.Name}]))
		}
		row = append(row, totalCell(totals[i]))
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
	fmt.Fprintln(w, "cell: pass rate, mean score, checkpoint verdicts (P passed, F failed, I inconclusive, ? incomplete), E<n> cases that ended in an error")
}

func pairCell(p PairResult) string {
	switch p.Status {
	case PairMissing, PairPending, PairRefused:
		return p.Status
	case "":
		return "-"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%3.0f%% %.2f ", 100*p.PassRate, p.MeanScore)
	for _, c := range p.Checkpoints {
		b.WriteString(verdictLetter(c.Verdict))
	}
	if p.Errored > 0 {
		fmt.Fprintf(&b, " E%d", p.Errored)
	}
	if p.Status != PairComplete {
		b.WriteString(" (" + p.Status + ")")
	}
	return b.String()
}

func totalCell(t Total) string {
	s := fmt.Sprintf("%3.0f%% %.2f %d/%d checkpoints", 100*t.PassRate, t.MeanScore, t.CheckpointsPassed, t.Checkpoints)
	if t.Errored > 0 {
		s += fmt.Sprintf(" E%d", t.Errored)
	}
	if t.Missing > 0 {
		s += fmt.Sprintf(", %d missing", t.Missing)
	}
	return s
}

func verdictLetter(v result.Verdict) string {
	switch v {
	case result.VerdictPassed:
		return "P"
	case result.VerdictFailed:
		return "F"
	case result.VerdictInconclusive:
		return "I"
	}
	return "?"
}
