package report

import (
	"strconv"

	"github.com/wasmeval/wasmeval/engine/result"
)

// A run with --epochs K journals K records per case, one per epoch. The
// builder holds each case's epochs (a few numbers per epoch) until the
// last one comes, reduces them with the run's reducer to the one record
// its group counts, and notes whether the case was flaky and what its
// pass@k and pass^k are. Groups run their epochs one after another, so
// what is held is the cases between a group's first and last epoch.

// caseEpochs is what the builder holds of a case until its epochs are in.
type caseEpochs struct {
	head     result.CaseRecord // checkpoint, group, type, id, index
	seen     []bool            // by epoch
	n        int
	epochs   result.Epochs
	duration float64
	kind     result.ErrorKind // of the last errored epoch
}

// passKSums are a checkpoint's sums of pass@k and pass^k over its cases,
// with how many cases each k was defined for.
type passKSums struct {
	at, hat []float64
	cases   []int
}

// SetEpochs says that each case runs k times and how its epochs reduce
// (result.DefaultReducer when r is empty). Records then count by case:
// Add holds them until every epoch of the case is in.
func (b *Builder) SetEpochs(k int, r result.Reducer) {
	if r == "" {
		r = result.DefaultReducer
	}
	b.epochs, b.reducer = k, r
	b.pending = map[string]*caseEpochs{}
	b.passK = map[string]*passKSums{}
}

// addEpoch holds one epoch's record of a case, and reduces the case once
// its epochs are in. A second record of an epoch is a duplicate.
func (b *Builder) addEpoch(r *result.CaseRecord) {
	key := r.Key()
	ce := b.pending[key]
	if ce == nil {
		ce = &caseEpochs{seen: make([]bool, b.epochs)}
		ce.head = result.CaseRecord{Problem: r.Problem, ProblemVersion: r.ProblemVersion, Checkpoint: r.Checkpoint,
			Version: r.Version, Group: r.Group, GroupType: r.GroupType, ID: r.ID, Index: r.Index,
			OriginalCheckpoint: r.OriginalCheckpoint, OriginalGroup: r.OriginalGroup, StartedAt: r.StartedAt, Case: r.Case}
		b.pending[key] = ce
	}
	e := max(r.Epoch, 1)
	if e > b.epochs || ce.seen[e-1] {
		if s := b.cps[r.Checkpoint]; s != nil {
			s.DuplicatesIgnored++
		}
		return
	}
	ce.seen[e-1] = true
	ce.n++
	if s := b.cps[r.Checkpoint]; s != nil {
		s.Retries += max(r.Attempt, 1) - 1
	}
	ce.epochs.Add(r)
	ce.duration += r.Duration
	if result.OutcomeOf(r) == result.OutcomeError {
		ce.kind = result.ErrorKindOf(r)
	}
	if ce.n == b.epochs {
		b.reduce(key, ce)
	}
}

// reduce counts a case from its epochs.
func (b *Builder) reduce(key string, ce *caseEpochs) {
	delete(b.pending, key)
	rec := ce.head
	rec.Outcome, rec.Score = ce.epochs.Reduce(b.reducer)
	rec.Passed = rec.Outcome == result.OutcomePassed
	rec.Duration = ce.duration
	if rec.Outcome == result.OutcomeError {
		rec.ErrorKind = ce.kind
	}
	b.add(&rec)
	s := b.cps[rec.Checkpoint]
	if s == nil {
		return
	}
	g := s.GroupOutcomes[rec.Group]
	n, c := len(ce.epochs.Judged), ce.epochs.Passed
	if n >= 2 && g != nil {
		g.multi++
		if ce.epochs.Flaky() {
			g.Flaky = append(g.Flaky, rec.ID)
			s.CasesFlaky++
		}
	}
	s.EpochErrors += ce.epochs.Errors
	sums := b.passK[rec.Checkpoint]
	if sums == nil {
		sums = &passKSums{at: make([]float64, b.epochs), hat: make([]float64, b.epochs), cases: make([]int, b.epochs)}
		b.passK[rec.Checkpoint] = sums
	}
	for k := 1; k <= n && k <= b.epochs; k++ {
		sums.at[k-1] += result.PassAtK(n, c, k)
		sums.hat[k-1] += result.PassHatK(n, c, k)
		sums.cases[k-1]++
	}
}

// finishEpochs sets a summary's epoch fields.
func (b *Builder) finishEpochs(s *CheckpointSummary) {
	if b.epochs <= 1 {
		return
	}
	s.Epochs, s.Reducer = b.epochs, b.reducer
	for _, g := range s.GroupOutcomes {
		g.Flakiness = 0
		if g.multi > 0 {
			g.Flakiness = float64(len(g.Flaky)) / float64(g.multi)
		}
	}
	sums := b.passK[s.Name]
	if sums == nil {
		return
	}
	s.PassAtK, s.PassHatK = map[string]float64{}, map[string]float64{}
	for k := 1; k <= b.epochs; k++ {
		if n := sums.cases[k-1]; n > 0 {
			s.PassAtK[strconv.Itoa(k)] = sums.at[k-1] / float64(n)
			s.PassHatK[strconv.Itoa(k)] = sums.hat[k-1] / float64(n)
		}
	}
}
