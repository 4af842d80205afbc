// Package compare lists per-case differences between two runs of a
// problem: regressions (passed in the baseline, fail now), fixes (failed
// in the baseline, pass now) and cases only one run has. It holds one small
// entry per baseline case (key, verdict, score), never outputs or diffs.
package compare

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"text/tabwriter"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/result"
)

// Change is one case whose verdict differs.
type Change struct {
	Key        string  `json:"key"`
	Checkpoint string  `json:"checkpoint"`
	Group      string  `json:"group"`
	ID         string  `json:"id"`
	BaseScore  float64 `json:"base_score"`
	Score      float64 `json:"score"`
	// Incorrect names the attributes that are wrong in the failing run.
	Incorrect []string `json:"incorrect,omitempty"`
}

// Result is the comparison of a run with its baseline.
type Result struct {
	Base        string   `json:"base"`
	Run         string   `json:"run"`
	Regressions []Change `json:"regressions"`
	Fixes       []Change `json:"fixes"`
	// OnlyBase and OnlyRun list case keys present in one run only.
	OnlyBase  []string `json:"only_in_base"`
	OnlyRun   []string `json:"only_in_run"`
	Unchanged int      `json:"unchanged"`
}

type baseCase struct {
	passed    bool
	score     float64
	incorrect []string
	seen      bool
}

// Runs compares the run in dir with the baseline run in baseDir.
func Runs(baseDir, dir string) (*Result, error) {
	base := map[string]*baseCase{}
	// Each case once, by its first record, as every report counts it.
	_, err := report.ReadUnique(filepath.Join(baseDir, journal.FileName), func(r *result.CaseRecord) error {
		b := &baseCase{passed: r.Passed, score: r.Score}
		if !r.Passed {
			b.incorrect = incorrect(r)
		}
		base[r.Key()] = b
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", baseDir, err)
	}
	res := &Result{Base: baseDir, Run: dir, Regressions: []Change{}, Fixes: []Change{}, OnlyBase: []string{}, OnlyRun: []string{}}
	_, err = report.ReadUnique(filepath.Join(dir, journal.FileName), func(r *result.CaseRecord) error {
		k := r.Key()
		b, ok := base[k]
		if !ok {
			res.OnlyRun = append(res.OnlyRun, k)
			return nil
		}
		b.seen = true
		ch := Change{Key: k, Checkpoint: r.Checkpoint, Group: r.Group, ID: r.ID, BaseScore: b.score, Score: r.Score}
		switch {
		case b.passed && !r.Passed:
			ch.Incorrect = incorrect(r)
			res.Regressions = append(res.Regressions, ch)
		case !b.passed && r.Passed:
			ch.Incorrect = b.incorrect
			res.Fixes = append(res.Fixes, ch)
		default:
			res.Unchanged++
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", dir, err)
	}
	for _, k := range slices.Sorted(maps.Keys(base)) {
		if !base[k].seen {
			res.OnlyBase = append(res.OnlyBase, k)
		}
	}
	byKey := func(a, b Change) int { return cmp.Compare(a.Key, b.Key) }
	slices.SortFunc(res.Regressions, byKey)
	slices.SortFunc(res.Fixes, byKey)
	slices.Sort(res.OnlyRun)
	return res, nil
}

func incorrect(r *result.CaseRecord) []string {
	var out []string
	for _, a := range r.Attributes {
		if !a.IsCorrect {
			out = append(out, a.Attribute)
		}
	}
	if len(out) == 0 {
		switch {
		case r.Result.TimedOut:
			out = append(out, "(timed out)")
		case r.Result.AdapterError:
			out = append(out, "(could not run)")
		}
	}
	return out
}

// Print writes the comparison for a terminal.
func (r *Result) Print(w io.Writer) {
	fmt.Fprintf(w, "compared with %s: %d regressions, %d fixes, %d unchanged, %d only in baseline, %d only in this run\n",
		r.Base, len(r.Regressions), len(r.Fixes), r.Unchanged, len(r.OnlyBase), len(r.OnlyRun))
	section := func(title string, chs []Change) {
		if len(chs) == 0 {
			return
		}
		fmt.Fprintf(w, "\n%s:\n", title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, c := range chs {
			fmt.Fprintf(tw, "  %s\t%.2f -> %.2f\t%v\n", c.Key, c.BaseScore, c.Score, c.Incorrect)
		}
		tw.Flush()
	}
	section("REGRESSIONS (passed in baseline, fail now)", r.Regressions)
	section("FIXES (failed in baseline, pass now)", r.Fixes)
	for _, l := range []struct {
		title string
		keys  []string
	}{{"only in baseline", r.OnlyBase}, {"only in this run", r.OnlyRun}} {
		if len(l.keys) > 0 {
			fmt.Fprintf(w, "\n%s:\n", l.title)
			for _, k := range l.keys {
				fmt.Fprintf(w, "  %s\n", k)
			}
		}
	}
}

// WriteJSON writes the comparison as JSON.
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteMarkdown writes the comparison as Markdown.
func (r *Result) WriteMarkdown(w io.Writer) {
	fmt.Fprintf(w, "## Compared with `%s`\n\n%d regressions · %d fixes · %d unchanged · %d only in baseline · %d only in this run\n\n",
		r.Base, len(r.Regressions), len(r.Fixes), r.Unchanged, len(r.OnlyBase), len(r.OnlyRun))
	for _, s := range []struct {
		title string
		chs   []Change
	}{{"Regressions", r.Regressions}, {"Fixes", r.Fixes}} {
		if len(s.chs) == 0 {
			continue
		}
		fmt.Fprintf(w, "### %s\n\n| case | score | incorrect |\n| --- | --- | --- |\n", s.title)
		for _, c := range s.chs {
			fmt.Fprintf(w, "| `%s` | %.2f → %.2f | %v |\n", c.Key, c.BaseScore, c.Score, c.Incorrect)
		}
		fmt.Fprintln(w)
	}
}
