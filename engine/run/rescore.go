package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
	"github.com/wasmeval/wasmeval/engine/workspace"
	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/callcache"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// Rescoring runs the checks of a finished run again on the results its
// journal recorded, without running the submission: the problem's cases
// as they are now give the expected values, its checks and plugins (or a
// replacement verifier, see WithVerifier) the verdicts. The cases come
// from the problem's loaders, group by group in order, as in a run; each
// case's recorded result is read from the old journal when its case comes
// (reading the group's records in journal order, see rescore_journal.go)
// and verified with the other cases of its batch (one verifier plugin
// call per batch, where the plugin answers batches). The new records go
// to a new journal in a new run directory, and the summaries' per-case
// entries to a temporary file until they are written. So memory holds a
// batch of records per group running, and nothing that grows with the
// journal.

// RescoreOptions says what to rescore and how.
type RescoreOptions struct {
	// Problem is the problem as it is now (with WithVerifier's
	// replacement verifier, if any).
	Problem *problem.Problem
	// From is the run directory rescored: its journal gives each case's
	// recorded result, and its checkpoint summaries what its run could
	// not finish. It is only read.
	From string
	// Checkpoints selects checkpoints by name (the run's own selection);
	// empty means all, in order.
	Checkpoints []string
	// Jobs is how many groups are rescored at once (default 1).
	Jobs int
	// Policy decides whether a checkpoint passes.
	Policy result.Policy
	// ErrorPolicy says how errored cases count (the default when empty).
	ErrorPolicy result.ErrorPolicy
	// Epochs and Reducer are the rescored run's (--epochs): each epoch's
	// records are rescored, and reduced as the run reduced them.
	Epochs  int
	Reducer result.Reducer
	// Loader returns a built-in loader by name.
	Loader func(name string) (cases.Loader, bool)
	// Plugins runs the problem's plugins; nil is fine for problems that
	// reference none.
	Plugins *host.Host
	// VerdictCache is the run's (Options.VerdictCache); nil: every call
	// is made.
	VerdictCache *callcache.Store
	// Verifier, when set, verifies in place of each group's verifier
	// plugin (see WithVerifier).
	Verifier *problem.PluginRef
}

// RescoreTarget says where a rescore writes.
type RescoreTarget struct {
	// OutDir receives the new journal and summaries; it must not hold a
	// journal.
	OutDir string
	// RunID links the summaries to the new run's manifest.
	RunID string
	// Lock is OutDir's writer lock, held by a caller that writes more of
	// the directory (the manifest); nil: Run takes it itself.
	Lock *journal.Lock
	// Progress receives events; nil means none.
	Progress Progress
}

// Rescorer is a rescore checked and ready to write: its plugins are
// loaded and the rescored journal is indexed.
type Rescorer struct {
	opts    RescoreOptions
	cps     []*problem.Checkpoint
	plugins *pluginSet
	from    string // the rescored journal
	idx     *journalIndex
	prev    []*report.CheckpointSummary // without their per-case entries
	used    bool
}

// RescoreOutcome is what a rescore produced. Its summaries have their
// counts and each group's mean score, but not the per-case entries (each
// group's Results and Failed are nil): those are in the evaluation.json
// files the rescore wrote.
type RescoreOutcome struct {
	Outcome
	// Rescored counts the cases given a new verdict.
	Rescored int
	// VerdictsChanged counts the cases that pass now and failed in the
	// rescored run, or the other way round; ScoresChanged those whose
	// score changed (whatever their verdict).
	VerdictsChanged, ScoresChanged int
	// NotRun counts the problem's cases that have no result in the
	// rescored run: they are not in the new run either.
	NotRun int
	// Unloadable counts recorded cases the problem cannot load now: they
	// fail, with the loader's message, as in a run.
	Unloadable int
	// InputsDiffer counts cases whose arguments, stdin, environment or
	// input file names now differ from what the submission was given:
	// their recorded results answer other inputs.
	InputsDiffer int
	// LeftOut counts records of the rescored run that no case of the
	// problem claimed (a case it no longer has, a checkpoint not
	// selected, a group that could not be loaded); LeftOutKeys names the
	// first few.
	LeftOut     int
	LeftOutKeys []string
	// Duplicates counts records ignored because their case had an
	// earlier record (the first counts, as in every report).
	Duplicates int
}

