// Package report turns finished case records into summaries: a JSON summary
// per checkpoint (counts by group and group type, the pass policy verdict)
// and the terminal table printed at the end of a run.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/report/runfile"
	"github.com/wasmeval/wasmeval/engine/result"
)

// CheckpointSummary is written as <out>/<checkpoint>/evaluation.json. Field
// names follow SlopCodeBench's evaluation.json where they overlap.
type CheckpointSummary struct {
	// RunID and Manifest link the summary to the run's manifest (a path
	// relative to this file).
	RunID          string    `json:"run_id,omitempty"`
	Manifest       string    `json:"manifest,omitempty"`
	ProblemName    string    `json:"problem_name"`
	ProblemVersion int       `json:"problem_version"`
	Name           string    `json:"name"`
	Version        int       `json:"version"`
	Timestamp      time.Time `json:"timestamp"`
	Duration       float64   `json:"duration"`

	Policy result.Policy `json:"pass_policy"`
	// ErrorPolicy says how errored cases counted toward Verdict.
	ErrorPolicy result.ErrorPolicy `json:"error_policy,omitempty"`
	// Passed is Verdict == passed.
	Passed bool `json:"passed"`
	// Verdict is passed, failed, inconclusive (errors decide it, or a
	// group could not run) or incomplete (the run was interrupted).
	Verdict result.Verdict `json:"verdict,omitempty"`
	// Complete is false when the run was interrupted before every case of
	// the checkpoint finished.
	Complete bool `json:"complete"`

	// Cases counts every case; CasesPassed, CasesFailed, CasesErrored and
	// CasesUnscored split it by outcome.
	Cases         int `json:"cases"`
	CasesPassed   int `json:"cases_passed"`
	CasesFailed   int `json:"cases_failed"`
	CasesErrored  int `json:"cases_errored"`
	CasesUnscored int `json:"cases_unscored"`
	// MeanScore is the mean score of the cases that were judged (passed
	// or failed): errored and unscored cases have no score to count.
	MeanScore float64 `json:"mean_score"`
	// ErrorKinds counts errored cases by the part that failed (adapter,
	// plugin, load, timeout).
	ErrorKinds    map[result.ErrorKind]int `json:"error_kinds,omitempty"`
	AdapterErrors int                      `json:"adapter_errors"`
	TimedOut      int                      `json:"timed_out"`
	// PluginErrors counts cases on which a plugin faulted.
	PluginErrors int `json:"plugin_errors"`
	// DuplicatesIgnored counts journal records of this checkpoint's cases
	// that were not counted: a case's first record counts, and a journal
	// written by two runs at once can hold more (see unique.go).
	DuplicatesIgnored int `json:"duplicate_records_ignored,omitempty"`

	// Epochs is how many times each case ran (--epochs; omitted for 1),
	// and Reducer how a case's epochs came to one outcome and score.
	// CasesFlaky counts cases whose epochs disagreed (some passed, some
	// failed); PassAtK and PassHatK are the mean over cases of the
	// unbiased pass@k and pass^k estimators, for each k up to Epochs.
	Epochs     int            `json:"epochs,omitempty"`
	Reducer    result.Reducer `json:"reducer,omitempty"`
	CasesFlaky int            `json:"cases_flaky,omitempty"`
	// Retries counts the attempts that ended in an error and ran again
	// (--retry-errors): a case's last attempt counts, the others are in
	// the journal.
	Retries int `json:"retries,omitempty"`
	// EpochErrors counts the epochs that ended in an error: they are left
	// out of their case's reduction, so a case can pass with some.
	EpochErrors int                `json:"epoch_errors,omitempty"`
	PassAtK     map[string]float64 `json:"pass_at_k,omitempty"`
	PassHatK    map[string]float64 `json:"pass_hat_k,omitempty"`

	// ByCategory counts the checkpoint's cases by their category (an
	// eval-case dataset's category, see result.CaseInfo), when any case
	// has one; cases without one are under NoCategory.
	ByCategory map[string]*CategoryCounts `json:"by_category,omitempty"`
	// categories counts every case by category ("" for none), so
	// ByCategory can be set once the summary is final.
	categories map[string]*CategoryCounts
	// ByTag counts the checkpoint's cases under each of their tags (a
	// case with two tags counts under both; a task spec's related apps
	// are tags app:<name>); absent when no case has a tag.
	ByTag map[string]*CategoryCounts `json:"by_tag,omitempty"`
	tags  map[string]*CategoryCounts

	// Per group type: passed cases, errored cases, and every case that
	// counts toward the policy (passed, failed or errored; not unscored).
	PassCounts  map[problem.GroupType]int `json:"pass_counts"`
	ErrorCounts map[problem.GroupType]int `json:"error_counts"`
	TotalCounts map[problem.GroupType]int `json:"total_counts"`

	GroupOutcomes map[string]*GroupOutcome `json:"group_outcomes"`
	// Groups lists group names in run order (JSON maps have none).
	Groups []string `json:"groups"`
}

