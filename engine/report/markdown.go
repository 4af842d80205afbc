package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/result"
)

// MarkdownFailureLimit caps how many failing cases the Markdown report
// details; the rest are counted. A report meant for a pull-request comment
// must stay readable.
const MarkdownFailureLimit = 100

// WriteMarkdown writes the run's summary as Markdown: a table per
// checkpoint (groups, then group types), then the failing cases with their
// diffs, streamed from the run directory.
func WriteMarkdown(w io.Writer, dir string, run RunInfo, sums []*CheckpointSummary) error {
	fmt.Fprintf(w, "# %s — wasmeval report\n\n", run.Problem)
	t := Sum(sums)
	fmt.Fprintf(w, "Run `%s` · %d/%d cases passed (%s) · [manifest](%s)\n\n", run.RunID, t.Passed, t.Cases, Rate(t.Passed, t.Cases), run.ManifestLink)
	if note := DuplicateNote(run.DuplicatesIgnored); note != "" {
		fmt.Fprintf(w, "> **Note:** %s.\n\n", note)
	}
	for _, s := range sums {
		fmt.Fprintf(w, "## %s — %s\n\n", s.Name, s.Verdict())
		fmt.Fprintf(w, "| group | type | passed | rate | score |\n| --- | --- | --- | --- | --- |\n")
		for _, name := range s.Groups {
			g := s.GroupOutcomes[name]
			fmt.Fprintf(w, "| %s | %s | %d/%d | %s | %.2f |\n", mdCell(name), g.Type, g.Passed, g.Total, Rate(g.Passed, g.Total), g.MeanScore())
		}
		for _, gt := range problem.GroupTypes {
			if n := s.TotalCounts[gt]; n > 0 {
				fmt.Fprintf(w, "| **%s** | | %d/%d | %s | |\n", gt, s.PassCounts[gt], n, Rate(s.PassCounts[gt], n))
			}
		}
		fmt.Fprintf(w, "| **all** (%s) | | %d/%d | %s | %.2f |\n\n", s.Policy, s.CasesPassed, s.Cases, Rate(s.CasesPassed, s.Cases), s.MeanScore)
	}
	shown, failed := 0, 0
	err := EachCase(dir, func(r *result.CaseRecord) error {
		if r.Passed {
			return nil
		}
		failed++
		if failed == 1 {
			fmt.Fprint(w, "## Failing cases\n\n")
		}
		if shown >= MarkdownFailureLimit {
			return nil
		}
		shown++
		fmt.Fprintf(w, "<details><summary><code>%s</code> (score %.2f)</summary>\n\n```diff\n%s```\n\n</details>\n\n",
			mdCell(r.Key()), r.Score, strings.ReplaceAll(FailureText(r, 4000), "```", "`‵`"))
		return nil
	})
	if failed > shown {
		fmt.Fprintf(w, "… and %d more failing cases (see the HTML report or results.parquet).\n", failed-shown)
	}
	return err
}

func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// RunInfo is what every report says about the run beyond its summaries.
type RunInfo struct {
	RunID   string `json:"run_id"`
	Problem string `json:"problem"`
	// ManifestLink is the manifest's path relative to the report.
	ManifestLink string `json:"manifest"`
	Status       string `json:"status,omitempty"`
	// DuplicatesIgnored counts journal records not counted because their
	// case already had one (see unique.go).
	DuplicatesIgnored int `json:"duplicate_records_ignored,omitempty"`
}