// rescoreBatchCases and rescoreBatchBytes bound a batch: the records of
// one group verified together, held until they are written. A batch is
// as large as a verifier plugin's batch call can be, so a plugin that
// answers batches is called once per batch.
const (
	rescoreBatchCases = host.MaxBatchCalls
	rescoreBatchBytes = 4 << 20
)

// fromRunNote starts a group's error that the rescored run recorded.
const fromRunNote = "in the rescored run: "

// leftOutShown is how many keys of left-out records are named.
const leftOutShown = 5

// WithVerifier returns a copy of p in which every group that binds a
// verifier plugin binds ref instead, keeping the group's config. p itself
// is not changed. It is an error when no group binds one. ref.Path must
// be absolute and ref.SHA256 set.
func WithVerifier(p *problem.Problem, ref *problem.PluginRef) (*problem.Problem, error) {
	if ref == nil || ref.Path == "" || !filepath.IsAbs(ref.Path) || ref.SHA256 == "" {
		return nil, fmt.Errorf("replacement verifier: an absolute path and a sha256 are required")
	}
	cp := *p
	cp.GivenPlugins = map[string]bool{filepath.Clean(ref.Path): true}
	for path := range p.GivenPlugins {
		cp.GivenPlugins[path] = true
	}
	cp.Checkpoints = make([]*problem.Checkpoint, len(p.Checkpoints))
	copied := map[*problem.Group]*problem.Group{}
	replaced := 0
	for i, c := range p.Checkpoints {
		nc := *c
		nc.Groups = make([]*problem.Group, len(c.Groups))
		for j, g := range c.Groups {
			ng, ok := copied[g]
			if !ok {
				ng = g
				if g.Verifier != nil {
					dup := *g
					v := *ref
					v.Config, v.At = g.Verifier.Config, g.Verifier.At
					dup.Verifier = &v
					ng = &dup
					replaced++
				}
				copied[g] = ng
			}
			nc.Groups[j] = ng
		}
		cp.Checkpoints[i] = &nc
	}
	if replaced == 0 {
		return nil, fmt.Errorf("no group of problem %s binds a verifier plugin: there is none to replace", p.Name)
	}
	return &cp, nil
}

// PrepareRescore checks everything a rescore needs before anything is
// written: the checkpoints, the problem's plugins (compiled and their
// bindings checked, as before a run) and the rescored run's journal
// (indexed: a corrupt line is a *journal.Corruption listing every one)
// and summaries.
func PrepareRescore(ctx context.Context, opts RescoreOptions) (*Rescorer, error) {
	if opts.Jobs < 1 {
		opts.Jobs = 1
	}
	if opts.Policy == "" {
		opts.Policy = result.DefaultPolicy
	}
	p := opts.Problem
	if opts.Verifier != nil {
		var err error
		if p, err = WithVerifier(p, opts.Verifier); err != nil {
			return nil, err
		}
		opts.Problem = p
	}
	cps, err := SelectCheckpoints(p, opts.Checkpoints)
	if err != nil {
		return nil, err
	}
	from := filepath.Join(opts.From, journal.FileName)
	if _, err := os.Stat(from); err != nil {
		return nil, fmt.Errorf("%s is not a run directory (no %s): %w", opts.From, journal.FileName, err)
	}
	plugins := newPluginSet(opts.Plugins, p)
	plugins.cache = newVerdictCache(opts.VerdictCache)
	if opts.Verifier != nil {
		// Said once, of the file given, rather than at every group.
		if _, err := plugins.get(ctx, opts.Verifier, abi.KindVerifier); err != nil {
			return nil, fmt.Errorf("verifier %s: %w", opts.Verifier.Path, err)
		}
	}
	if err := plugins.preload(ctx, p); err != nil {
		return nil, err
	}
	idx, err := indexJournal(from)
	if err != nil {
		return nil, err
	}
	// What the rescored run itself could not finish stays unfinished.
	var prev []*report.CheckpointSummary
	for _, cp := range cps {
		s, err := report.ReadSummaryCounts(opts.From, cp.Name)
		if err != nil {
			return nil, err
		}
		if s != nil {
			prev = append(prev, s)
		}
	}
	return &Rescorer{opts: opts, cps: cps, plugins: plugins, from: from, idx: idx, prev: prev}, nil
}

// Problem is the problem the rescore verifies with: the one given, with
// the replacement verifier when one was given.
func (rs *Rescorer) Problem() *problem.Problem { return rs.opts.Problem }

