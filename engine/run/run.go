// Package run orchestrates an evaluation: for every selected checkpoint it
// runs each group (groups concurrently, cases inside a group in order) on a
// runtime through an adapter, verifies every case, appends each finished
// case to the results journal, and writes the checkpoint summaries.
package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/wasmeval/wasmeval/engine/adapter"
	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/mock"
	"github.com/wasmeval/wasmeval/engine/placeholder"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/verify"
	_ "github.com/wasmeval/wasmeval/engine/verify/schemacheck" // schema checks
	"github.com/wasmeval/wasmeval/engine/workspace"
	"github.com/wasmeval/wasmeval/engine/workspace/confine"
	"github.com/wasmeval/wasmeval/plugins/callcache"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// Options configures a run.
type Options struct {
	Problem *problem.Problem
	// Submission is the submission directory. When it holds a directory per
	// checkpoint (named like the checkpoints), each checkpoint runs its own.
	Submission string
	// Checkpoints selects checkpoints by name; empty means all, in order.
	Checkpoints []string
	// OutDir receives the journal and summaries.
	OutDir string
	// Jobs is how many groups run at once (default 1).
	Jobs int
	// Slots, when set, is a pool shared with other runs in this process
	// (a batch's): each group takes a slot before it starts, so the runs
	// together never run more groups than it has, whatever their Jobs.
	Slots *Slots
	// Policy decides whether a checkpoint passes.
	Policy result.Policy
	// ErrorPolicy says how errored cases count toward a checkpoint's
	// verdict (result.DefaultErrorPolicy when empty).
	ErrorPolicy result.ErrorPolicy
	// RetryErrors is how many more times a case whose outcome is an error
	// runs again (0: never); see retry.go.
	RetryErrors int
	// Epochs runs every case this many times (default 1), each group's
	// epochs in fresh workspaces, and Reducer says how a case's epochs
	// reduce to the outcome its group counts (result.DefaultReducer).
	Epochs  int
	Reducer result.Reducer
	// RetryBackoff is the wait before a case's first retry; each further
	// retry waits twice as long, at most MaxRetryBackoff
	// (DefaultRetryBackoff when zero).
	RetryBackoff time.Duration
	// Command overrides the problem's command template.
	Command string
	Runtime runtime.Runtime
	// Browser is the Chromium binary the browser adapter starts (default
	// problem.DefaultBrowser). The one running wasmeval chooses it: a
	// problem cannot.
	Browser string
	// Loader returns a built-in loader by name.
	Loader func(name string) (cases.Loader, bool)
	// Plugins runs the problem's plugins (verifiers, loaders, evaluators);
	// nil is fine for problems that reference none.
	Plugins *host.Host
	// VerdictCache answers plugin calls made before with the same module,
	// input and asset files, and keeps the answers of the calls made
	// (docs/running.md, "Verdict cache"); nil: every call is made.
	VerdictCache *callcache.Store
	// Progress receives events; nil means none.
	Progress Progress
	// RunID links the summaries to the run's manifest.
	RunID string
	// Resume continues the run whose journal is in OutDir: finished cases
	// are not recorded again (see Finished).
	Resume *Finished
	// Lock is OutDir's writer lock (journal.LockDir), held by a caller
	// that writes more of the directory than the run does (the manifest);
	// nil: Run takes it itself for as long as it runs.
	Lock *journal.Lock
	// Executor runs the group jobs; nil: this process does, Jobs groups
	// at a time.
	Executor Executor
}

// Outcome is what a run produced.
type Outcome struct {
	Summaries []*report.CheckpointSummary
	// Passed is true when every selected checkpoint passed its policy.
	Passed bool
	// Verdict sums up the checkpoints' verdicts: failed when one failed,
	// else inconclusive when one was, else incomplete when one was, else
	// passed.
	Verdict     result.Verdict
	Interrupted bool
	JournalPath string
	// VerdictCache counts the plugin calls answered from the verdict
	// cache and those made; nil when the run had no cache.
	VerdictCache *CacheCounts
	// ExecutorError is why the executor stopped before every job was
	// done (the run is then Interrupted); nil otherwise.
	ExecutorError error
}

