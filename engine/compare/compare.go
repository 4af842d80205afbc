// Package compare lists per-case differences between two runs of a
// problem: regressions (passed in the baseline, fail now), fixes (failed
// in the baseline, pass now), cases whose outcome changed to or from an
// error or unscored — which say nothing about the submission, and are
// listed apart — and cases only one run has. It holds one small
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
	"github.com/wasmeval/wasmeval/engine/manifest"
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
	// From and To are the case's outcomes in the baseline and in the run.
	From result.Outcome `json:"from"`
	To   result.Outcome `json:"to"`
	// Incorrect names the attributes that are wrong in the failing run.
	Incorrect []string `json:"incorrect,omitempty"`
}

// Result is the comparison of a run with its baseline.
type Result struct {
	Base        string   `json:"base"`
	Run         string   `json:"run"`
	Regressions []Change `json:"regressions"`
	Fixes       []Change `json:"fixes"`
	// NotJudged lists cases whose outcome changed to or from an error or
	// unscored: passed→error is no regression of the submission, nor
	// error→passed a fix.
	NotJudged []Change `json:"not_judged"`
	// OnlyBase and OnlyRun list case keys present in one run only.
	OnlyBase  []string `json:"only_in_base"`
	OnlyRun   []string `json:"only_in_run"`
	Unchanged int      `json:"unchanged"`
	// Warnings say why the comparison may mean little: runs of different
	// problems, or of different versions of one.
	Warnings []string `json:"warnings,omitempty"`
}

// caseState is what a run says of one case: its outcome, score and
// wrong attributes — of its one record, or of its epochs reduced as the
// run reduces them.
type caseState struct {
	checkpoint, group, id string
	outcome               result.Outcome
	score                 float64
	incorrect             []string
	epochs                *result.Epochs
	seen                  bool
}

// readCases reads a run's cases: each case's last attempt (as every report
// counts it), and a run with --epochs reduced per case with the run's own
// reducer. It holds a few numbers a case, never outputs or diffs.
func readCases(dir string) (map[string]*caseState, error) {
	reducer := result.DefaultReducer
	if m, err := manifest.Read(dir); err == nil && m.Flags.Reducer != "" {
		reducer = result.Reducer(m.Flags.Reducer)
	}
	cases := map[string]*caseState{}
	_, err := report.ReadUnique(filepath.Join(dir, journal.FileName), func(r *result.CaseRecord) error {
		k := r.Key()
		st := cases[k]
		if st == nil {
			st = &caseState{checkpoint: r.Checkpoint, group: r.Group, id: r.ID}
			cases[k] = st
		}
		o := result.OutcomeOf(r)
		if o != result.OutcomePassed {
			st.incorrect = incorrect(r)
		}
		if r.Epoch > 0 {
			if st.epochs == nil {
				st.epochs = &result.Epochs{}
			}
			st.epochs.Add(r)
			return nil
		}
		st.outcome, st.score = o, r.Score
		return nil
	})
	for _, st := range cases {
		if st.epochs != nil {
			st.outcome, st.score = st.epochs.Reduce(reducer)
			if st.outcome == result.OutcomePassed {
				st.incorrect = nil
			}
		}
	}
	return cases, err
}

// Runs compares the run in dir with the baseline run in baseDir. Cases
// are matched by checkpoint/group/id; a run with --epochs is compared by
// each case's reduced outcome, not epoch by epoch.
func Runs(baseDir, dir string) (*Result, error) {
	base, err := readCases(baseDir)
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", baseDir, err)
	}
	cur, err := readCases(dir)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", dir, err)
	}
	res := &Result{Base: baseDir, Run: dir, Regressions: []Change{}, Fixes: []Change{}, NotJudged: []Change{}, OnlyBase: []string{}, OnlyRun: []string{}}
	res.Warnings = problemWarnings(baseDir, dir)
	for _, k := range slices.Sorted(maps.Keys(cur)) {
		r := cur[k]
		b, ok := base[k]
		if !ok {
			res.OnlyRun = append(res.OnlyRun, k)
			continue
		}
		b.seen = true
		o := r.outcome
		ch := Change{Key: k, Checkpoint: r.checkpoint, Group: r.group, ID: r.id, BaseScore: b.score, Score: r.score, From: b.outcome, To: o}
		switch {
		case b.outcome == o:
			res.Unchanged++
		case b.outcome == result.OutcomePassed && o == result.OutcomeFailed:
			ch.Incorrect = r.incorrect
			res.Regressions = append(res.Regressions, ch)
		case b.outcome == result.OutcomeFailed && o == result.OutcomePassed:
			ch.Incorrect = b.incorrect
			res.Fixes = append(res.Fixes, ch)
		default:
			if o != result.OutcomePassed {
				ch.Incorrect = r.incorrect
			} else {
				ch.Incorrect = b.incorrect
			}
			res.NotJudged = append(res.NotJudged, ch)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(base)) {
		if !base[k].seen {
			res.OnlyBase = append(res.OnlyBase, k)
		}
	}
	byKey := func(a, b Change) int { return cmp.Compare(a.Key, b.Key) }
	slices.SortFunc(res.Regressions, byKey)
	slices.SortFunc(res.Fixes, byKey)
	slices.SortFunc(res.NotJudged, byKey)
	slices.Sort(res.OnlyRun)
	return res, nil
}