// Rescore is PrepareRescore and Run.
func Rescore(ctx context.Context, opts RescoreOptions, to RescoreTarget) (*RescoreOutcome, error) {
	r, err := PrepareRescore(ctx, opts)
	if err != nil {
		return nil, err
	}
	return r.Run(ctx, to)
}

// Run verifies again every recorded case of the rescored run and writes
// the new verdicts to a new journal in to.OutDir, with the checkpoint
// summaries. A verifier that faults fails the cases it faults on, as in
// a run. A Rescorer runs once.
func (rs *Rescorer) Run(ctx context.Context, to RescoreTarget) (*RescoreOutcome, error) {
	defer rs.plugins.cache.flush()
	if rs.used {
		return nil, errors.New("a rescore runs once")
	}
	rs.used = true
	if to.Progress == nil {
		to.Progress = nopProgress{}
	}
	opts, cps, plugins, from, idx, p := &rs.opts, rs.cps, rs.plugins, rs.from, rs.idx, rs.opts.Problem
	if err := os.MkdirAll(to.OutDir, 0o755); err != nil {
		return nil, fmt.Errorf("create output directory: %w", err)
	}
	if to.Lock == nil {
		lock, err := journal.LockDir(to.OutDir)
		if err != nil {
			return nil, err
		}
		defer lock.Unlock()
	}
	jpath := filepath.Join(to.OutDir, journal.FileName)
	if st, err := os.Stat(jpath); err == nil && st.Size() > 0 {
		return nil, fmt.Errorf("%s already holds results: a rescore writes a new run directory", to.OutDir)
	}
	artifacts, err := artifactsFrom(to.OutDir, opts.From)
	if err != nil {
		return nil, err
	}
	// One reader of the rescored journal per worker.
	readers := make([]*journal.Reader, opts.Jobs)
	for i := range readers {
		if readers[i], err = journal.OpenReader(from); err != nil {
			return nil, err
		}
		defer readers[i].Close()
	}
	jw, err := journal.Create(jpath)
	if err != nil {
		return nil, err
	}
	defer jw.Close()
	parent := ctx
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)

	builder := report.NewBuilder(p, cps, opts.Policy, time.Now())
	builder.SetErrorPolicy(opts.ErrorPolicy)
	builder.SetRunID(to.RunID)
	if opts.Epochs > 1 {
		builder.SetEpochs(opts.Epochs, opts.Reducer)
	}
	// Each case comes once: its per-case entries can wait in a file.
	if err := builder.Spool(); err != nil {
		return nil, err
	}
	defer builder.Close()
	for _, s := range rs.prev {
		if !s.Complete {
			builder.Incomplete(s.Name)
		}
		for _, g := range slices.Sorted(maps.Keys(s.GroupOutcomes)) {
			if msg := s.GroupOutcomes[g].Error; msg != "" {
				if !strings.HasPrefix(msg, fromRunNote) {
					msg = fromRunNote + msg
				}
				builder.GroupError(s.Name, g, msg)
			}
		}
	}
	out := &RescoreOutcome{}
	var left leftOut
	var mu sync.Mutex // guards builder, out and the first journal error
	var journalErr error
	// record appends a batch's new records (in one write) and counts
	// them; was are their recorded ones.
	record := func(recs, was []*result.CaseRecord) error {
		if err := jw.AppendAll(recs); err != nil {
			mu.Lock()
			if journalErr == nil {
				journalErr = err
			}
			mu.Unlock()
			stop(err)
			return err
		}
		mu.Lock()
		for i, rec := range recs {
			builder.Add(rec)
			out.Rescored++
			if result.OutcomeOf(rec) != result.OutcomeOf(was[i]) {
				out.VerdictsChanged++
			}
			if rec.Score != was[i].Score {
				out.ScoresChanged++
			}
		}
		mu.Unlock()
		for _, rec := range recs {
			to.Progress.CaseFinished(rec)
		}
		return nil
	}
	groupErr := func(j *groupJob, msg string) {
		mu.Lock()
		builder.GroupError(j.cp.Name, j.group.Name, msg)
		mu.Unlock()
		to.Progress.GroupError(j.cp.Name, j.group.Name, msg)
	}
	// notRun: cases the rescored run never ran leave their checkpoint
	// incomplete, as the run itself was.
	notRun := func(j *groupJob, msg string) {
		groupErr(j, msg)
		mu.Lock()
		builder.Incomplete(j.cp.Name)
		mu.Unlock()
	}
	// A run with epochs is rescored epoch by epoch: each job reads its
	// epoch's records.
	var jobs []*groupJob
	for _, e := range jobEpochs(opts.Epochs) {
		for _, cp := range cps {
			for i, g := range cp.Groups {
				jobs = append(jobs, &groupJob{cp: cp, group: g, index: i, epoch: e})
				idx.markRead(cp.Name, g.Name)
			}
		}
	}
	env := verify.Env{RawJSON: true, ReadProblemFile: func(rel string) ([]byte, error) {
		return workspace.ReadFile(p.Dir, rel, host.DefaultAssetBytes)
	}}
	work := make(chan *groupJob)
	var wg sync.WaitGroup
	for _, rd := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				g := &groupRescorer{opts: opts, progress: to.Progress, job: j, plugins: plugins, env: env, recorded: idx.reader(rd, j.cp.Name, j.group.Name, max(j.epoch, 1)),
					artifacts: artifacts, record: record, groupErr: groupErr, notRunErr: notRun}
				err := g.run(ctx)
				if err != nil && ctx.Err() == nil {
					groupErr(j, err.Error())
				}
				// The records no case claimed (read on even after an
				// error: they are not rescored).
				var rest []int64
				if ctx.Err() == nil {
					if rest, err = g.recorded.rest(); err != nil {
						groupErr(j, err.Error())
					}
				}
				left.add(rest)
				mu.Lock()
				builder.GroupDone(j.cp.Name, j.group.Name)
				out.NotRun += g.notRun
				out.Unloadable += g.unloadable
				out.InputsDiffer += g.inputsDiffer
				out.Duplicates += g.recorded.duplicates
				mu.Unlock()
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

	interrupted := parent.Err() != nil
	if interrupted || journalErr != nil {
		for _, cp := range cps {
			builder.Incomplete(cp.Name)
		}
	}
	sums := builder.Summaries()
	if journalErr != nil {
		_ = report.Write(to.OutDir, sums) // the journal's error is the one to report
		return nil, &JournalError{Err: journalErr, Path: jpath, Kept: jw.Kept()}
	}
	if err := report.Write(to.OutDir, sums); err != nil {
		return nil, err
	}
	if !interrupted {
		// The groups of the rescored run that no group of the problem
		// reads are left out whole.
		for _, g := range idx.unread() {
			r := idx.reader(readers[0], g.name.checkpoint, g.name.group, 0)
			rest, err := r.rest()
			if err != nil {
				return nil, err
			}
			left.add(rest)
			out.Duplicates += r.duplicates
		}
		out.LeftOut = left.n
		if out.LeftOutKeys, err = left.keys(readers[0]); err != nil {
			return nil, err
		}
	}
	out.Outcome = Outcome{Summaries: sums, Interrupted: interrupted, JournalPath: jpath, VerdictCache: rs.plugins.cache.counts()}
	out.decide()
	return out, nil
}

