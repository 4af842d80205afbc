package report

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/result"
)

// SetRunID links every summary to the run's manifest.
func (b *Builder) SetRunID(id string) { b.runID = id }

// orderGroups puts a checkpoint's groups in the given order (the run's,
// from its summary), whatever order the journal's records came in (groups
// run side by side with --jobs); groups not in it keep their place after.
func (b *Builder) orderGroups(checkpoint string, order []string) {
	s := b.cps[checkpoint]
	if s == nil || len(order) == 0 {
		return
	}
	rank := map[string]int{}
	for i, g := range order {
		rank[g] = i
	}
	slices.SortStableFunc(s.Groups, func(a, c string) int {
		ra, oka := rank[a]
		rc, okc := rank[c]
		switch {
		case oka && okc:
			return ra - rc
		case oka:
			return -1
		case okc:
			return 1
		}
		return 0
	})
}

// Judging is how a run's cases and checkpoints are judged: the pass
// policy, how errors count, and how many epochs each case ran and how they
// reduce (Epochs 0 or 1: one).
type Judging struct {
	Policy  result.Policy
	Errors  result.ErrorPolicy
	Epochs  int
	Reducer result.Reducer
}

// NewOpenBuilder builds summaries without the problem: checkpoints and
// groups appear in the order the records first name them, and checkpoints
// listed in order come first, in that order.
func NewOpenBuilder(problemName string, order []string, policy result.Policy) *Builder {
	b := &Builder{prob: &problem.Problem{Name: problemName}, policy: policy, cps: map[string]*CheckpointSummary{},
		open: true}
	for _, name := range order {
		b.newSummary(name, 0)
	}
	return b
}

// ensure creates the checkpoint and group a record names.
func (b *Builder) ensure(r *result.CaseRecord) {
	s := b.cps[r.Checkpoint]
	if s == nil {
		s = b.newSummary(r.Checkpoint, r.Version)
	}
	if s.Version == 0 {
		s.Version = r.Version
	}
	if s.ProblemName == "" || s.ProblemVersion == 0 {
		s.ProblemName, s.ProblemVersion = r.Problem, r.ProblemVersion
	}
	if s.Timestamp.IsZero() || r.StartedAt.Before(s.Timestamp) {
		s.Timestamp = r.StartedAt
	}
	if s.GroupOutcomes[r.Group] == nil {
		s.Groups = append(s.Groups, r.Group)
		g := &GroupOutcome{Type: r.GroupType, OriginalCheckpoint: r.OriginalCheckpoint,
			OriginalGroup: r.OriginalGroup, Results: map[string]float64{}, Failed: []string{}}
		s.GroupOutcomes[r.Group] = g
		if b.spool != nil {
			b.spoolGroup(g)
		}
	}
}

// FromRun rebuilds a run's summaries from its journal, streaming it (only
// counts and per-case scores are kept). What the journal cannot tell — a
// group that stopped early, an interrupted checkpoint — comes from the
// evaluation.json files the run wrote, when present.
func FromRun(dir string, order []string, j Judging, runID string) ([]*CheckpointSummary, error) {
	b := NewOpenBuilder("", order, j.Policy)
	b.SetErrorPolicy(j.Errors)
	if j.Epochs > 1 {
		b.SetEpochs(j.Epochs, j.Reducer)
	}
	b.SetRunID(runID)
	// A case's last attempt counts; the attempts retries replaced do not.
	if err := readLastAttempts(filepath.Join(dir, journal.FileName), func(r *result.CaseRecord) error {
		b.Add(r)
		return nil
	}); err != nil {
		return nil, err
	}
	for _, name := range b.order {
		prev, err := ReadSummaryCounts(dir, name)
		if err != nil {
			return nil, err
		}
		if prev == nil {
			continue
		}
		if !prev.Complete {
			b.Incomplete(name)
		}
		b.orderGroups(name, prev.Groups)
		for g, o := range prev.GroupOutcomes {
			if o.Error != "" {
				b.GroupError(name, g, o.Error)
			}
		}
	}
	// Checkpoints listed in order but never reached have no cases.
	sums := b.Summaries()
	for _, s := range sums {
		if s.Cases == 0 {
			s.Complete = false
			s.Passed = false
			s.Verdict = result.VerdictIncomplete
		}
	}
	return sums, nil
}

