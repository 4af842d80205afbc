package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/result"
)

// runSink is Run's Sink: the one place records reach the journal and the
// summaries. It remembers which cases of the jobs in flight have their
// terminal record, and which jobs are done — so what it holds grows with
// the groups, not with the cases, and a run of 100,000 cases keeps a set
// per group in flight only.
type runSink struct {
	opts *Options
	// keep appends to the journal and counts into the summaries (Run's
	// record func).
	keep func(rec *result.CaseRecord, retried bool) error
	fail func(j *groupJob, msg string)
	// closed hears that a job will send nothing more (the summaries
	// write out what they hold of its group).
	closed  func(j *groupJob)
	plugins *pluginSet

	mu       sync.Mutex
	inFlight map[string]map[string]bool // job key → case ids with a terminal record
	done     map[string]bool            // job keys
}

func newRunSink(opts *Options, plugins *pluginSet, keep func(*result.CaseRecord, bool) error, fail func(*groupJob, string), closed func(*groupJob)) *runSink {
	return &runSink{opts: opts, keep: keep, fail: fail, closed: closed, plugins: plugins, inFlight: map[string]map[string]bool{}, done: map[string]bool{}}
}

// claim says whether rec is the first of its kind to keep: not of a job
// already done, not a case finished before a resume, and (for a terminal
// record) not a case that has its terminal record already. The first
// terminal record of a case wins.
func (s *runSink) claim(j *GroupJob, rec *result.CaseRecord, retried bool) bool {
	if s.opts.Resume.has(epochKey(rec.Key(), rec.Epoch)) {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := j.Key()
	if s.done[key] {
		return false
	}
	seen := s.inFlight[key]
	if seen == nil {
		seen = map[string]bool{}
		s.inFlight[key] = seen
	}
	if seen[rec.ID] {
		return false
	}
	if !retried {
		seen[rec.ID] = true
	}
	return true
}

func (s *runSink) Record(j *GroupJob, rec *result.CaseRecord, retried bool) error {
	if !s.claim(j, rec, retried) {
		return nil
	}
	if s.opts.Executor != nil {
		// Another process ran the case without the journal: its attempts
		// count from 1, after the attempts the journal already holds
		// (a resumed run with --retry-errors).
		rec.Attempt = max(rec.Attempt, 1) + s.opts.Resume.attempts(epochKey(rec.Key(), rec.Epoch))
	}
	return s.keep(rec, retried)
}

func (s *runSink) GroupError(j *GroupJob, msg string) { s.fail(j.job, msg) }

func (s *runSink) CacheCounts(j *GroupJob, c CacheCounts) { s.plugins.cache.add(c) }

func (s *runSink) Done(j *GroupJob) {
	s.mu.Lock()
	delete(s.inFlight, j.Key())
	first := !s.done[j.Key()]
	s.done[j.Key()] = true
	s.mu.Unlock()
	if first && s.closed != nil {
		s.closed(j.job)
	}
}

// Abandon reads the job's cases from its loader (as the group would have)
// and records each one not recorded as an error of the harness. A
// loader that cannot be opened leaves the group's error instead.
func (s *runSink) Abandon(ctx context.Context, j *GroupJob, reason string) error {
	job, p := j.job, s.opts.Problem
	loader, err := s.plugins.loaderFor(ctx, job.group, s.opts.Loader)
	if err != nil {
		s.GroupError(j, reason+"; its cases cannot be listed: "+err.Error())
		return nil
	}
	stream, err := loader.Open(ctx, GroupInput(p, job.cp, job.group))
	if err != nil {
		s.GroupError(j, reason+"; its cases cannot be listed: "+err.Error())
		return nil
	}
	defer stream.Close()
	for idx := 0; ; idx++ {
		c, err := stream.Next(ctx, nil)
		if errors.Is(err, io.EOF) {
			return nil
		}
		id := ""
		var caseErr *cases.CaseError
		switch {
		case errors.As(err, &caseErr):
			id = caseErr.ID
		case err != nil:
			s.GroupError(j, fmt.Sprintf("%s; case %d and later cannot be listed: %v", reason, idx+1, err))
			return nil
		default:
			id = c.ID
		}
		rec := s.abandoned(job, c, id, idx, reason)
		if err := s.Record(j, rec, false); err != nil {
			return err
		}
	}
}

// abandoned is the record of a case its group never ran to the end: an
// error of the adapter (the harness), with why.
func (s *runSink) abandoned(j *groupJob, c *cases.Case, id string, idx int, reason string) *result.CaseRecord {
	p := s.opts.Problem
	rec := &result.CaseRecord{
		Problem: p.Name, ProblemVersion: p.Version, Checkpoint: j.cp.Name, Version: j.cp.Version,
		Group: j.group.Name, GroupType: j.group.Type, ID: id, Index: idx,
		OriginalCheckpoint: j.group.OriginalCheckpoint, OriginalGroup: j.group.OriginalGroup,
		StartedAt: time.Now().UTC(),
		Result:    result.Execution{StatusCode: -1, AdapterError: true, Error: "not run: " + reason},
		Epoch:     j.epoch,
	}
	if c != nil {
		rec.OriginalCheckpoint, rec.OriginalGroup = c.OriginalCheckpoint, c.OriginalGroup
		rec.Case = caseInfo(c)
	}
	// Record numbers it after the journal's attempts, as any record
	// that does not come from this process.
	rec.Attempt = 1
	classification(p).Classify(rec)
	return rec
}

// unfinished leaves out, for an executor other than this process's, the
// jobs of a resumed run whose every case is in the journal: their records
// may be gone from wherever the executor keeps them, and nothing would
// ever say they are done. A job whose cases cannot be counted (its
// loader does not say) is kept; the executor drops what it sends twice.
func (s *runSink) unfinished(ctx context.Context, jobs []*GroupJob) []*GroupJob {
	if s.opts.Resume == nil || s.opts.Executor == nil {
		return jobs
	}
	var out []*GroupJob
	for _, j := range jobs {
		if !s.jobFinished(ctx, j) {
			j.Finished = s.opts.Resume.finishedIDs(j.Checkpoint, j.Group, j.Epoch)
			out = append(out, j)
			continue
		}
		s.Done(j)
	}
	return out
}

func (s *runSink) jobFinished(ctx context.Context, j *GroupJob) bool {
	loader, err := s.plugins.loaderFor(ctx, j.job.group, s.opts.Loader)
	if err != nil {
		return false
	}
	stream, err := loader.Open(ctx, GroupInput(s.opts.Problem, j.job.cp, j.job.group))
	if err != nil {
		return false
	}
	defer stream.Close()
	return s.opts.Resume.groupDone(j.Checkpoint, j.Group, j.Epoch, stream.Len())
}