// decide sets Passed and Verdict from the summaries.
func (o *Outcome) decide() {
	o.Verdict = result.VerdictPassed
	rank := map[result.Verdict]int{result.VerdictPassed: 0, result.VerdictIncomplete: 1, result.VerdictInconclusive: 2, result.VerdictFailed: 3}
	for _, s := range o.Summaries {
		if rank[s.Verdict] > rank[o.Verdict] {
			o.Verdict = s.Verdict
		}
	}
	if o.Interrupted && o.Verdict == result.VerdictPassed {
		o.Verdict = result.VerdictIncomplete
	}
	o.Passed = o.Verdict == result.VerdictPassed
}

// groupJob is one group of one checkpoint.
type groupJob struct {
	cp      *problem.Checkpoint
	group   *problem.Group
	index   int
	command []string
	subDir  string
	// epoch is which of the run's epochs this job runs (0 without
	// --epochs).
	epoch int
}

// Run executes the evaluation. A configuration problem found before any
// case runs is returned as an error; failures of a submission are results.
func Run(ctx context.Context, opts Options) (*Outcome, error) {
	if opts.Jobs < 1 {
		opts.Jobs = 1
	}
	if opts.Policy == "" {
		opts.Policy = result.DefaultPolicy
	}
	if opts.Progress == nil {
		opts.Progress = nopProgress{}
	}
	p := opts.Problem
	cps, jobs, err := planJobs(p, opts.Submission, opts.Command, opts.Checkpoints, opts.Epochs)
	if err != nil {
		return nil, err
	}
	plugins := newPluginSet(opts.Plugins, p)
	plugins.cache = newVerdictCache(opts.VerdictCache)
	defer plugins.cache.flush()
	if err := plugins.preload(ctx, p); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opts.OutDir, 0o755); err != nil {
		return nil, fmt.Errorf("create output directory: %w", err)
	}
	if opts.Lock == nil {
		lock, err := journal.LockDir(opts.OutDir)
		if err != nil {
			return nil, err
		}
		defer lock.Unlock()
	}
	jpath := filepath.Join(opts.OutDir, journal.FileName)
	jw, err := journal.Create(jpath) // cuts a torn last line first
	if err != nil {
		return nil, err
	}
	defer jw.Close()
	// A failed append stops the run at once: the cases still running are
	// canceled and no other case starts, since none of them could be kept.
	parent := ctx
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)

	start := time.Now()
	builder := report.NewBuilder(p, cps, opts.Policy, start)
	builder.SetErrorPolicy(opts.ErrorPolicy)
	builder.SetRunID(opts.RunID)
	if opts.Epochs > 1 {
		builder.SetEpochs(opts.Epochs, opts.Reducer)
	}
	if opts.Executor != nil {
		// The coordinator of a distributed run is meant for runs too big
		// for one machine: the summaries' per-case entries wait in a
		// file, so what it holds does not grow with the cases. The sink
		// gives the builder each case once, as spooling asks.
		if err := builder.Spool(); err != nil {
			return nil, err
		}
		defer builder.Close()
	}
	if opts.Resume != nil {
		if opts.RetryErrors > 0 {
			// Errored cases of the run so far run again, as new attempts.
			opts.Resume.RetryErrors()
		}
		selected := map[string]bool{}
		for _, cp := range cps {
			selected[cp.Name] = true
		}
		if err := opts.Resume.addTo(builder, selected); err != nil {
			return nil, err
		}
	}
	var mu sync.Mutex // guards builder and the first journal error
	var journalErr, execErr error
	record := func(rec *result.CaseRecord, retried bool) error {
		if err := jw.Append(rec); err != nil {
			mu.Lock()
			if journalErr == nil {
				journalErr = err
			}
			mu.Unlock()
			stop(err)
			return err
		}
		if retried {
			// Kept in the journal, replaced in the summaries by the
			// attempt after it.
			if rp, ok := opts.Progress.(RetryProgress); ok {
				rp.CaseRetried(rec)
			}
			return nil
		}
		mu.Lock()
		builder.Add(rec)
		mu.Unlock()
		opts.Progress.CaseFinished(rec)
		return nil
	}
	groupErr := func(j *groupJob, msg string) {
		mu.Lock()
		builder.GroupError(j.cp.Name, j.group.Name, msg)
		mu.Unlock()
		opts.Progress.GroupError(j.cp.Name, GroupLabel(j.group.Name, j.epoch), msg)
	}

	exec := opts.Executor
	if exec == nil {
		exec = &localExecutor{opts: &opts, plugins: plugins}
	}
	groupClosed := func(j *groupJob) {
		mu.Lock()
		builder.GroupDone(j.cp.Name, j.group.Name)
		mu.Unlock()
	}
	sink := newRunSink(&opts, plugins, record, groupErr, groupClosed)
	if err := exec.Execute(ctx, sink.unfinished(ctx, publicJobs(jobs)), sink); err != nil && ctx.Err() == nil {
		// The executor itself failed (its queue went away): what it
		// delivered is kept, and the run ends as an interrupted one.
		stop(err)
		execErr = err
	}

	interrupted := parent.Err() != nil || execErr != nil
	if interrupted || journalErr != nil {
		for _, cp := range cps {
			builder.Incomplete(cp.Name)
		}
	}
	sums := builder.Summaries()
	if journalErr != nil {
		// The summaries are only derived (a report rebuilds them from
		// the journal), and on a full disk they may not fit either: the
		// journal's error is the one to report.
		_ = report.Write(opts.OutDir, sums)
		return nil, &JournalError{Err: journalErr, Path: jpath, Kept: jw.Kept() + opts.Resume.Len()}
	}
	if err := report.Write(opts.OutDir, sums); err != nil {
		return nil, err
	}
	out := &Outcome{Summaries: sums, Interrupted: interrupted, JournalPath: jpath, VerdictCache: plugins.cache.counts(), ExecutorError: execErr}
	out.decide()
	return out, nil
}

