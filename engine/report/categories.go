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
	if s.categories == nil {
		s.categories = map[string]*CategoryCounts{}
	}
	c := s.categories[cat]
	if c == nil {
		c = &CategoryCounts{}
		s.categories[cat] = c
	}
	c.add(o)
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
	out := map[string]*CategoryCounts{}
	for cat, c := range counts {
		if cat == "" {
			cat = NoCategory
		}
		cc := *c
		cc.PassRatePct = PctRounded(cc.Passed, cc.Counted())
		out[cat] = &cc
	}
	return out
}

// Categories totals the summaries' counts by category across
// checkpoints; nil when no case of the run has a category. Summaries
// built from records also count, under NoCategory, the cases without a
// category of checkpoints where no case has one.
func Categories(sums []*CheckpointSummary) map[string]*CategoryCounts {
	all := map[string]*CategoryCounts{}
	for _, s := range sums {
		src := s.categories
		if src == nil {
			// A summary read back from evaluation.json.
			src = s.ByCategory
		}
		for cat, c := range src {
			if cat == NoCategory {
				cat = ""
			}
			if all[cat] == nil {
				all[cat] = &CategoryCounts{}
			}
			all[cat].merge(c)
		}
	}
	return categoryTable(all)
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
	if cats == nil {
		return
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CATEGORY\tCASES\tPASSED\tFAILED\tERRORED\tPASS RATE\t")
	for _, name := range CategoryNames(cats) {
		c := cats[name]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t\n", name, c.Cases, c.Passed, c.Failed, countCell(c.Errored), Rate(c.Passed, c.Counted()))
	}
	tw.Flush()
}

// countTags counts a case under each of its tags.
func (s *CheckpointSummary) countTags(r *result.CaseRecord, o result.Outcome) {
	if r.Case == nil {
		return
	}
	for _, tag := range r.Case.Tags {
		if s.tags == nil {
			s.tags = map[string]*CategoryCounts{}
		}
		c := s.tags[tag]
		if c == nil {
			c = &CategoryCounts{}
			s.tags[tag] = c
		}
		c.add(o)
	}
}

// tagTable is counts by tag with their pass rates; nil when no case has
// a tag.
func tagTable(counts map[string]*CategoryCounts) map[string]*CategoryCounts {
	if len(counts) == 0 {
		return nil
	}
	out := map[string]*CategoryCounts{}
	for tag, c := range counts {
		cc := *c
		cc.PassRatePct = PctRounded(cc.Passed, cc.Counted())
		out[tag] = &cc
	}
	return out
}

// Tags totals the summaries' counts by tag across checkpoints; nil when
// no case of the run has a tag.
func Tags(sums []*CheckpointSummary) map[string]*CategoryCounts {
	all := map[string]*CategoryCounts{}
	for _, s := range sums {
		src := s.tags
		if src == nil {
			src = s.ByTag
		}
		for tag, c := range src {
			if all[tag] == nil {
				all[tag] = &CategoryCounts{}
			}
			all[tag].merge(c)
		}
	}
	return tagTable(all)
}

// PrintTags writes the per-tag table of the terminal summary (a task
// spec's apps among the tags, app:<name>); nothing when no case has a
// tag.
func PrintTags(w io.Writer, sums []*CheckpointSummary) {
	tags := Tags(sums)
	if tags == nil {
		return
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TAG\tCASES\tPASSED\tFAILED\tERRORED\tPASS RATE\t")
	for _, name := range sortedKeys(tags) {
		c := tags[name]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t\n", name, c.Cases, c.Passed, c.Failed, countCell(c.Errored), Rate(c.Passed, c.Counted()))
	}
	tw.Flush()
}