// GroupOutcome summarises one group.
type GroupOutcome struct {
	Type               problem.GroupType `json:"type"`
	OriginalCheckpoint string            `json:"original_checkpoint,omitempty"`
	OriginalGroup      string            `json:"original_group,omitempty"`
	Duration           float64           `json:"duration"`
	Passed             int               `json:"passed"`
	// Errors and Unscored count the group's cases with those outcomes;
	// Total counts every case.
	Errors   int                `json:"errors,omitempty"`
	Unscored int                `json:"unscored,omitempty"`
	Total    int                `json:"total"`
	Results  map[string]float64 `json:"results"`
	// Failed lists the ids of failed cases in run order, and Errored those
	// of cases that ended in an error.
	Failed  []string `json:"failed"`
	Errored []string `json:"errored,omitempty"`
	// Flaky lists the cases whose epochs disagreed, and Flakiness is
	// their share of the cases with two or more judged epochs.
	Flaky     []string `json:"flaky,omitempty"`
	Flakiness float64  `json:"flakiness,omitempty"`
	// Error is set when the group could not run to the end (the
	// submission's workspace could not be prepared, the loader failed).
	Error string `json:"error,omitempty"`

	// cases holds Results, Failed and Errored when the builder spools
	// them (see Builder.Spool); they are nil then.
	cases *groupCases
	// sum and judged are the judged (passed or failed) cases' score sum
	// and count, while the group is not spooled.
	sum    float64
	judged int
	// multi counts cases with two or more judged epochs.
	multi int
}

// Builder accumulates records into per-checkpoint summaries. It keeps only
// counts and per-case scores, never outputs, so memory stays small; a
// spooling builder (Spool) keeps the per-case scores in a file.
type Builder struct {
	prob   *problem.Problem
	policy result.Policy
	// errPolicy says how errored cases count (DefaultErrorPolicy if "").
	errPolicy result.ErrorPolicy
	cps       map[string]*CheckpointSummary
	order     []string
	start     time.Time
	// open: checkpoints and groups are created as records name them (a
	// report rebuilt from a journal, without the problem at hand).
	open  bool
	runID string
	// epochs and reducer: see SetEpochs; pending holds the epochs seen so
	// far of each case not yet reduced, and passK the sums of pass@k and
	// pass^k per checkpoint.
	epochs  int
	reducer result.Reducer
	pending map[string]*caseEpochs
	passK   map[string]*passKSums
	// spool holds the per-case entries (see Spool); nil: the summaries
	// hold them.
	spool *caseSpool
}

// NewBuilder prepares summaries for the given checkpoints in run order.
func NewBuilder(p *problem.Problem, cps []*problem.Checkpoint, policy result.Policy, start time.Time) *Builder {
	b := &Builder{prob: p, policy: policy, cps: map[string]*CheckpointSummary{}, start: start}
	for _, cp := range cps {
		s := b.newSummary(cp.Name, cp.Version)
		s.Timestamp = start.UTC()
		for _, g := range cp.Groups {
			s.Groups = append(s.Groups, g.Name)
			s.GroupOutcomes[g.Name] = &GroupOutcome{Type: g.Type, OriginalCheckpoint: g.OriginalCheckpoint,
				OriginalGroup: g.OriginalGroup, Results: map[string]float64{}, Failed: []string{}}
		}
	}
	return b
}