// CheckSubmission resolves the checkpoints to run and, for each, the
// submission snapshot and the command that starts it, as Run does: a
// caller refuses a bad checkpoint name, a missing submission or a missing
// entry file with it before it writes anything.
func CheckSubmission(p *problem.Problem, submission, command string, checkpoints []string) error {
	_, _, err := planJobs(p, submission, command, checkpoints, 1)
	return err
}

// CheckCommand refuses a command template given apart from the problem
// (--command, an environment spec's command) that holds a placeholder the
// problem's submission does not get, such as {port} for {{port}} or
// {{port}} for a submission that is no server. from says where the
// template was written, for the message. Results recorded earlier run no
// command, and an empty template is the problem's own, checked when it
// was loaded.
func CheckCommand(p *problem.Problem, command, from string) error {
	if command == "" || Recorded(p) {
		return nil
	}
	if err := placeholder.Check(command, append(placeholder.Command(p.Adapter.Server != nil), placeholder.Mocks(p.MockNames())...)); err != nil {
		return fmt.Errorf("%s: %w", from, err)
	}
	return nil
}

// planJobs selects the checkpoints and makes one job per group and epoch,
// with the command that starts the checkpoint's submission. A group's
// epochs are separate jobs: each runs the group's cases in a fresh
// workspace, and with --jobs they run side by side.
func planJobs(p *problem.Problem, submission, command string, names []string, epochs int) ([]*problem.Checkpoint, []*groupJob, error) {
	cps, err := SelectCheckpoints(p, names)
	if err != nil {
		return nil, nil, err
	}
	if err := CheckCommand(p, command, fmt.Sprintf("command template %q", command)); err != nil {
		return nil, nil, err
	}
	template := command
	if template == "" {
		template = p.Command
	}
	var jobs []*groupJob
	for _, cp := range cps {
		sub := submissionFor(submission, cp.Name)
		var argv []string
		if !Recorded(p) {
			if argv, err = adapter.EntryCommand(sub, p.EntryFile, template); err != nil {
				return nil, nil, fmt.Errorf("checkpoint %s: %w", cp.Name, err)
			}
		}
		for _, e := range jobEpochs(epochs) {
			for i, g := range cp.Groups {
				jobs = append(jobs, &groupJob{cp: cp, group: g, index: i, command: argv, subDir: sub, epoch: e})
			}
		}
	}
	return cps, jobs, nil
}

