package report

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// PrintTable writes the end-of-run summary: one row per group, then the
// checkpoint's totals and policy verdict.
func PrintTable(w io.Writer, sums []*CheckpointSummary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CHECKPOINT\tGROUP\tTYPE\tPASSED\tERRORS\tSCORE\t")
	for _, s := range sums {
		for _, name := range s.Groups {
			g := s.GroupOutcomes[name]
			mean := g.MeanScore()
			note := ""
			if g.Error != "" {
				note = "  error: " + g.Error
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%s\t%.2f\t%s\n", s.Name, name, g.Type, g.Passed, g.Counted(), countCell(g.Errors), mean, note)
		}
		fmt.Fprintf(tw, "%s\t(all)\t%s\t%d/%d\t%s\t%.2f\t%s\n", s.Name, s.Policy, s.CasesPassed, s.Cases-s.CasesUnscored,
			countCell(s.CasesErrored), s.MeanScore, s.VerdictLine())
	}
	tw.Flush()
}

// countCell shows a count in a table, "-" for none.
func countCell(n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprint(n)
}
