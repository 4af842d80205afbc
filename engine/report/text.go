package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/wasmeval/wasmeval/engine/problem"
)

// PrintSummary writes the terminal summary `wasmeval report` shows: per
// checkpoint, one row per group, one per group type, then the checkpoint's
// totals and verdict.
func PrintSummary(w io.Writer, sums []*CheckpointSummary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CHECKPOINT\tGROUP\tTYPE\tPASSED\tRATE\tSCORE\t")
	for _, s := range sums {
		for _, name := range s.Groups {
			g := s.GroupOutcomes[name]
			note := ""
			if g.Error != "" {
				note = "error: " + g.Error
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%s\t%.2f\t%s\n", s.Name, name, g.Type, g.Passed, g.Total, Rate(g.Passed, g.Total), g.MeanScore(), note)
		}
		for _, t := range problem.GroupTypes {
			if n := s.TotalCounts[t]; n > 0 {
				fmt.Fprintf(tw, "%s\t[%s]\t%s\t%d/%d\t%s\t\t\n", s.Name, t, t, s.PassCounts[t], n, Rate(s.PassCounts[t], n))
			}
		}
		fmt.Fprintf(tw, "%s\t(all)\t%s\t%d/%d\t%s\t%.2f\t%s\n", s.Name, s.Policy, s.CasesPassed, s.Cases, Rate(s.CasesPassed, s.Cases), s.MeanScore, s.Verdict())
	}
	tw.Flush()
}

// MeanScore is the group's mean case score.
func (g *GroupOutcome) MeanScore() float64 {
	if g.Total == 0 {
		return 0
	}
	if g.cases != nil {
		return g.cases.sum / float64(g.Total)
	}
	sum := 0.0
	for _, sc := range g.Results {
		sum += sc
	}
	return sum / float64(g.Total)
}

// Verdict says PASS or FAIL and why a checkpoint is not final.
func (s *CheckpointSummary) Verdict() string {
	v := "FAIL"
	if s.Passed {
		v = "PASS"
	}
	if !s.Complete {
		v += " (incomplete)"
	}
	if s.AdapterErrors > 0 {
		v += fmt.Sprintf(" adapter errors: %d", s.AdapterErrors)
	}
	if s.PluginErrors > 0 {
		v += fmt.Sprintf(" plugin errors: %d", s.PluginErrors)
	}
	if s.TimedOut > 0 {
		v += fmt.Sprintf(" timed out: %d", s.TimedOut)
	}
	return v
}

// Rate formats passed/total as a percentage.
func Rate(passed, total int) string {
	if total == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(passed)/float64(total))
}