// Recorded says whether p's cases score results recorded earlier
// (--results) rather than run a submission: there is then no submission
// and no command.
func Recorded(p *problem.Problem) bool {
	return p.Adapter.Agent != nil && p.Adapter.Agent.Results != ""
}

// SelectCheckpoints picks the named checkpoints in the problem's order (all
// when names is empty), or says which name is not a checkpoint.
func SelectCheckpoints(p *problem.Problem, names []string) ([]*problem.Checkpoint, error) {
	if len(names) == 0 {
		return p.Checkpoints, nil
	}
	want := map[string]bool{}
	for _, n := range names {
		if p.Checkpoint(n) == nil {
			var all []string
			for _, c := range p.Checkpoints {
				all = append(all, c.Name)
			}
			return nil, fmt.Errorf("--checkpoint %q: no such checkpoint (have: %v)", n, all)
		}
		want[n] = true
	}
	var out []*problem.Checkpoint
	for _, c := range p.Checkpoints { // keep the problem's order
		if want[c.Name] {
			out = append(out, c)
		}
	}
	return out, nil
}

// submissionFor picks <dir>/<checkpoint> when the submission holds one
// snapshot per checkpoint, else dir itself.
func submissionFor(dir, checkpoint string) string {
	sub := filepath.Join(dir, checkpoint)
	if st, err := os.Stat(sub); err == nil && st.IsDir() {
		return sub
	}
	return dir
}

// groupRunner runs one group's cases in order in one session.
type groupRunner struct {
	opts *Options
	job  *groupJob
	// record keeps a finished case — retried: an attempt that ended in an
	// error and runs again; an error (the journal cannot be written)
	// stops the group.
	record  func(rec *result.CaseRecord, retried bool) error
	plugins *pluginSet
	// mocks are the group's running mock services (nil: none).
	mocks *mock.Group
}

