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
	Passed bool          `json:"passed"`
	// Complete is false when the run was interrupted before every case of
	// the checkpoint finished.
	Complete bool `json:"complete"`

	Cases         int     `json:"cases"`
	CasesPassed   int     `json:"cases_passed"`
	MeanScore     float64 `json:"mean_score"`
	AdapterErrors int     `json:"adapter_errors"`
	TimedOut      int     `json:"timed_out"`
	// PluginErrors counts cases on which a plugin faulted.
	PluginErrors int `json:"plugin_errors"`
	// DuplicatesIgnored counts journal records of this checkpoint's cases
	// that were not counted: a case's first record counts, and a journal
	// written by two runs at once can hold more (see unique.go).
	DuplicatesIgnored int `json:"duplicate_records_ignored,omitempty"`

	PassCounts  map[problem.GroupType]int `json:"pass_counts"`
	TotalCounts map[problem.GroupType]int `json:"total_counts"`

	GroupOutcomes map[string]*GroupOutcome `json:"group_outcomes"`
	// Groups lists group names in run order (JSON maps have none).
	Groups []string `json:"groups"`
}

// GroupOutcome summarises one group.
type GroupOutcome struct {
	Type               problem.GroupType  `json:"type"`
	OriginalCheckpoint string             `json:"original_checkpoint,omitempty"`
	OriginalGroup      string             `json:"original_group,omitempty"`
	Duration           float64            `json:"duration"`
	Passed             int                `json:"passed"`
	Total              int                `json:"total"`
	Results            map[string]float64 `json:"results"`
	// Failed lists the ids of failing cases in run order.
	Failed []string `json:"failed"`
	// Error is set when the group could not run to the end (the
	// submission's workspace could not be prepared, the loader failed).
	Error string `json:"error,omitempty"`

	// cases holds Results and Failed when the builder spools them (see
	// Builder.Spool); they are nil then.
	cases *groupCases
}

// Builder accumulates records into per-checkpoint summaries. It keeps only
// counts and per-case scores, never outputs, so memory stays small; a
// spooling builder (Spool) keeps the per-case scores in a file.
type Builder struct {
	prob   *problem.Problem
	policy result.Policy
	cps    map[string]*CheckpointSummary
	order  []string
	scores map[string]float64 // sum of case scores per checkpoint
	start  time.Time
	// open: checkpoints and groups are created as records name them (a
	// report rebuilt from a journal, without the problem at hand).
	open  bool
	runID string
	// spool holds the per-case entries (see Spool); nil: the summaries
	// hold them.
	spool *caseSpool
}

// NewBuilder prepares summaries for the given checkpoints in run order.
func NewBuilder(p *problem.Problem, cps []*problem.Checkpoint, policy result.Policy, start time.Time) *Builder {
	b := &Builder{prob: p, policy: policy, cps: map[string]*CheckpointSummary{}, scores: map[string]float64{}, start: start}
	for _, cp := range cps {
		s := &CheckpointSummary{
			ProblemName: p.Name, ProblemVersion: p.Version, Name: cp.Name, Version: cp.Version,
			Timestamp: start.UTC(), Policy: policy, Complete: true,
			PassCounts: map[problem.GroupType]int{}, TotalCounts: map[problem.GroupType]int{},
			GroupOutcomes: map[string]*GroupOutcome{},
		}
		for _, g := range cp.Groups {
			s.Groups = append(s.Groups, g.Name)
			s.GroupOutcomes[g.Name] = &GroupOutcome{Type: g.Type, OriginalCheckpoint: g.OriginalCheckpoint,
				OriginalGroup: g.OriginalGroup, Results: map[string]float64{}, Failed: []string{}}
		}
		b.cps[cp.Name] = s
		b.order = append(b.order, cp.Name)
	}
	return b
}

// Add counts one finished case. A case already counted is not counted
// again: its first record counts (see unique.go), later ones are tallied
// in DuplicatesIgnored. The per-case scores the builder keeps anyway tell
// which cases it has seen, so this costs no memory of its own. (A
// spooling builder does not look: its caller gives each case once.)
func (b *Builder) Add(r *result.CaseRecord) {
	if b.open {
		b.ensure(r)
	}
	s, ok := b.cps[r.Checkpoint]
	if !ok {
		return
	}
	g := s.GroupOutcomes[r.Group]
	if g == nil {
		return
	}
	if g.cases != nil {
		g.cases.sum += r.Score
		g.cases.add(caseEntry{id: r.ID, score: r.Score, passed: r.Passed})
	} else {
		if _, dup := g.Results[r.ID]; dup {
			s.DuplicatesIgnored++
			return
		}
		g.Results[r.ID] = r.Score
		if !r.Passed {
			g.Failed = append(g.Failed, r.ID)
		}
	}
	g.Total++
	g.Duration += r.Duration
	if r.Passed {
		g.Passed++
	}
	s.Cases++
	b.scores[r.Checkpoint] += r.Score
	s.TotalCounts[r.GroupType]++
	if r.Passed {
		s.CasesPassed++
		s.PassCounts[r.GroupType]++
	}
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
}

// GroupError records that a group stopped early.
func (b *Builder) GroupError(checkpoint, group, msg string) {
	if s, ok := b.cps[checkpoint]; ok {
		if g := s.GroupOutcomes[group]; g != nil {
			g.Error = msg
		}
		s.Complete = false
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
	out := make([]*CheckpointSummary, 0, len(b.order))
	for _, name := range b.order {
		s := b.cps[name]
		if s.Cases > 0 {
			s.MeanScore = b.scores[name] / float64(s.Cases)
		}
		if b.runID != "" {
			s.RunID, s.Manifest = b.runID, "../manifest.json"
		}
		counts := result.Counts{Passed: s.PassCounts, Total: s.TotalCounts}
		s.Passed = s.Complete && b.policy.Check(counts)
		out = append(out, s)
	}
	return out
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