// artifactsFrom is the path, relative to the new run directory, of the
// rescored one: a record's artifacts are files of the rescored run, named
// relative to its directory.
func artifactsFrom(outDir, from string) (string, error) {
	absOut, err := filepath.Abs(outDir)
	if err != nil {
		return "", err
	}
	absFrom, err := filepath.Abs(from)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(absOut, absFrom)
	if err != nil {
		return absFrom, nil
	}
	return rel, nil
}

// groupRescorer rescores one group: its cases in order, each with its
// recorded result, verified in batches.
type groupRescorer struct {
	opts      *RescoreOptions
	progress  Progress
	job       *groupJob
	plugins   *pluginSet
	env       verify.Env
	recorded  *groupRecords
	artifacts string
	record    func(recs, was []*result.CaseRecord) error
	groupErr  func(j *groupJob, msg string)
	notRunErr func(j *groupJob, msg string)

	keepHistory bool
	batch       []rescoreItem
	batchBytes  int

	notRun       int
	notRunIDs    []string
	unloadable   int
	inputsDiffer int
}

// rescoreItem is one case of a batch with its recorded result. done, when
// set, is the case's new record already (nothing to verify).
type rescoreItem struct {
	c    *cases.Case
	was  *result.CaseRecord
	done *result.CaseRecord
}