// ReadSummary reads <dir>/<checkpoint>/evaluation.json; nil when absent.
func ReadSummary(dir, checkpoint string) (*CheckpointSummary, error) {
	path := filepath.Join(dir, checkpoint, "evaluation.json")
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read summary: %w", err)
	}
	var s CheckpointSummary
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: not a checkpoint summary: %w", path, err)
	}
	return &s, nil
}

// ReadSummaryCounts is ReadSummary without the per-case entries (each
// group's results and failed are left nil): it reads the file as a
// stream and never holds them, however many cases the summary lists.
func ReadSummaryCounts(dir, checkpoint string) (*CheckpointSummary, error) {
	path := filepath.Join(dir, checkpoint, "evaluation.json")
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read summary: %w", err)
	}
	defer f.Close()
	// The summary is rebuilt as JSON without the entries, then decoded.
	dec := json.NewDecoder(bufio.NewReaderSize(f, 64<<10))
	fields, err := objectFields(dec, func(key string, dec *json.Decoder) (json.RawMessage, error) {
		if key != "group_outcomes" {
			return nil, nil
		}
		groups := map[string]json.RawMessage{}
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		if t == nil {
			return json.RawMessage("null"), nil
		}
		if t != json.Delim('{') {
			return nil, fmt.Errorf("group_outcomes: expected an object")
		}
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				return nil, err
			}
			name, _ := t.(string)
			g, err := objectFields(dec, func(key string, dec *json.Decoder) (json.RawMessage, error) {
				if key == "results" || key == "failed" {
					return json.RawMessage("null"), skipValue(dec)
				}
				return nil, nil
			})
			if err != nil {
				return nil, err
			}
			if groups[name], err = json.Marshal(g); err != nil {
				return nil, err
			}
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		return json.Marshal(groups)
	})
	if err != nil {
		return nil, fmt.Errorf("%s: not a checkpoint summary: %w", path, err)
	}
	data, err := json.Marshal(fields)
	if err != nil {
		return nil, err
	}
	var s CheckpointSummary
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: not a checkpoint summary: %w", path, err)
	}
	return &s, nil
}

// objectFields reads a JSON object's fields from dec as raw values; a
// field for which special returns a value (or an error) takes that
// instead, special having read it from dec. A null is an empty object.
func objectFields(dec *json.Decoder, special func(key string, dec *json.Decoder) (json.RawMessage, error)) (map[string]json.RawMessage, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, nil
	}
	if t != json.Delim('{') {
		return nil, errors.New("expected an object")
	}
	fields := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string)
		v, err := special(key, dec)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		if v == nil {
			if err := dec.Decode(&v); err != nil {
				return nil, fmt.Errorf("%s: %w", key, err)
			}
		}
		fields[key] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return fields, nil
}

// skipValue reads the next value from dec, token by token.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// Totals sums summaries across checkpoints.
type Totals struct {
	Cases, Passed, Failed, Errored, Unscored int
	Duration                                 float64
}

// Counted is how many cases count toward the pass rate: all but the
// unscored.
func (t Totals) Counted() int { return t.Cases - t.Unscored }

// Sum totals the summaries.
func Sum(sums []*CheckpointSummary) Totals {
	var t Totals
	for _, s := range sums {
		t.Cases += s.Cases
		t.Passed += s.CasesPassed
		t.Failed += s.CasesFailed
		t.Errored += s.CasesErrored
		t.Unscored += s.CasesUnscored
		t.Duration += s.Duration
	}
	return t
}
