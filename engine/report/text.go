package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/result"
)

// PrintSummary writes the terminal summary `wasmeval report` shows: per
// checkpoint, one row per group, one per group type, then the checkpoint's
// totals and verdict; then, when cases have categories, a row per
// category (see PrintCategories).
func PrintSummary(w io.Writer, sums []*CheckpointSummary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CHECKPOINT\tGROUP\tTYPE\tPASSED\tERRORS\tRATE\tSCORE\t")
	for _, s := range sums {
		for _, name := range s.Groups {
			g := s.GroupOutcomes[name]
			note := ""
			if g.Error != "" {
				note = "error: " + g.Error
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%s\t%s\t%s\t%s\n", termCell(s.Name), termCell(name), g.Type, g.Passed, g.Counted(), countCell(g.Errors),
				Rate(g.Passed, g.Counted()), g.ScoreCell(), note)
		}
		for _, t := range problem.GroupTypes {
			if n := s.TotalCounts[t]; n > 0 {
				fmt.Fprintf(tw, "%s\t[%s]\t%s\t%d/%d\t%s\t%s\t\t\n", termCell(s.Name), t, t, s.PassCounts[t], n, countCell(s.ErrorCounts[t]), Rate(s.PassCounts[t], n))
			}
		}
		counted := s.Cases - s.CasesUnscored
		fmt.Fprintf(tw, "%s\t(all)\t%s\t%d/%d\t%s\t%s\t%s\t%s\n", termCell(s.Name), s.Policy, s.CasesPassed, counted, countCell(s.CasesErrored),
			Rate(s.CasesPassed, counted), s.ScoreCell(), s.VerdictLine())
	}
	tw.Flush()
	PrintCategories(w, sums)
	PrintTags(w, sums)
}

// MeanScore is the mean score of the group's judged (passed or failed)
// cases.
func (g *GroupOutcome) MeanScore() float64 {
	switch {
	case g.cases != nil && g.cases.judged > 0:
		return g.cases.sum / float64(g.cases.judged)
	case g.cases != nil:
		return 0
	case g.judged > 0:
		return g.sum / float64(g.judged)
	}
	// A group read back from a summary file: the scores of the cases that
	// did not end in an error.
	errored := map[string]bool{}
	for _, id := range g.Errored {
		errored[id] = true
	}
	sum, n := 0.0, 0
	for id, sc := range g.Results {
		if !errored[id] {
			sum += sc
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// Counted is how many of the group's cases count toward rates: all but
// the unscored.
func (g *GroupOutcome) Counted() int { return g.Total - g.Unscored }

// VerdictLine says the checkpoint's verdict and what stands behind it:
// errors (by kind), unscored and timed-out cases, and failures in group
// types the pass policy does not count.
func (s *CheckpointSummary) VerdictLine() string {
	v := strings.ToUpper(string(s.verdict()))
	var notes []string
	if s.CasesErrored > 0 {
		n := fmt.Sprintf("errors: %d", s.CasesErrored)
		var kinds []string
		for _, k := range slices.Sorted(maps.Keys(s.ErrorKinds)) {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, s.ErrorKinds[k]))
		}
		if len(kinds) > 0 {
			n += " (" + strings.Join(kinds, ", ") + ")"
		}
		notes = append(notes, n)
	}
	if s.CasesUnscored > 0 {
		notes = append(notes, fmt.Sprintf("unscored: %d", s.CasesUnscored))
	}
	if s.Retries > 0 {
		notes = append(notes, fmt.Sprintf("retries: %d", s.Retries))
	}
	if s.Epochs > 1 {
		n := fmt.Sprintf("epochs: %d (%s), flaky: %d", s.Epochs, s.Reducer, s.CasesFlaky)
		if s.EpochErrors > 0 {
			n += fmt.Sprintf(", errored epochs: %d (left out of their cases)", s.EpochErrors)
		}
		for _, k := range []int{1, s.Epochs} {
			if v, ok := s.PassAtK[strconv.Itoa(k)]; ok {
				n += fmt.Sprintf(", pass@%d %.2f", k, v)
			}
		}
		notes = append(notes, n)
	}
	if s.TimedOut > 0 {
		notes = append(notes, fmt.Sprintf("timed out: %d", s.TimedOut))
	}
	for _, t := range problem.GroupTypes {
		total := s.TotalCounts[t]
		if s.Policy.Counted(t) || total-s.PassCounts[t]-s.ErrorCounts[t] == 0 {
			continue
		}
		notes = append(notes, fmt.Sprintf("%s cases passed: %d of %d, not counted by %s", t, s.PassCounts[t], total, s.Policy))
	}
	if len(notes) > 0 {
		v += " — " + strings.Join(notes, "; ")
	}
	return v
}

// verdict is the summary's verdict; summaries written before verdicts
// were recorded have only passed and complete.
func (s *CheckpointSummary) verdict() result.Verdict {
	switch {
	case s.Verdict != "":
		return s.Verdict
	case s.Passed:
		return result.VerdictPassed
	case !s.Complete:
		return result.VerdictIncomplete
	}
	return result.VerdictFailed
}

// Rate formats passed/total as a percentage.
func Rate(passed, total int) string {
	if total == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(passed)/float64(total))
}
