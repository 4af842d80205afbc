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
	fmt.Fprintf(w, "# %s — wasmeval report\n\n", mdCell(run.Problem))
	t := Sum(sums)
	fmt.Fprintf(w, "Run `%s` · %d/%d cases passed (%s)", run.RunID, t.Passed, t.Counted(), Rate(t.Passed, t.Counted()))
	if t.Errored > 0 {
		fmt.Fprintf(w, " · %d errors (not judged)", t.Errored)
	}
	if t.Unscored > 0 {
		fmt.Fprintf(w, " · %d unscored", t.Unscored)
	}
	fmt.Fprintf(w, " · [manifest](%s)\n\n", run.ManifestLink)
	if note := DuplicateNote(run.DuplicatesIgnored); note != "" {
		fmt.Fprintf(w, "> **Note:** %s.\n\n", note)
	}
	for _, s := range sums {
		fmt.Fprintf(w, "## %s — %s\n\n", mdCell(s.Name), mdCell(s.VerdictLine()))
		fmt.Fprintf(w, "| group | type | passed | errors | rate | score |\n| --- | --- | --- | --- | --- | --- |\n")
		for _, name := range s.Groups {
			g := s.GroupOutcomes[name]
			fmt.Fprintf(w, "| %s | %s | %d/%d | %s | %s | %s |\n", mdCell(name), g.Type, g.Passed, g.Counted(), countCell(g.Errors),
				Rate(g.Passed, g.Counted()), g.ScoreCell())
		}
		for _, gt := range problem.GroupTypes {
			if n := s.TotalCounts[gt]; n > 0 {
				fmt.Fprintf(w, "| **%s** | | %d/%d | %s | %s | |\n", gt, s.PassCounts[gt], n, countCell(s.ErrorCounts[gt]), Rate(s.PassCounts[gt], n))
			}
		}
		counted := s.Cases - s.CasesUnscored
		fmt.Fprintf(w, "| **all** (%s) | | %d/%d | %s | %s | %s |\n\n", s.Policy, s.CasesPassed, counted, countCell(s.CasesErrored),
			Rate(s.CasesPassed, counted), s.ScoreCell())
	}
	if cats := Categories(sums); cats != nil {
		fmt.Fprintf(w, "## By category\n\n| category | cases | passed | failed | errored | pass rate |\n| --- | --- | --- | --- | --- | --- |\n")
		for _, name := range CategoryNames(cats) {
			c := cats[name]
			fmt.Fprintf(w, "| %s | %d | %d | %d | %s | %s |\n", mdCell(name), c.Cases, c.Passed, c.Failed, countCell(c.Errored), Rate(c.Passed, c.Counted()))
		}
		fmt.Fprint(w, "\n")
	}
	for _, s := range sums {
		if s.CasesFlaky == 0 {
			continue
		}
		fmt.Fprintf(w, "**Flaky in %s** (epochs disagree):", s.Name)
		for _, name := range s.Groups {
			for _, id := range s.GroupOutcomes[name].Flaky {
				fmt.Fprintf(w, " `%s/%s`", mdCode(name), mdCode(id))
			}
		}
		fmt.Fprint(w, "\n\n")
	}
	// Errors first: those cases were never judged.
	if err := markdownCases(w, dir, result.OutcomeError, "Errored cases (not judged: the harness failed on them)"); err != nil {
		return err
	}
	return markdownCases(w, dir, result.OutcomeFailed, "Failing cases")
}

// markdownCases details the cases of one outcome, up to
// MarkdownFailureLimit, streamed from the run directory.
func markdownCases(w io.Writer, dir string, outcome result.Outcome, title string) error {
	shown, n := 0, 0
	err := EachCase(dir, func(r *result.CaseRecord) error {
		if result.OutcomeOf(r) != outcome {
			return nil
		}
		n++
		if n == 1 {
			fmt.Fprintf(w, "## %s\n\n", title)
		}
		if shown >= MarkdownFailureLimit {
			return nil
		}
		shown++
		label := fmt.Sprintf("score %.2f", r.Score)
		if st := Status(r); st != "fail" {
			label = st + ", " + label
		}
		if outcome == result.OutcomeError {
			label = "error: " + string(r.ErrorKind)
		}
		fmt.Fprintf(w, "<details><summary><code>%s</code> (%s)</summary>\n\n```diff\n%s```\n\n</details>\n\n",
			mdCell(EpochName(r.Key(), r.Epoch)), label, strings.ReplaceAll(FailureText(r, 4000), "```", "`‵`"))
		return nil
	})
	if n > shown {
		fmt.Fprintf(w, "… and %d more (see the HTML report or results.parquet).\n\n", n-shown)
	}
	return err
}

// mdCell is text from the problem or the run (names, categories,
// messages) as Markdown text: a renderer must show it, not act on it, so
// HTML is escaped as well as the table's separators.
func mdCell(s string) string {
	return mdText.Replace(s)
}

var mdText = strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ", "&", "&amp;", "<", "&lt;", ">", "&gt;")

// mdCode is text for a code span, which shows HTML as it is written: only
// a backtick, which would end the span, is replaced.
func mdCode(s string) string {
	return strings.NewReplacer("`", "‵", "\n", " ", "\r", " ").Replace(s)
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
