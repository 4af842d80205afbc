package run

import (
	"context"
	"sync"

	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/result"
)

// GroupJob is one epoch of one group, as Run hands it to an Executor.
// Checkpoint, Group and Epoch name it; the rest says how its submission
// starts, for an executor that runs it in this process.
type GroupJob struct {
	Checkpoint string
	Group      string
	// Index is the group's place among its checkpoint's groups.
	Index int
	// Epoch is which of the run's epochs the job runs (0 without
	// --epochs).
	Epoch int
	// Submission is the checkpoint's submission directory.
	Submission string
	// Finished are the ids of the job's cases a resumed run's journal
	// holds already (nil for a fresh run): an executor that runs the
	// group elsewhere passes them on (Groups.Run), so it skips what a
	// resumed run in this process would skip.
	Finished []string

	job *groupJob
}

// Key names the job among the run's jobs: checkpoint, group and epoch.
func (j *GroupJob) Key() string { return epochKey(problem.GroupKey(j.Checkpoint, j.Group), j.Epoch) }

// Sink is where an Executor delivers what jobs produced. It is safe for
// concurrent use, and it keeps only what counts: a record of a case that
// already has its terminal record (a job delivered twice), or of a job
// already Done, is dropped, so an executor that delivers at least once
// gives each case exactly one terminal record in the journal.
type Sink interface {
	// Record keeps a finished case. retried: an attempt that ended in an
	// error and runs again. An error (the journal cannot be written)
	// stops the run.
	Record(job *GroupJob, rec *result.CaseRecord, retried bool) error
	// GroupError says the group stopped early; its cases not recorded
	// are left out, as a local group that fails is.
	GroupError(job *GroupJob, msg string)
	// Abandon records each case of the job that has no terminal record
	// yet as an error of the harness (not a failure of the submission),
	// with reason: the job could not be run (its deliveries ran out).
	Abandon(ctx context.Context, job *GroupJob, reason string) error
	// Done says the job will send nothing more; later records of it are
	// dropped.
	Done(job *GroupJob)
	// CacheCounts adds how the job's plugin calls, made in another
	// process, were answered to the run's verdict cache counts.
	CacheCounts(job *GroupJob, c CacheCounts)
}

// Executor runs a run's group jobs somewhere — in this process (the
// default, a pool of --jobs goroutines) or on other machines — and
// delivers their records to the sink. Execute returns once every job is
// Done or ctx ends; an error is one of the executor itself (its queue
// went away), not of a job.
type Executor interface {
	Execute(ctx context.Context, jobs []*GroupJob, sink Sink) error
}

// localExecutor runs groups in this process, Jobs at a time, each holding
// one of Slots while it runs when the run shares a pool. Groups are
// independent (own workspace, own case stream, nothing one group waits
// for from another), so running them concurrently cannot change any
// case's outcome, and a group holding a slot never waits for another's.
type localExecutor struct {
	opts    *Options
	plugins *pluginSet
}

func (l *localExecutor) Execute(ctx context.Context, jobs []*GroupJob, sink Sink) error {
	work := make(chan *GroupJob)
	var wg sync.WaitGroup
	for w := 0; w < max(l.opts.Jobs, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				if slots := l.opts.Slots; slots != nil {
					if slots.acquire(ctx) != nil {
						continue // interrupted: the job stays unfinished
					}
				}
				record := func(rec *result.CaseRecord, retried bool) error { return sink.Record(j, rec, retried) }
				r := &groupRunner{opts: l.opts, job: j.job, record: record, plugins: l.plugins}
				if err := r.run(ctx); err != nil && ctx.Err() == nil {
					sink.GroupError(j, err.Error())
				}
				sink.Done(j)
				if l.opts.Slots != nil {
					l.opts.Slots.release()
				}
			}
		}()
	}
feed:
	for _, j := range jobs {
		select {
		case work <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	return nil
}

// publicJobs is the jobs as an Executor sees them.
func publicJobs(jobs []*groupJob) []*GroupJob {
	out := make([]*GroupJob, len(jobs))
	for i, j := range jobs {
		out[i] = &GroupJob{Checkpoint: j.cp.Name, Group: j.group.Name, Index: j.index, Epoch: j.epoch, Submission: j.subDir, job: j}
	}
	return out
}
