package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/manifest"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/run"
	"github.com/wasmeval/wasmeval/engine/workspace"
)

type runFlags struct {
	submission  string
	checkpoints []string
	out         string
	jobs        int
	policy      string
	errorPolicy string
	retryErrors int
	retryWait   time.Duration
	epochs      int
	reducer     string
	command     string
	progress    string
	plugins     pluginFlags
	refs        refFlags
	cache       cacheFlags
	resume      string
	browser     string
	results     string
	tags, apps  []string
	history     string
	noHistory   bool
	failures    int
	seed        seedFlag
	env         envFlags
	// previous is the manifest of the run being resumed.
	previous *manifest.Manifest
	queue    queueFlags
	// slots, when set, is the pool of group slots this run shares with the
	// other runs of a batch (run.Options.Slots); not a flag.
	slots *run.Slots
}

func newRunCmd() *cobra.Command { return newRunCmdIn(nil) }

// newRunCmdIn is `run` whose groups take their slots from slots, a pool
// shared with other runs in this process (nil: none, --jobs alone bounds
// the run).
func newRunCmdIn(slots *run.Slots) *cobra.Command {
	f := runFlags{slots: slots}
	cmd := &cobra.Command{
		Use:   "run PROBLEM --submission DIR",
		Short: "Run every case of a problem against a submission",
		Long: `Run every case of PROBLEM (a directory with config.yaml) against the
submission in DIR and write the results journal and a summary per checkpoint.

When DIR holds one directory per checkpoint (named like the checkpoints),
each checkpoint is evaluated against its own snapshot.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) <= 1 {
				return nil
			}
			// "run PROBLEM SUBMISSION" is the natural first guess: say
			// how the submission is given instead of counting arguments.
			hint := ""
			if len(args) == 2 && f.submission == "" {
				hint = fmt.Sprintf("; the submission is given with --submission: wasmeval run %s --submission %s", args[0], args[1])
			}
			return usageErr(fmt.Errorf("run takes one PROBLEM, got %d arguments (%s)%s", len(args), strings.Join(args, " "), hint))
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.resume != "" {
				problemPath, err := resumeDefaults(cmd, args, &f)
				if err != nil {
					return err
				}
				return runRun(cmd, problemPath, f)
			}
			if len(args) != 1 {
				return usageErr(errors.New("run: PROBLEM is required (or --resume RUN_DIR)"))
			}
			return runRun(cmd, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.submission, "submission", "s", "", "submission directory (required)")
	fl.StringArrayVarP(&f.checkpoints, "checkpoint", "c", nil, "checkpoint to run (repeatable; default: all, in order)")
	fl.StringVarP(&f.out, "out", "o", "", "output directory (default: ./wasmeval-out/<problem>-<timestamp>)")
	fl.IntVarP(&f.jobs, "jobs", "j", 1, "groups to run concurrently (cases inside a group keep their order)")
	fl.StringVar(&f.policy, "pass-policy", string(result.DefaultPolicy), "pass policy: any, any-case, all-cases, all-non-error-cases, core-cases, any-core-cases, all-core-cases")
	fl.StringVar(&f.errorPolicy, "error-policy", string(result.DefaultErrorPolicy), errorPolicyUsage)
	fl.IntVar(&f.epochs, "epochs", 1, "run every case this many times, each group's epochs in fresh workspaces; cases whose epochs disagree are reported flaky")
	fl.StringVar(&f.reducer, "epoch-reducer", string(result.DefaultReducer), "how a case's epochs reduce to its outcome and score: mean, min, max, mode, pass@K, pass^K")
	fl.IntVar(&f.retryErrors, "retry-errors", 0, "run a case whose outcome is an error (the harness failed, not the submission) up to N more times; with --resume, the errored cases of the run so far run again")
	fl.DurationVar(&f.retryWait, "retry-backoff", run.DefaultRetryBackoff, "wait before a case's first retry; each further retry waits twice as long (at most "+run.MaxRetryBackoff.String()+")")
	fl.StringVar(&f.command, "command", "", `command template that starts the submission, e.g. "python3 {entry_file}" (overrides the problem's)`)
	fl.StringVar(&f.progress, "progress", "auto", "progress display: auto (bars on a terminal, lines otherwise), bars, lines, none")
	fl.StringVar(&f.resume, "resume", "", "continue the interrupted run in this directory, running only unfinished cases")
	fl.StringVar(&f.results, "results", "", "score the agent results recorded in this directory (one <task>.json per task) instead of running an agent")
	fl.StringVar(&f.history, "history", "", "also add the run's results to this history directory and compare it with the run before it (default for eval-case datasets: history/ beside the dataset)")
	fl.BoolVar(&f.noHistory, "no-history", false, "do not add the run to a history directory")
	fl.IntVar(&f.failures, "failures", report.DefaultConsoleFailures, failuresUsage)
	fl.StringArrayVar(&f.tags, "tag", nil, "task specs and eval-case datasets: run only the tasks (cases) with this tag (repeatable)")
	fl.StringArrayVar(&f.apps, "app", nil, "task specs: run only the tasks of this related app (repeatable)")
	fl.StringVar(&f.browser, "browser", os.Getenv("WASMEVAL_BROWSER"), "Chromium binary the browser adapter starts (default $WASMEVAL_BROWSER, else "+problem.DefaultBrowser+")")
	f.seed.register(fl)
	f.plugins.register(fl)
	f.refs.register(fl)
	f.cache.register(fl)
	f.env.register(fl)
	f.queue.register(fl)
	return cmd
}

func runRun(cmd *cobra.Command, problemPath string, f runFlags) error {
	if f.submission == "" && f.results == "" {
		return usageErr(errors.New("run: --submission DIR is required (or, for agent tasks, --results DIR)"))
	}
	if f.submission != "" && f.results != "" {
		return usageErr(errors.New("run: give --submission (run the agent) or --results (score results it recorded), not both"))
	}
	if err := f.queue.check(cmd.Flags().Changed); err != nil {
		return usageErr(err)
	}
	if f.results != "" {
		abs, err := filepath.Abs(f.results)
		if err != nil {
			return usageErr(fmt.Errorf("run: --results: %w", err))
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return usageErr(fmt.Errorf("run: --results %s: not a directory of recorded results", f.results))
		}
		f.results = abs
	}
	if f.jobs < 1 {
		return usageErr(fmt.Errorf("run: --jobs must be at least 1, got %d", f.jobs))
	}
	if f.failures < 0 {
		return usageErr(fmt.Errorf("run: --failures must be 0 (no list) or more, got %d", f.failures))
	}
	policy, err := result.ParsePolicy(f.policy)
	if err != nil {
		return usageErr(fmt.Errorf("run: --pass-policy: %w", err))
	}
	errPolicy, err := result.ParseErrorPolicy(f.errorPolicy)
	if err != nil {
		return usageErr(fmt.Errorf("run: --error-policy: %w", err))
	}
	if f.retryErrors < 0 || f.retryErrors > maxRetryErrors {
		return usageErr(fmt.Errorf("run: --retry-errors must be between 0 and %d, got %d", maxRetryErrors, f.retryErrors))
	}
	if f.epochs < 1 || f.epochs > maxEpochs {
		return usageErr(fmt.Errorf("run: --epochs must be between 1 and %d, got %d", maxEpochs, f.epochs))
	}
	reducer, err := result.ParseReducer(f.reducer, f.epochs)
	if err != nil {
		return usageErr(fmt.Errorf("run: --epoch-reducer: %w", err))
	}
	if f.retryWait < 0 {
		return usageErr(fmt.Errorf("run: --retry-backoff must not be negative, got %s", f.retryWait))
	}
	// Paths the problem names may lie under the same --mount-root
	// directories an environment spec may mount from.
	ctx := cmd.Context()
	// Plugin logs go to stderr until the run log exists: nothing is
	// written to the output directory for a run that never starts.
	logw := &switchWriter{w: cmd.ErrOrStderr()}
	plugins, err := f.plugins.newHost(logw)
	if err != nil {
		return err
	}
	defer plugins.Close()
	refs := f.refs.runRefs(ctx, problemPath)
	src, err := loadSource(problemPath, sourceOptions{pluginDirs: f.plugins.dirs, mountRoots: f.env.mountRoots, refs: refs, results: f.results,
		tags: f.tags, apps: f.apps, functions: functionsOf(ctx, plugins), setup: setupOf(ctx, plugins)})
	if err != nil {
		return usageErr(fmt.Errorf("invalid problem:\n%w", err))
	}
	p := src.problem
	f.seed.apply(p)
	// Bad case files and broken plugins are configuration errors: report
	// them all before any case runs rather than failing half-way through.
	checked, err := run.ValidateGroups(run.WithWarnings(ctx, printWarning(cmd.ErrOrStderr())), p, src.loader, plugins)
	if err != nil {
		return usageErr(fmt.Errorf("invalid problem:\n%w", err))
	}
	out := f.out
	if out == "" {
		out = filepath.Join("wasmeval-out", fmt.Sprintf("%s-%s", dirName(p.Name), time.Now().Format("20060102-150405")))
	} else if err := checkFreshOut(out, f); err != nil {
		return err
	}
	work, err := workspace.NewRunDir()
	if err != nil {
		return fmt.Errorf("create work directory: %w", err)
	}
	defer os.RemoveAll(work)
	// The environment (spec, engine, image) is checked before anything
	// is written to the output directory.
	env, err := f.env.open(ctx, p, work, out)
	if err != nil {
		return err
	}
	defer env.close()
	command, from := f.command, "--command"
	if command == "" {
		command, from = env.command, env.commandFrom
	}
	// A placeholder the submission does not get ({port} for {{port}})
	// is refused before anything runs, naming where it was written.
	if err := run.CheckCommand(p, command, from); err != nil {
		return usageErr(err)
	}
	// Recorded results are what is evaluated (the manifest digests them,
	// so a resume refuses results changed since), but nothing runs: each
	// case's sandbox starts empty rather than as a copy of them.
	submission := f.submission
	if f.results != "" {
		f.submission = f.results
		submission = filepath.Join(work, "no-submission")
		if err := os.Mkdir(submission, 0o755); err != nil {
			return err
		}
		if err := reportUnclaimed(cmd.ErrOrStderr(), f.results, src.taskNames); err != nil {
			return usageErr(err)
		}
	}
	// A bad checkpoint name, submission or entry file is refused before
	// anything is written to the output directory.
	if err := run.CheckSubmission(p, submission, command, f.checkpoints); err != nil {
		return usageErr(err)
	}

	if f.out == "" && f.resume == "" {
		// The default name is the problem and the second the run starts:
		// a second run in the same second takes the next free name,
		// claimed by creating it, so two runs never share a directory.
		if out, err = claimDir(out); err != nil {
			return fmt.Errorf("create output directory: %w", err)
		}
	} else if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	// One writer per run directory, for the whole run: another run or
	// resume of it is refused from here on, naming this process.
	lock, err := journal.LockDir(out)
	if err != nil {
		return usageErr(fmt.Errorf("run: %w", err))
	}
	defer lock.Unlock()
	// Checked again under the lock: a run that started in the same
	// directory a moment earlier may have written results since.
	if err := checkFreshOut(out, f); err != nil {
		return err
	}
	runLog, err := os.OpenFile(filepath.Join(out, "run.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("open run log: %w", err)
	}
	defer runLog.Close()
	logw.set(runLog)
	if env.warning != "" {
		fmt.Fprintln(cmd.ErrOrStderr(), "warning:", env.warning)
		fmt.Fprintln(runLog, "warning:", env.warning)
	}
	man, finished, err := startManifest(p, f, env, out, givenArgs(cmd, problemPath), checked, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	if shared := refs.Shared(); shared != nil {
		// What the lock resolved each reference to, and who signed it.
		man.Shared = shared
		if err := manifest.Write(out, man); err != nil {
			return err
		}
	}

	var executor run.Executor
	var queue *distributed
	if f.queue.on() {
		// What the coordinator says (groups refused or given up, objects
		// of the artifact store replaced) is kept in the run's log too.
		coordLog := io.MultiWriter(cmd.ErrOrStderr(), runLog)
		if queue, err = f.queue.coordinator(ctx, f, p, checked, problemPath, submission, env.rt.Name(), man.RunID, out, coordLog); err != nil {
			failRun(man, out)
			return err
		}
		defer queue.close()
		executor = queue.coord
	}
	prog := newProgress(f.progress, cmd.ErrOrStderr())
	res, err := run.Run(ctx, run.Options{
		Problem: p, Submission: submission, Checkpoints: f.checkpoints, OutDir: out,
		Jobs: f.jobs, Policy: policy, ErrorPolicy: errPolicy, Command: command,
		RetryErrors: f.retryErrors, RetryBackoff: f.retryWait, Epochs: f.epochs, Reducer: reducer,
		Runtime:  env.rt,
		Loader:   src.loader,
		Plugins:  plugins,
		Progress: prog,
		// The verdict cache, unless --no-cache.
		VerdictCache: f.cache.open(cmd.ErrOrStderr()),
		RunID:        man.RunID,
		Resume:       finished,
		Lock:         lock,
		Browser:      f.browser,
		Executor:     executor,
		Slots:        f.slots,
	})
	prog.Stop()
	queue.record(man)
	if err != nil {
		failRun(man, out)
		var je *run.JournalError
		if errors.As(err, &je) {
			return usageErr(fmt.Errorf("run: %w\nonce the journal can be written again (free space), continue the run with: wasmeval run --resume %s", err, out))
		}
		return usageErr(err)
	}
	htmlPath, err := finishRun(man, out, res)
	if err != nil {
		return err
	}
	if res.ExecutorError != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "wasmeval: run: the queue failed: %v\ncontinue the run with: wasmeval run --resume %s\n", res.ExecutorError, out)
	}
	w := cmd.OutOrStdout()
	fmt.Fprintln(w)
	report.PrintTable(w, res.Summaries)
	if err := report.PrintFailures(w, out, f.failures); err != nil {
		// The journal was just written and the reports read it: a list
		// that cannot be printed is said, the run's results stand.
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: list the failures: %v\n", err)
	}
	printCache(w, res.VerdictCache)
	fmt.Fprintf(w, "\nresults: %s\nreport:  %s\n", out, htmlPath)
	if src.afterRun != nil {
		if err := src.afterRun(out); err != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "warning: %v\n", err)
		}
	}
	if !res.Interrupted && !f.noHistory {
		dir := f.history
		if dir == "" {
			dir = src.history
		}
		if dir != "" {
			if err := recordHistory(w, dir, out, man); err != nil {
				// The run's own results are safe in its directory; a
				// history that cannot be written is said, not fatal.
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: %v\n", err)
			}
		}
	}
	if res.Interrupted {
		return &exitError{code: exitInterrupted, err: errors.New("interrupted: finished cases are in " + res.JournalPath)}
	}
	again := retryHint
	if f.results != "" {
		// Recorded results are the run's submission: changed, they make
		// another run, which --resume refuses.
		again = "fix the recorded results they name and run again"
	}
	return verdictExit(res.Verdict, again)
}