func (r *groupRunner) run(ctx context.Context) error {
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
	r.opts.Progress.GroupStarted(j.cp.Name, GroupLabel(g.Name, j.epoch), stream.Len())
	groupDone := r.opts.Resume.groupDone(j.cp.Name, g.Name, j.epoch, stream.Len())
	defer r.opts.Progress.GroupFinished(j.cp.Name, GroupLabel(g.Name, j.epoch))

	if Recorded(p) {
		// Nothing runs: no workspace, and the cases are scored in
		// batches (recorded.go).
		return r.runRecorded(ctx, stream)
	}

	assets := map[string]string{}
	for name, a := range p.StaticAssets {
		assets[name] = a.Path
	}
	// The problem directory holds the expected outputs and the run
	// directory the journal: neither is the submission's to read.
	private := []string{p.Dir, r.opts.OutDir}
	sess, err := r.opts.Runtime.Open(ctx, runtime.SessionSpec{Submission: j.subDir, Label: j.cp.Name + "-" + g.Name, StaticAssets: assets, Private: private})
	if err != nil {
		return fmt.Errorf("prepare workspace: %w", err)
	}
	defer sess.Close()
	if err := writeGroupFiles(sess.Workdir(), p, g.GroupFiles); err != nil {
		return err
	}
	if !groupDone {
		withMocks, mocks, err := r.startMocks(ctx, sess)
		if err != nil {
			// Every case is an error of the mock: the submission was not
			// given the upstream the problem promised.
			return r.mocksFailed(ctx, stream, err)
		}
		if mocks != nil {
			defer mocks.Close()
			sess, r.mocks = withMocks, mocks
		}
	}
	ad := r.newAdapter()
	// A server-backed adapter keeps one server for the whole group: its
	// cases share the server's state, so the group is never isolated —
	// the workspace is not reset under the server, and a resumed group
	// re-runs its finished cases to rebuild the server's state. A group
	// already finished is only replayed and needs no server.
	ga, serverGroup := ad.(adapter.GroupAdapter)
	isolated := g.Isolated && !serverGroup
	if serverGroup && !groupDone {
		defer ga.End()
		if err := ga.Begin(ctx, sess); err != nil {
			return fmt.Errorf("start the submission: %w", err)
		}
		if r.mocks != nil {
			// What the server asked of its mocks while it started
			// belongs to no case.
			r.mocks.TakeCalls()
		}
	}

	// Built-in loaders never look at history; keep it only for loaders
	// that say they need it, so memory stays flat on long groups.
	keepHistory := false
	if h, ok := stream.(interface{ NeedsHistory() bool }); ok {
		keepHistory = h.NeedsHistory()
	}
	var history []cases.Outcome
	fresh := true
	for idx := 0; ; idx++ {
		c, err := stream.Next(ctx, history)
		if errors.Is(err, io.EOF) {
			return nil
		}
		var caseErr *cases.CaseError
		if errors.As(err, &caseErr) && ctx.Err() == nil {
			// One unreadable case fails alone; the group goes on.
			if rec := r.unloadable(caseErr, idx); !r.opts.Resume.has(epochKey(rec.Key(), rec.Epoch)) {
				if err := r.record(rec, false); err != nil {
					return err
				}
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("load case %d: %w", idx+1, err)
		}
		// Without the journal (a worker), a finished case a stateful
		// loader needs the result of runs again, as it did before it was
		// finished, rather than be replayed.
		finished := r.opts.Resume.has(r.key(c)) && !(keepHistory && r.opts.Resume.idsOnly)
		if finished && (isolated || groupDone) {
			if err := r.replay(c, &history, keepHistory); err != nil {
				return err
			}
			continue
		}
		if !fresh && !serverGroup && (isolated || c.Reset) {
			if err := r.reset(ctx, sess, c.ID); err != nil {
				return err
			}
		}
		if err := ctx.Err(); err != nil {
			return err // stopped (interrupted, or the journal failed): start nothing more
		}
		fresh = false
		rec, actual, err := r.runCase(ctx, sess, ad, c, idx)
		if err != nil {
			return err // canceled: the case did not finish and is not recorded
		}
		if finished { // ran again only to rebuild the shared workspace
			if err := r.replay(c, &history, keepHistory); err != nil {
				return err
			}
			continue
		}
		rec.Attempt = r.opts.Resume.attempts(r.key(c)) + 1
		for tries := 1; r.retryable(rec, tries, ad); tries++ {
			if err := r.record(rec, true); err != nil {
				return err
			}
			if err := r.backoff(ctx, tries); err != nil {
				return err
			}
			if !serverGroup && isolated {
				if err := r.reset(ctx, sess, "retrying "+c.ID); err != nil {
					return err
				}
			}
			again, againActual, err := r.runCase(ctx, sess, ad, c, idx)
			if err != nil {
				return err
			}
			again.Attempt = rec.Attempt + 1
			rec, actual = again, againActual
		}
		r.noteNotRetried(rec, ad)
		if err := r.record(rec, false); err != nil {
			return err
		}
		if keepHistory {
			history = append(history, cases.Outcome{Case: c, Actual: actual})
		}
	}
}

// actualOf is what the checks (and a stateful loader's history) see of an
// adapter's outcome — the same whether the case just ran or is replayed
// from the journal.
func actualOf(o result.Execution) verify.Actual {
	return verify.Actual{StatusCode: o.StatusCode, Output: o.Output, Stderr: o.Stderr, Files: o.Files, Headers: o.Headers, TimedOut: o.TimedOut, MockCalls: o.MockCalls}
}

func (r *groupRunner) runCase(ctx context.Context, sess runtime.Session, ad adapter.Adapter, c *cases.Case, idx int) (*result.CaseRecord, verify.Actual, error) {
	j := r.job
	started := time.Now()
	out, err := ad.Run(ctx, sess, c)
	if err != nil {
		return nil, verify.Actual{}, err
	}
	// The calls since the last case's end: a request a submission sends
	// late for one case counts with the next, never dropped.
	takeMockCalls(r.mocks, &out)
	actual := actualOf(out)
	// A case whose adapter failed (its server never answered, its command
	// could not start) and an agent that gave no result have not
	// answered: there is nothing to judge, and verdicts on what is not an
	// answer (status -1, an empty body) would only mislead, and score
	// partial credit where an expected value happened to be empty. The
	// case is an error either way, its error says why.
	var v caseVerdict
	if !unanswered(c, out) {
		v = r.plugins.verifyCase(ctx, j.group, c, actual, r.verifyEnv(&out.Elapsed), sess.Workdir())
	}
	if ctx.Err() != nil {
		return nil, verify.Actual{}, ctx.Err()
	}
	return r.newRecord(c, idx, started, out, v), actual, nil
}

// unanswered says whether the case has no answer to judge: the adapter
// failed (the server never answered or went down, the submission could
// not be started, an input file could not be written…), or it is an agent
// case whose agent gave no result (it crashed, timed out, printed
// something else, its setup failed).
func unanswered(c *cases.Case, out result.Execution) bool {
	return out.AdapterError || (c.Task != nil && !out.Agent && out.TimedOut)
}

// verifyEnv is what the built-in checks of the group's cases get.
// RawJSON: the verdict is only encoded into the journal, so a JSON
// output settled by its text is kept as that text — as verifier plugins
// keep it, so both give the journal the same bytes.
func (r *groupRunner) verifyEnv(elapsed *float64) verify.Env {
	dir := r.opts.Problem.Dir
	return verify.Env{RawJSON: true, ReadProblemFile: func(rel string) ([]byte, error) {
		return workspace.ReadFile(dir, rel, host.DefaultAssetBytes)
	}, Elapsed: elapsed}
}

// newRecord is the record of a case that ran (out) and was verified (v).
func (r *groupRunner) newRecord(c *cases.Case, idx int, started time.Time, out result.Execution, v caseVerdict) *result.CaseRecord {
	p, j := r.opts.Problem, r.job
	out.PluginError = v.fault
	rec := &result.CaseRecord{
		Problem: p.Name, ProblemVersion: p.Version, Checkpoint: j.cp.Name, Version: j.cp.Version,
		Group: j.group.Name, GroupType: j.group.Type, ID: c.ID, Index: idx,
		OriginalCheckpoint: c.OriginalCheckpoint, OriginalGroup: c.OriginalGroup,
		StartedAt: started.UTC(), Duration: time.Since(started).Seconds(),
		Case: caseInfo(c), Result: out, Attributes: v.attrs, Unscored: v.unscored,
	}
	rec.Score, _ = result.Score(v.attrs)
	// Whether it passed, failed or could not be judged: one rule for
	// every record (a case whose run did not complete normally cannot
	// pass, whatever its output happened to match).
	classification(p).Classify(rec)
	rec.Epoch = j.epoch
	return rec
}

// unloadable records a case the loader could not produce: failed, with the
// loader's message, so the report shows it instead of silently dropping it.
func (r *groupRunner) unloadable(e *cases.CaseError, idx int) *result.CaseRecord {
	p, j := r.opts.Problem, r.job
	rec := &result.CaseRecord{
		Problem: p.Name, ProblemVersion: p.Version, Checkpoint: j.cp.Name, Version: j.cp.Version,
		Group: j.group.Name, GroupType: j.group.Type, ID: e.ID, Index: idx,
		OriginalCheckpoint: j.group.OriginalCheckpoint, OriginalGroup: j.group.OriginalGroup,
		StartedAt: time.Now().UTC(),
		Result:    result.Execution{StatusCode: -1, AdapterError: true, Error: "case could not be loaded: " + e.Err.Error()},
		Epoch:     j.epoch,
	}
	classification(p).Classify(rec)
	return rec
}

// reset restores the workspace to the submission and writes the group's
// files again, before what names.
func (r *groupRunner) reset(ctx context.Context, sess runtime.Session, what string) error {
	if err := sess.Reset(ctx); err != nil {
		return fmt.Errorf("reset workspace before %s: %w", what, err)
	}
	return writeGroupFiles(sess.Workdir(), r.opts.Problem, r.job.group.GroupFiles)
}

// jobEpochs are the epochs a group runs as jobs: 0 alone (a run without
// --epochs, whose records carry no epoch), or 1 to epochs.
func jobEpochs(epochs int) []int {
	if epochs <= 1 {
		return []int{0}
	}
	out := make([]int, epochs)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

// key names the case's epoch among the finished cases of a resumed run.
func (r *groupRunner) key(c *cases.Case) string { return epochKey(c.Key(), r.job.epoch) }

// epoch is the epoch the runner runs, as records carry it.
func (r *groupRunner) epoch() int { return r.job.epoch }

// classification is how the problem wants its cases' outcomes decided.
func classification(p *problem.Problem) result.Classification {
	return result.Classification{TimeoutIsError: p.TimeoutOutcome == problem.TimeoutErrors}
}

// GroupInput builds what a loader needs to know about a group.
func GroupInput(p *problem.Problem, cp *problem.Checkpoint, g *problem.Group) cases.GroupInput {
	return cases.GroupInput{
		Checkpoint: cp.Name, Group: g.Name, GroupType: g.Type,
		OriginalCheckpoint: g.OriginalCheckpoint, OriginalGroup: g.OriginalGroup,
		ProblemDir: p.Dir, CheckpointDir: g.CasesDir, CaseGroup: g.CaseGroup,
		CaseOrder: g.CaseOrder, CaseDefaults: g.CaseDefaults, CaseDefaultsNode: g.CaseDefaultsNode, Timeout: g.Timeout,
		Env: g.Env, Checks: g.Checks, TrackedFiles: p.Adapter.TrackedFiles,
		ConfigFile: g.File, ConfigPath: g.Path, Files: p.Files,
		ArgumentSplitting: p.ArgumentSplitting, Seed: p.Seed,
	}
}

// problemFiles is how the problem's files are opened; a problem built
// without Load (no Files) is confined to its directory.
func problemFiles(p *problem.Problem) (*confine.Tree, error) {
	if p.Files != nil {
		return p.Files, nil
	}
	return confine.New(p.Dir)
}

// writeGroupFiles copies the group's files (group_files, constant_files)
// into the workspace root under their base names, reading them through the
// problem's confine.Tree as every problem file is read. They are copied
// file to file, as a case's input files from the problem are, never held.
func writeGroupFiles(workdir string, p *problem.Problem, files []string) error {
	var in []cases.InputFile
	tree, err := problemFiles(p)
	if err != nil {
		return err
	}
	for _, f := range files {
		file, err := cases.FromProblem(tree, f, filepath.Base(f))
		if err != nil {
			return fmt.Errorf("group file: %w", err)
		}
		in = append(in, file)
	}
	if len(in) == 0 {
		return nil
	}
	return workspace.WriteFiles(workdir, in)
}