// newSummary adds an empty summary for a checkpoint, after the others.
func (b *Builder) newSummary(name string, version int) *CheckpointSummary {
	s := &CheckpointSummary{ProblemName: b.prob.Name, ProblemVersion: b.prob.Version, Name: name, Version: version,
		Policy: b.policy, Complete: true, PassCounts: map[problem.GroupType]int{}, ErrorCounts: map[problem.GroupType]int{},
		TotalCounts: map[problem.GroupType]int{}, GroupOutcomes: map[string]*GroupOutcome{}}
	b.cps[name] = s
	b.order = append(b.order, name)
	return s
}

// SetErrorPolicy says how errored cases count toward each checkpoint's
// verdict (result.DefaultErrorPolicy unless set).
func (b *Builder) SetErrorPolicy(p result.ErrorPolicy) { b.errPolicy = p }

// Add counts one finished case. A case already counted is not counted
// again: its first record counts (see unique.go), later ones are tallied
// in DuplicatesIgnored. The per-case scores the builder keeps anyway tell
// which cases it has seen, so this costs no memory of its own. (A
// spooling builder does not look: its caller gives each case once.)
func (b *Builder) Add(r *result.CaseRecord) {
	if b.open {
		b.ensure(r)
	}
	if b.epochs > 1 {
		b.addEpoch(r)
		return
	}
	b.add(r)
}

// add counts one case (one record, or a case's epochs reduced).
func (b *Builder) add(r *result.CaseRecord) {
	s, ok := b.cps[r.Checkpoint]
	if !ok {
		return
	}
	g := s.GroupOutcomes[r.Group]
	if g == nil {
		return
	}
	o := result.OutcomeOf(r)
	judged := o == result.OutcomePassed || o == result.OutcomeFailed
	if g.cases != nil {
		if judged {
			g.cases.sum += r.Score
			g.cases.judged++
		}
		g.cases.add(caseEntry{id: r.ID, score: r.Score, outcome: o})
	} else {
		if _, dup := g.Results[r.ID]; dup {
			s.DuplicatesIgnored++
			return
		}
		g.Results[r.ID] = r.Score
		if judged {
			g.sum += r.Score
			g.judged++
		}
		switch o {
		case result.OutcomeFailed:
			g.Failed = append(g.Failed, r.ID)
		case result.OutcomeError:
			g.Errored = append(g.Errored, r.ID)
		}
	}
	g.Total++
	g.Duration += r.Duration
	s.Cases++
	s.Retries += max(r.Attempt, 1) - 1
	switch o {
	case result.OutcomePassed:
		g.Passed++
		s.CasesPassed++
	case result.OutcomeFailed:
		s.CasesFailed++
	case result.OutcomeError:
		g.Errors++
		s.CasesErrored++
		if s.ErrorKinds == nil {
			s.ErrorKinds = map[result.ErrorKind]int{}
		}
		s.ErrorKinds[result.ErrorKindOf(r)]++
	case result.OutcomeUnscored:
		g.Unscored++
		s.CasesUnscored++
	}
	counts := result.Counts{Passed: s.PassCounts, Errors: s.ErrorCounts, Total: s.TotalCounts}
	counts.Add(r.GroupType, o)
	if r.Result.AdapterError {
		s.AdapterErrors++
	}
	if r.Result.PluginError != "" {
		s.PluginErrors++
	}
	if r.Result.TimedOut {
		s.TimedOut++
	}
	s.Duration += r.Duration
	s.countCategory(r, o)
	s.countTags(r, o)
}

// GroupError records that a group could not run to its end (its workspace
// could not be prepared, its loader failed): its checkpoint is then
// inconclusive, unless the run was also interrupted (Incomplete).
func (b *Builder) GroupError(checkpoint, group, msg string) {
	if s, ok := b.cps[checkpoint]; ok {
		if g := s.GroupOutcomes[group]; g != nil {
			g.Error = msg
		}
	}
}

