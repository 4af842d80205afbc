package run

import (
	"errors"
	"strconv"
	"strings"

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
	// retry holds the cases RetryErrors took out of cases: they run again,
	// and their attempt numbers go on from the one recorded.
	retry map[string]int
	// groups counts finished cases per checkpoint/group: a shared-workspace
	// group whose every case finished need not run again at all.
	groups map[string]int
	// ids lists the ids of each group's (epoch's) cases in the journal,
	// keyed as groups, for an executor that runs groups elsewhere
	// (GroupJob.Finished).
	ids map[string][]string
	// idsOnly says the journal is not at hand (a worker of a distributed
	// run knows only which cases finished, GroupJob.Finished): a finished
	// case whose recorded result a loader needs runs again instead of
	// being replayed.
	idsOnly bool
}

type finishedCase struct {
	offset  int64
	outcome result.Outcome
	kind    result.ErrorKind
	score   float64
	attempt int
}

// LoadFinished indexes the journal at path. A case's last attempt counts
// (the attempts before it ended in errors, and were retried); when an
// attempt has more than one record (a journal written by two processes
// before run directories were locked), the first one counts, as it does
// for a resumed shared group.
func LoadFinished(path string) (*Finished, error) {
	f := &Finished{path: path, cases: map[string]finishedCase{}, groups: map[string]int{}, retry: map[string]int{}, ids: map[string][]string{}}
	err := journal.ReadOffsets(path, func(r *result.CaseRecord, off int64) error {
		key := epochKey(r.Key(), r.Epoch)
		prev, seen := f.cases[key]
		if seen && max(r.Attempt, 1) <= prev.attempt {
			return nil
		}
		if !seen {
			group := epochKey(problem.GroupKey(r.Checkpoint, r.Group), r.Epoch)
			f.groups[group]++
			f.ids[group] = append(f.ids[group], r.ID)
		}
		f.cases[key] = finishedCase{offset: off, outcome: result.OutcomeOf(r), kind: result.ErrorKindOf(r), score: r.Score, attempt: max(r.Attempt, 1)}
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

// RetryErrors makes the cases whose last attempt ended in an error (other
// than one of loading) unfinished, so a resumed run with --retry-errors
// runs them again — a finished run's too. It returns how many.
func (f *Finished) RetryErrors() int {
	if f == nil {
		return 0
	}
	n := 0
	for key, fc := range f.cases {
		if fc.outcome != result.OutcomeError || fc.kind == result.ErrorLoad {
			continue
		}
		f.retry[key] = fc.attempt
		delete(f.cases, key)
		// A case key is its group's key, "/" and the escaped id (no "/"),
		// then the epoch after a NUL when it is not the first.
		group, epoch, _ := strings.Cut(key, "\x00")
		group = group[:strings.LastIndexByte(group, '/')]
		if epoch != "" {
			group += "\x00" + epoch
		}
		f.groups[group]--
		n++
	}
	return n
}

// attempts is how many attempts of the case the journal already holds
// (0 for a case never run).
func (f *Finished) attempts(key string) int {
	if f == nil {
		return 0
	}
	if n, ok := f.retry[key]; ok {
		return n
	}
	return f.cases[key].attempt
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

// finishedIDs lists the ids of the cases of a group's epoch that are
// finished (retried ones are not).
func (f *Finished) finishedIDs(checkpoint, group string, epoch int) []string {
	if f == nil {
		return nil
	}
	var out []string
	for _, id := range f.ids[epochKey(problem.GroupKey(checkpoint, group), epoch)] {
		if f.has(epochKey(problem.CaseKey(checkpoint, group, id), epoch)) {
			out = append(out, id)
		}
	}
	return out
}

// finishedFrom is what a worker knows of a resumed group's epoch: the ids
// of its finished cases, without their records (nil when there are none).
func finishedFrom(checkpoint, group string, epoch int, ids []string) *Finished {
	if len(ids) == 0 {
		return nil
	}
	f := &Finished{cases: map[string]finishedCase{}, groups: map[string]int{}, retry: map[string]int{}, idsOnly: true}
	for _, id := range ids {
		key := epochKey(problem.CaseKey(checkpoint, group, id), epoch)
		if _, dup := f.cases[key]; !dup {
			f.cases[key] = finishedCase{}
			f.groups[epochKey(problem.GroupKey(checkpoint, group), epoch)]++
		}
	}
	return f
}

// groupDone says whether every case of a group's epoch (of n, -1 when
// unknown) finished.
func (f *Finished) groupDone(checkpoint, group string, epoch, n int) bool {
	return f != nil && !f.idsOnly && n >= 0 && f.groups[epochKey(problem.GroupKey(checkpoint, group), epoch)] >= n
}

// epochKey names a case's (or a group's) epoch among the finished: its
// key alone for the first epoch (as runs without epochs recorded it), and
// the epoch after a NUL, which no name holds, for the others.
func epochKey(key string, epoch int) string {
	if epoch <= 1 {
		return key
	}
	return key + "\x00" + strconv.Itoa(epoch)
}

// addTo counts the finished cases of the selected checkpoints into the
// summaries, so they cover the whole run and not only what ran this time.
func (f *Finished) addTo(b *report.Builder, selected map[string]bool) error {
	return journal.ReadOffsets(f.path, func(r *result.CaseRecord, off int64) error {
		// Only the record that counts for its case (see LoadFinished).
		if fc, ok := f.cases[epochKey(r.Key(), r.Epoch)]; ok && selected[r.Checkpoint] && fc.offset == off {
			b.Add(r)
		}
		return nil
	})
}

// replay stands in for running a finished case: progress sees it, and a
// loader that keeps history gets the recorded result.
func (r *groupRunner) replay(c *cases.Case, history *[]cases.Outcome, keepHistory bool) error {
	fc := r.opts.Resume.cases[r.key(c)]
	r.opts.Progress.CaseFinished(&result.CaseRecord{Checkpoint: c.Checkpoint, Group: c.Group, ID: c.ID,
		Passed: fc.outcome == result.OutcomePassed, Outcome: fc.outcome, Score: fc.score, Epoch: r.epoch()})
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
