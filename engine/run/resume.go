package run

import (
	"errors"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/result"
)

// Finished is what an interrupted run already has: each finished case by
// key, with its journal offset and verdict. Only these small entries are
// held; a full record is read back from the journal when needed.
//
// How a resumed run treats a finished case depends on its group:
//   - isolated groups (a fresh workspace per case): the case is skipped;
//   - shared-workspace groups: the case runs again, so the workspace holds
//     what later cases expect, but its new result is discarded — the
//     journal keeps the first one;
//   - loaders that see earlier results (stateful groups): the loader is
//     fed the journal's recorded results for finished cases, so it
//     produces the same later cases it would have.
type Finished struct {
	path  string
	cases map[string]finishedCase
	// groups counts finished cases per checkpoint/group: a shared-workspace
	// group whose every case finished need not run again at all.
	groups map[string]int
}

type finishedCase struct {
	offset  int64
	outcome result.Outcome
	score   float64
}

// LoadFinished indexes the journal at path. When a case has more than one
// record (a journal written by two processes before run directories were
// locked), the first one counts, as it does for a resumed shared group.
func LoadFinished(path string) (*Finished, error) {
	f := &Finished{path: path, cases: map[string]finishedCase{}, groups: map[string]int{}}
	err := journal.ReadOffsets(path, func(r *result.CaseRecord, off int64) error {
		if _, dup := f.cases[r.Key()]; !dup {
			f.groups[problem.GroupKey(r.Checkpoint, r.Group)]++
			f.cases[r.Key()] = finishedCase{offset: off, outcome: result.OutcomeOf(r), score: r.Score}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// LoadFinishedSalvaging is LoadFinished for a resume: a journal with
// corrupt lines has them set aside first (journal.Salvage, into
// journal.SetAsideName) and they are returned, so the caller can say which
// lines were moved; their cases are not finished and run again. nil when
// the journal was sound. The caller holds the run directory's lock.
func LoadFinishedSalvaging(path string) (*Finished, *journal.Corruption, error) {
	f, err := LoadFinished(path)
	var ce *journal.CorruptError
	if !errors.As(err, &ce) {
		return f, nil, err
	}
	c, err := journal.Salvage(path)
	if err != nil {
		return nil, nil, err
	}
	if f, err = LoadFinished(path); err != nil {
		return nil, nil, err
	}
	return f, c, nil
}

// Len is how many cases are finished.
func (f *Finished) Len() int {
	if f == nil {
		return 0
	}
	return len(f.cases)
}

func (f *Finished) has(key string) bool {
	if f == nil {
		return false
	}
	_, ok := f.cases[key]
	return ok
}

// groupDone says whether every case of a group (of n, -1 when unknown)
// finished.
func (f *Finished) groupDone(checkpoint, group string, n int) bool {
	return f != nil && n >= 0 && f.groups[problem.GroupKey(checkpoint, group)] >= n
}

// addTo counts the finished cases of the selected checkpoints into the
// summaries, so they cover the whole run and not only what ran this time.
func (f *Finished) addTo(b *report.Builder, selected map[string]bool) error {
	return journal.ReadOffsets(f.path, func(r *result.CaseRecord, off int64) error {
		// Only the record that counts for its case (see LoadFinished).
		if selected[r.Checkpoint] && f.cases[r.Key()].offset == off {
			b.Add(r)
		}
		return nil
	})
}

// replay stands in for running a finished case: progress sees it, and a
// loader that keeps history gets the recorded result.
func (r *groupRunner) replay(c *cases.Case, history *[]cases.Outcome, keepHistory bool) error {
	fc := r.opts.Resume.cases[c.Key()]
	r.opts.Progress.CaseFinished(&result.CaseRecord{Checkpoint: c.Checkpoint, Group: c.Group, ID: c.ID,
		Passed: fc.outcome == result.OutcomePassed, Outcome: fc.outcome, Score: fc.score})
	if !keepHistory {
		return nil
	}
	rec, err := journal.ReadAt(r.opts.Resume.path, fc.offset)
	if err != nil {
		return err
	}
	*history = append(*history, cases.Outcome{Case: c, Actual: actualOf(rec.Result)})
	return nil
}