// Incomplete marks a checkpoint as interrupted.
func (b *Builder) Incomplete(checkpoint string) {
	if s, ok := b.cps[checkpoint]; ok {
		s.Complete = false
	}
}

// Summaries finalises and returns the summaries in run order.
func (b *Builder) Summaries() []*CheckpointSummary {
	b.flushEpochs()
	out := make([]*CheckpointSummary, 0, len(b.order))
	for _, name := range b.order {
		s := b.cps[name]
		b.finishEpochs(s)
		s.MeanScore = s.meanScore()
		s.ByCategory = categoryTable(s.categories)
		s.ByTag = tagTable(s.tags)
		if b.runID != "" {
			s.RunID, s.Manifest = b.runID, "../manifest.json"
		}
		s.decide(b.policy, b.errorPolicy())
		out = append(out, s)
	}
	return out
}

// flushEpochs reduces what epochs are still pending (a run interrupted
// before every epoch of a case finished counts what it has).
func (b *Builder) flushEpochs() {
	for _, key := range sortedKeys(b.pending) {
		b.reduce(key, b.pending[key])
	}
}

func (b *Builder) errorPolicy() result.ErrorPolicy {
	if b.errPolicy == "" {
		return result.DefaultErrorPolicy
	}
	return b.errPolicy
}

// meanScore is the mean score of the checkpoint's judged cases, from its
// groups' sums.
func (s *CheckpointSummary) meanScore() float64 {
	sum, n := 0.0, 0
	for _, g := range s.GroupOutcomes {
		if g.cases != nil {
			sum, n = sum+g.cases.sum, n+g.cases.judged
		} else {
			sum, n = sum+g.sum, n+g.judged
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// decide sets the summary's verdict: incomplete when interrupted,
// inconclusive when a group could not run (its cases were never judged)
// and otherwise the policy's verdict with errors counted as errs says.
func (s *CheckpointSummary) decide(policy result.Policy, errs result.ErrorPolicy) {
	s.Policy, s.ErrorPolicy = policy, errs
	counts := result.Counts{Passed: s.PassCounts, Errors: s.ErrorCounts, Total: s.TotalCounts}
	switch {
	case !s.Complete:
		s.Verdict = result.VerdictIncomplete
	case s.groupFailed():
		s.Verdict = result.VerdictInconclusive
		if errs == result.ErrorsFail {
			s.Verdict = result.VerdictFailed
		}
	default:
		s.Verdict = policy.Decide(counts, errs)
	}
	s.Passed = s.Verdict == result.VerdictPassed
}

// groupFailed says whether a group of the checkpoint could not run to its
// end.
func (s *CheckpointSummary) groupFailed() bool {
	for _, g := range s.GroupOutcomes {
		if g.Error != "" {
			return true
		}
	}
	return false
}

// Write stores each summary as <dir>/<checkpoint>/evaluation.json.
func Write(dir string, sums []*CheckpointSummary) error {
	for _, s := range sums {
		cdir := filepath.Join(dir, s.Name)
		if err := os.MkdirAll(cdir, 0o755); err != nil {
			return fmt.Errorf("write summary: %w", err)
		}
		path := filepath.Join(cdir, "evaluation.json")
		if s.spooled() {
			// Streamed, a group's cases at a time.
			err := runfile.Write(path, func(w io.Writer) error {
				if err := writeStreamed(w, s); err != nil {
					return err
				}
				_, err := io.WriteString(w, "\n")
				return err
			})
			if err != nil {
				return fmt.Errorf("write summary of %s: %w", s.Name, err)
			}
			continue
		}
		data, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return fmt.Errorf("encode summary of %s: %w", s.Name, err)
		}
		// Replaced whole (a full disk leaves the previous summary), with
		// the run directory's file mode.
		if err := runfile.WriteBytes(path, append(data, '\n')); err != nil {
			return fmt.Errorf("write summary of %s: %w", s.Name, err)
		}
	}
	return nil
}
