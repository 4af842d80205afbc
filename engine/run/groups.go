package run

import (
	"context"
	"fmt"

	"github.com/wasmeval/wasmeval/engine/adapter"
	"github.com/wasmeval/wasmeval/engine/result"
)

// Groups runs single groups of one problem against one submission, as a
// worker of a distributed run does: the same runner as Run's, without a
// journal — each record goes to the caller, who sends it to the one
// process that writes the journal.
type Groups struct {
	opts    Options
	plugins *pluginSet
}

// NewGroups prepares to run opts.Problem's groups against
// opts.Submission: its plugins are loaded once, here. opts.OutDir is a
// directory of the caller's that the submission must not read (as a
// run's output directory); Jobs, Resume, Progress, Lock and Executor are
// not used.
func NewGroups(ctx context.Context, opts Options) (*Groups, error) {
	if opts.Progress == nil {
		opts.Progress = nopProgress{}
	}
	opts.Resume, opts.Executor = nil, nil
	plugins := newPluginSet(opts.Plugins, opts.Problem)
	plugins.cache = newVerdictCache(opts.VerdictCache)
	if err := plugins.preload(ctx, opts.Problem); err != nil {
		return nil, err
	}
	return &Groups{opts: opts, plugins: plugins}, nil
}

// Close keeps what the verdict cache learned.
func (g *Groups) Close() { g.plugins.cache.flush() }

// RunCounted is Run, also saying how the group's plugin calls were
// answered (a worker reports them to the run's coordinator).
func (g *Groups) RunCounted(ctx context.Context, checkpoint, group string, epoch int, finished []string, emit func(rec *result.CaseRecord, retried bool) error) (CacheCounts, error) {
	n := &callCounter{}
	err := g.Run(withCallCounter(ctx, n), checkpoint, group, epoch, finished, emit)
	return CacheCounts{Hits: n.hits.Load(), Misses: n.misses.Load()}, err
}

// Run runs one epoch (0 without epochs) of one group, calling emit with
// each case's record as it finishes (retried: an attempt that ended in an
// error and runs again). An error is the group's: it stopped early, and
// the cases not emitted did not finish. An error of emit stops it.
//
// finished are the ids of the group's cases a resumed run's journal holds
// (GroupJob.Finished): they are treated as a resumed run treats them —
// skipped in an isolated group, run again without a record in a group
// that shares its workspace — except that, without the journal, a case
// whose result a stateful loader needs runs again.
func (g *Groups) Run(ctx context.Context, checkpoint, group string, epoch int, finished []string, emit func(rec *result.CaseRecord, retried bool) error) error {
	p := g.opts.Problem
	cp := p.Checkpoint(checkpoint)
	if cp == nil {
		return fmt.Errorf("problem %s has no checkpoint %q", p.Name, checkpoint)
	}
	index := -1
	for i, gr := range cp.Groups {
		if gr.Name == group {
			index = i
		}
	}
	if index < 0 {
		return fmt.Errorf("checkpoint %s has no group %q", checkpoint, group)
	}
	if epoch < 0 {
		return fmt.Errorf("group %s/%s: epoch %d is negative", checkpoint, group, epoch)
	}
	sub := submissionFor(g.opts.Submission, cp.Name)
	var argv []string
	if !Recorded(p) {
		template := g.opts.Command
		if template == "" {
			template = p.Command
		}
		var err error
		if argv, err = adapter.EntryCommand(sub, p.EntryFile, template); err != nil {
			return fmt.Errorf("checkpoint %s: %w", cp.Name, err)
		}
	}
	job := &groupJob{cp: cp, group: cp.Groups[index], index: index, command: argv, subDir: sub, epoch: epoch}
	opts := g.opts
	opts.Resume = finishedFrom(cp.Name, group, epoch, finished)
	r := &groupRunner{opts: &opts, job: job, record: emit, plugins: g.plugins}
	return r.run(ctx)
}
