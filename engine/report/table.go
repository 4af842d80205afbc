package report

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// PrintTable writes the end-of-run summary: one row per group, then the
// checkpoint's totals and policy verdict; then, when cases have
// categories, a row per category.
func PrintTable(w io.Writer, sums []*CheckpointSummary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CHECKPOINT\tGROUP\tTYPE\tPASSED\tERRORS\tSCORE\t")
	for _, s := range sums {
		for _, name := range s.Groups {
			g := s.GroupOutcomes[name]
			note := ""
			if g.Error != "" {
				note = "  error: " + g.Error
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%s\t%s\t%s\n", termCell(s.Name), termCell(name), g.Type, g.Passed, g.Counted(), countCell(g.Errors), g.ScoreCell(), note)
		}
		fmt.Fprintf(tw, "%s\t(all)\t%s\t%d/%d\t%s\t%s\t%s\n", termCell(s.Name), s.Policy, s.CasesPassed, s.Cases-s.CasesUnscored,
			countCell(s.CasesErrored), s.ScoreCell(), s.VerdictLine())
	}
	tw.Flush()
	PrintCategories(w, sums)
	PrintTags(w, sums)
}

// ScoreCell shows the group's mean score in a table: "-" when no case of
// it was judged (errors and unscored cases have no score).
func (g *GroupOutcome) ScoreCell() string {
	if g.Total-g.Errors-g.Unscored == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", g.MeanScore())
}

// ScoreCell shows the checkpoint's mean score in a table: "-" when no
// case was judged.
func (s *CheckpointSummary) ScoreCell() string {
	if s.CasesPassed+s.CasesFailed == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", s.MeanScore)
}

// countCell shows a count in a table, "-" for none.
func countCell(n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprint(n)
}