func incorrect(r *result.CaseRecord) []string {
	var out []string
	for _, a := range r.Attributes {
		if !a.IsCorrect {
			out = append(out, report.AttributeName(a))
		}
	}
	// A case the harness could not judge has no wrong attributes to name,
	// whatever its checks made of the empty result.
	switch {
	case r.Result.PluginError != "":
		return []string{"(plugin error)"}
	case r.Result.AdapterError:
		return []string{"(could not run)"}
	case r.Unscored != "":
		return []string{"(unscored)"}
	case len(out) == 0 && r.Result.TimedOut:
		return []string{"(timed out)"}
	}
	return out
}

// problemWarnings says when the two runs' manifests name different
// problems or problem versions.
func problemWarnings(baseDir, dir string) []string {
	a, errA := manifest.Read(baseDir)
	b, errB := manifest.Read(dir)
	if errA != nil || errB != nil {
		return nil
	}
	switch {
	case a.Problem.Name != "" && b.Problem.Name != "" && a.Problem.Name != b.Problem.Name:
		return []string{fmt.Sprintf("the runs are of different problems (%q in the baseline, %q here): cases are matched by checkpoint/group/id only", a.Problem.Name, b.Problem.Name)}
	case a.Problem.Version != b.Problem.Version:
		return []string{fmt.Sprintf("the runs are of different versions of problem %q (%d in the baseline, %d here)", b.Problem.Name, a.Problem.Version, b.Problem.Version)}
	}
	return nil
}

// Print writes the comparison for a terminal.
func (r *Result) Print(w io.Writer) {
	for _, msg := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", msg)
	}
	fmt.Fprintf(w, "compared with %s: %d regressions, %d fixes, %d not judged in one run, %d unchanged, %d only in baseline, %d only in this run\n",
		r.Base, len(r.Regressions), len(r.Fixes), len(r.NotJudged), r.Unchanged, len(r.OnlyBase), len(r.OnlyRun))
	section := func(title string, chs []Change) {
		if len(chs) == 0 {
			return
		}
		fmt.Fprintf(w, "\n%s:\n", title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, c := range chs {
			fmt.Fprintf(tw, "  %s\t%s -> %s\t%.2f -> %.2f\t%v\n", c.Key, c.From, c.To, c.BaseScore, c.Score, c.Incorrect)
		}
		tw.Flush()
	}
	section("REGRESSIONS (passed in baseline, fail now)", r.Regressions)
	section("FIXES (failed in baseline, pass now)", r.Fixes)
	section("NOT JUDGED IN ONE RUN (an error or unscored: neither a regression nor a fix)", r.NotJudged)
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
	fmt.Fprintf(w, "## Compared with `%s`\n\n%d regressions · %d fixes · %d not judged in one run · %d unchanged · %d only in baseline · %d only in this run\n\n",
		r.Base, len(r.Regressions), len(r.Fixes), len(r.NotJudged), r.Unchanged, len(r.OnlyBase), len(r.OnlyRun))
	for _, msg := range r.Warnings {
		fmt.Fprintf(w, "> **Warning:** %s\n\n", msg)
	}
	for _, s := range []struct {
		title string
		chs   []Change
	}{{"Regressions", r.Regressions}, {"Fixes", r.Fixes}, {"Not judged in one run (errors, unscored)", r.NotJudged}} {
		if len(s.chs) == 0 {
			continue
		}
		fmt.Fprintf(w, "### %s\n\n| case | outcome | score | incorrect |\n| --- | --- | --- | --- |\n", s.title)
		for _, c := range s.chs {
			fmt.Fprintf(w, "| `%s` | %s → %s | %.2f → %.2f | %v |\n", c.Key, c.From, c.To, c.BaseScore, c.Score, c.Incorrect)
		}
		fmt.Fprintln(w)
	}
}
