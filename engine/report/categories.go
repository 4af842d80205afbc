package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"

	"github.com/wasmeval/wasmeval/engine/result"
)

// NoCategory names, in category tables, the cases that have no category
// while others of the run do. Parentheses keep it apart from any
// category a dataset may use.
const NoCategory = "(none)"

// CategoryCounts counts the cases of one category by outcome.
type CategoryCounts struct {
	Cases    int `json:"cases"`
	Passed   int `json:"passed"`
	Failed   int `json:"failed"`
	Errored  int `json:"errored"`
	Unscored int `json:"unscored,omitempty"`
	// PassRatePct is Passed out of the cases counted toward rates (all
	// but the unscored), in percent rounded to one decimal; 0 when none
	// counts.
	PassRatePct float64 `json:"pass_rate_pct"`
}

// Counted is how many of the category's cases count toward its pass
// rate: all but the unscored, as in every other rate of the reports.
func (c *CategoryCounts) Counted() int { return c.Cases - c.Unscored }

func (c *CategoryCounts) add(o result.Outcome) {
	c.Cases++
	switch o {
	case result.OutcomePassed:
		c.Passed++
	case result.OutcomeFailed:
		c.Failed++
	case result.OutcomeError:
		c.Errored++
	case result.OutcomeUnscored:
		c.Unscored++
	}
}

func (c *CategoryCounts) merge(o *CategoryCounts) {
	c.Cases += o.Cases
	c.Passed += o.Passed
	c.Failed += o.Failed
	c.Errored += o.Errored
	c.Unscored += o.Unscored
}

// PctRounded is 100·passed/total rounded to one decimal, 0 for no cases.
func PctRounded(passed, total int) float64 {
	if total == 0 {
		return 0
	}
	return math.Round(1000*float64(passed)/float64(total)) / 10
}

// countCategory counts a case under its category.
func (s *CheckpointSummary) countCategory(r *result.CaseRecord, o result.Outcome) {
	cat := ""
	if r.Case != nil {
		cat = r.Case.Category
	}
	countUnder(&s.categories, cat, o)
}

// countUnder counts an outcome under key, making the map when needed.
func countUnder(m *map[string]*CategoryCounts, key string, o result.Outcome) {
	if *m == nil {
		*m = map[string]*CategoryCounts{}
	}
	c := (*m)[key]
	if c == nil {
		c = &CategoryCounts{}
		(*m)[key] = c
	}
	c.add(o)
}

// totals merges the summaries' counts by key (each summary's live counts,
// or those read back from its evaluation.json).
func totals(sums []*CheckpointSummary, of func(s *CheckpointSummary) map[string]*CategoryCounts) map[string]*CategoryCounts {
	all := map[string]*CategoryCounts{}
	for _, s := range sums {
		for key, c := range of(s) {
			if all[key] == nil {
				all[key] = &CategoryCounts{}
			}
			all[key].merge(c)
		}
	}
	return all
}

// categoryTable turns counts by category ("" for none) into a summary's
// ByCategory: nil when no case has a category, so the reports of
// problems without categories do not change; else every category, the
// cases without one under NoCategory.
func categoryTable(counts map[string]*CategoryCounts) map[string]*CategoryCounts {
	some := false
	for cat := range counts {
		some = some || cat != ""
	}
	if !some {
		return nil
	}
	return withRates(counts, func(cat string) string {
		if cat == "" {
			return NoCategory
		}
		return cat
	})
}

// Categories totals the summaries' counts by category across
// checkpoints; nil when no case of the run has a category. Summaries
// built from records also count, under NoCategory, the cases without a
// category of checkpoints where no case has one.
func Categories(sums []*CheckpointSummary) map[string]*CategoryCounts {
	return categoryTable(totals(sums, func(s *CheckpointSummary) map[string]*CategoryCounts {
		if s.categories != nil {
			return s.categories
		}
		// A summary read back from evaluation.json.
		out := map[string]*CategoryCounts{}
		for cat, c := range s.ByCategory {
			if cat == NoCategory {
				cat = ""
			}
			out[cat] = c
		}
		return out
	}))
}

// CategoryNames lists a category table's categories sorted, NoCategory
// last.
func CategoryNames(cats map[string]*CategoryCounts) []string {
	names := sortedKeys(cats)
	if i := slices.Index(names, NoCategory); i >= 0 {
		names = append(slices.Delete(names, i, i+1), NoCategory)
	}
	return names
}

// PrintCategories writes the per-category table of the terminal summary;
// nothing when no case has a category.
func PrintCategories(w io.Writer, sums []*CheckpointSummary) {
	cats := Categories(sums)
	printCounts(w, "CATEGORY", CategoryNames(cats), cats)
}

// printCounts writes a table of counts by key (category or tag), in the
// order of names; nothing when counts is nil.
func printCounts(w io.Writer, title string, names []string, counts map[string]*CategoryCounts) {
	if counts == nil {
		return
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, title+"\tCASES\tPASSED\tFAILED\tERRORED\tPASS RATE\t")
	for _, name := range names {
		c := counts[name]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t\n", termCell(name), c.Cases, c.Passed, c.Failed, countCell(c.Errored), Rate(c.Passed, c.Counted()))
	}
	tw.Flush()
}

// countTags counts a case under each of its tags.
func (s *CheckpointSummary) countTags(r *result.CaseRecord, o result.Outcome) {
	if r.Case == nil {
		return
	}
	for _, tag := range r.Case.Tags {
		countUnder(&s.tags, tag, o)
	}
}

// tagTable is counts by tag with their pass rates; nil when no case has
// a tag.
func tagTable(counts map[string]*CategoryCounts) map[string]*CategoryCounts {
	if len(counts) == 0 {
		return nil
	}
	return withRates(counts, func(tag string) string { return tag })
}

// withRates copies counts under the names rename gives their keys, each
// with its pass rate.
func withRates(counts map[string]*CategoryCounts, rename func(string) string) map[string]*CategoryCounts {
	out := map[string]*CategoryCounts{}
	for key, c := range counts {
		cc := *c
		cc.PassRatePct = PctRounded(cc.Passed, cc.Counted())
		out[rename(key)] = &cc
	}
	return out
}

// Tags totals the summaries' counts by tag across checkpoints; nil when
// no case of the run has a tag.
func Tags(sums []*CheckpointSummary) map[string]*CategoryCounts {
	return tagTable(totals(sums, func(s *CheckpointSummary) map[string]*CategoryCounts {
		if s.tags != nil {
			return s.tags
		}
		return s.ByTag
	}))
}

// PrintTags writes the per-tag table of the terminal summary (a task
// spec's apps among the tags, app:<name>); nothing when no case has a
// tag.
func PrintTags(w io.Writer, sums []*CheckpointSummary) {
	tags := Tags(sums)
	printCounts(w, "TAG", sortedKeys(tags), tags)
}