func (r *groupRescorer) run(ctx context.Context) error {
	j, p := r.job, r.opts.Problem
	g := j.group
	loader, err := r.plugins.loaderFor(ctx, g, r.opts.Loader)
	if err != nil {
		return err
	}
	stream, err := loader.Open(ctx, GroupInput(p, j.cp, g))
	if err != nil {
		return fmt.Errorf("load cases: %w", err)
	}
	defer stream.Close()
	r.progress.GroupStarted(j.cp.Name, g.Name, stream.Len())
	defer r.progress.GroupFinished(j.cp.Name, g.Name)
	defer r.noteNotRun()

	if h, ok := stream.(interface{ NeedsHistory() bool }); ok {
		r.keepHistory = h.NeedsHistory()
	}
	// The cases read before a failure (of the loader, of the journal)
	// are still verified and kept.
	err = r.readCases(ctx, stream)
	if ferr := r.flush(ctx); err == nil {
		err = ferr
	}
	return err
}

// readCases reads the group's cases and queues each with its recorded
// result.
func (r *groupRescorer) readCases(ctx context.Context, stream cases.Stream) error {
	var history []cases.Outcome
	for i := 0; ; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		c, err := stream.Next(ctx, history)
		if errors.Is(err, io.EOF) {
			return nil
		}
		var caseErr *cases.CaseError
		if errors.As(err, &caseErr) && ctx.Err() == nil {
			if err := r.unloadableCase(ctx, caseErr, i); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("load case %d: %w", i+1, err)
		}
		was, err := r.recorded.find(c.Checkpoint, c.Group, c.ID)
		if err != nil {
			return err
		}
		if was == nil {
			r.notRun++
			if len(r.notRunIDs) < 3 {
				r.notRunIDs = append(r.notRunIDs, c.ID)
			}
			if r.keepHistory {
				// Its loader makes later cases from earlier results, and
				// this one has none: what it would make next is unknown.
				return nil
			}
			continue
		}
		if r.keepHistory {
			history = append(history, cases.Outcome{Case: c, Actual: actualOf(was.Result)})
		}
		if err := r.add(ctx, rescoreItem{c: c, was: was}); err != nil {
			return err
		}
	}
}

// noteNotRun says, on the group, which of its cases have no result in the
// rescored run: the checkpoint is then incomplete.
func (r *groupRescorer) noteNotRun() {
	if r.notRun == 0 {
		return
	}
	msg := fmt.Sprintf("%d case(s) have no result in the rescored run (not run there): %s", r.notRun, strings.Join(r.notRunIDs, ", "))
	if r.notRun > len(r.notRunIDs) {
		msg += ", …"
	}
	if r.keepHistory {
		msg += "; its loader makes later cases from earlier results, so the group stops at the first of them"
	}
	r.notRunErr(r.job, msg)
}

// unloadableCase handles a case the problem's loader cannot produce now.
// When the rescored run has a record of it, it fails as in a run (with
// the loader's message); when it has none, it was not run.
func (r *groupRescorer) unloadableCase(ctx context.Context, e *cases.CaseError, i int) error {
	j := r.job
	was, err := r.recorded.find(j.cp.Name, j.group.Name, e.ID)
	if err != nil {
		return err
	}
	if was == nil {
		r.notRun++
		if len(r.notRunIDs) < 3 {
			r.notRunIDs = append(r.notRunIDs, e.ID)
		}
		return nil
	}
	r.unloadable++
	gr := &groupRunner{opts: &Options{Problem: r.opts.Problem}, job: j}
	rec := gr.unloadable(e, i)
	rec.Index = was.Index
	return r.add(ctx, rescoreItem{was: was, done: rec})
}

// add queues an item, verifying the batch once it is full.
func (r *groupRescorer) add(ctx context.Context, it rescoreItem) error {
	if it.done == nil && it.was.Case == nil && it.was.Result.AdapterError {
		// The rescored run could not load this case: the submission
		// never ran it, and there is nothing to verify. Its record stays.
		it.done = it.was
	}
	if it.done == nil && it.was.Result.AdapterError {
		// The adapter failed there (the server never answered…): there
		// is no answer to verify, as in a run (see unanswered), and
		// verdicts an older run recorded on it are dropped.
		it.done = r.rescored(it.was, caseVerdict{})
	}
	if it.done == nil && !sameInputs(caseInfo(it.c), it.was.Case) {
		r.inputsDiffer++
	}
	r.batch = append(r.batch, it)
	r.batchBytes += len(it.was.Result.Output) + len(it.was.Result.Stderr)
	if len(r.batch) >= rescoreBatchCases || r.batchBytes >= rescoreBatchBytes {
		return r.flush(ctx)
	}
	return nil
}