// retryHint says how a live run's errored cases are run again.
const retryHint = "`wasmeval run --resume DIR --retry-errors N` runs them again (all but cases that could not be loaded)"

// verdictExit is the exit status of a finished run's verdict; again says
// how the cases that ended in an error can be judged after all.
func verdictExit(v result.Verdict, again string) error {
	switch v {
	case result.VerdictPassed:
		return nil
	case result.VerdictInconclusive:
		return &exitError{code: exitInconclusive, err: errors.New("inconclusive: cases that ended in an error (not the submission's answers) decide a checkpoint's verdict; the report lists them, and " + again)}
	}
	return &exitError{code: exitFail}
}

// isTerminal reports whether w is an interactive terminal.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// errorPolicyUsage is the --error-policy flag's help.
const errorPolicyUsage = "how cases that end in an error (the harness failed, not the submission) count: inconclusive (a checkpoint they decide is neither passed nor failed), fail, ignore"

// failuresUsage is the --failures flag's help.
const failuresUsage = "after the table, list failing or errored cases in this many lines at most, each with why; cases that fail alike share a line (0: none)"

// maxRetryErrors bounds --retry-errors: past a few tries, an error that
// keeps coming back is the harness's state, not bad luck.
const maxRetryErrors = 20

// maxEpochs bounds --epochs.
const maxEpochs = 1000

// claimDir creates base, or base-2, base-3, … when taken, and returns the
// one it created.
func claimDir(base string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return "", err
	}
	for i := 1; ; i++ {
		dir := base
		if i > 1 {
			dir = fmt.Sprintf("%s-%d", base, i)
		}
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) || i >= 1000 {
			return "", err
		}
	}
}

// dirName is a problem's name as one directory name: the name comes from
// the problem's files, which are not to choose where a run writes, so
// whatever is not a letter, a digit or one of - _ . becomes _ (a name of
// ../../tmp/x stays under wasmeval-out).
func dirName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	s := strings.TrimLeft(string(b), ".")
	if s == "" {
		return "run"
	}
	return s
}