// flush verifies the batch and records its cases, in order.
func (r *groupRescorer) flush(ctx context.Context) error {
	if len(r.batch) == 0 {
		return nil
	}
	recs, err := r.verifyBatch(ctx, r.batch)
	if err != nil {
		return err
	}
	was := make([]*result.CaseRecord, len(r.batch))
	for i, it := range r.batch {
		was[i] = it.was
	}
	if err := r.record(recs, was); err != nil {
		return err
	}
	clear(r.batch) // the records are written: let them go
	r.batch, r.batchBytes = r.batch[:0], 0
	return nil
}

// verifyBatch gives each case of a batch of one group its new record. It
// verifies through the run's own verification (built-in checks,
// evaluator plugins, the group's verifier plugin), all the batch's cases
// at once, so the verifier plugin gets them in as few calls as it allows;
// each case's verdict is the one it would get alone, and a plugin fault
// fails the case it happened on, as in a run.
func (r *groupRescorer) verifyBatch(ctx context.Context, items []rescoreItem) ([]*result.CaseRecord, error) {
	var cs []*cases.Case
	var actuals []verify.Actual
	var elapsed []float64
	for _, it := range items {
		if it.done == nil {
			cs = append(cs, it.c)
			actuals = append(actuals, actualOf(it.was.Result))
			elapsed = append(elapsed, it.was.Result.Elapsed)
		}
	}
	var verdicts []caseVerdict
	if len(cs) > 0 {
		verdicts = r.plugins.verifyCases(ctx, r.job.group, cs, actuals, elapsed, nil, r.env, "")
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	out := make([]*result.CaseRecord, 0, len(items))
	for _, it := range items {
		if it.done != nil {
			out = append(out, it.done)
			continue
		}
		out = append(out, r.rescored(it.was, verdicts[0]))
		verdicts = verdicts[1:]
	}
	return out, nil
}

// rescored is the recorded case with its new verdict: what ran and what
// came out stay as recorded; the attributes, the plugin fault, the score
// and the verdict are new.
func (r *groupRescorer) rescored(was *result.CaseRecord, v caseVerdict) *result.CaseRecord {
	rec := *was
	rec.Result.PluginError = v.fault
	rec.Attributes = v.attrs
	rec.Unscored = v.unscored
	rec.Score, _ = result.Score(v.attrs)
	// As in a run: one rule decides the outcome.
	classification(r.opts.Problem).Classify(&rec)
	if len(was.Result.Artifacts) > 0 {
		rec.Result.Artifacts = make([]string, len(was.Result.Artifacts))
		for i, a := range was.Result.Artifacts {
			if filepath.IsLocal(filepath.FromSlash(a)) {
				a = filepath.ToSlash(filepath.Join(r.artifacts, filepath.FromSlash(a)))
			}
			rec.Result.Artifacts[i] = a
		}
	}
	return &rec
}

// sameInputs says whether a case gives the submission what the recorded
// one was given. A placeholder ({{static:NAME}}, {{port}}…) is resolved
// when the case runs, so the record holds what it became there: it
// matches any text.
func sameInputs(now, was *result.CaseInfo) bool {
	if was == nil {
		return false
	}
	stdin := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	return slices.EqualFunc(now.Arguments, was.Arguments, resolvesTo) && resolvesTo(stdin(now.Stdin), stdin(was.Stdin)) &&
		len(now.Env) == len(was.Env) && maps.EqualFunc(now.Env, was.Env, resolvesTo) && slices.Equal(now.InputFiles, was.InputFiles)
}

// resolvesTo says whether text, whose placeholders ({{…}}) match any
// text, can have become got.
func resolvesTo(text, got string) bool {
	var parts []string
	for {
		i := strings.Index(text, "{{")
		if i < 0 {
			break
		}
		j := strings.Index(text[i:], "}}")
		if j < 0 {
			break
		}
		parts = append(parts, text[:i])
		text = text[i+j+2:]
	}
	if parts == nil {
		return text == got
	}
	parts = append(parts, text)
	if !strings.HasPrefix(got, parts[0]) {
		return false
	}
	got = got[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(got, p)
		if i < 0 {
			return false
		}
		got = got[i+len(p):]
	}
	return strings.HasSuffix(got, last)
}
