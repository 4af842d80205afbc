package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/tetratelabs/wazero"

	"github.com/wasmeval/wasmeval/engine/batch"
	"github.com/wasmeval/wasmeval/engine/distribute"
	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/run"
)

type batchFlags struct {
	submissions   string
	inputs        string
	out           string
	resume        string
	jobs          int
	policy        string
	errorPolicy   string
	progressEvery time.Duration
	seed          int64
	// queue and workers are passed to every pair's run (run --queue,
	// --workers); not recorded in batch.json, since a queue URL may hold
	// credentials: give them again to --resume.
	queue   string
	creds   string
	workers int
}

func newBatchCmd() *cobra.Command {
	var f batchFlags
	cmd := &cobra.Command{
		Use:   "batch PROBLEM... (--submissions DIR | --inputs FILE) --out BATCH_DIR",
		Short: "Run many submissions against many problems; write a leaderboard and one table of every case",
		Long: `Run every submission against every problem. Each pair runs as an ordinary
run directory BATCH_DIR/runs/<submission>/<problem>/ (so report, compare and
run --resume work on it), and the batch writes BATCH_DIR/batch.json (the
leaderboard), leaderboard.html and results.parquet (every case of every pair,
with submission and problem columns).

PROBLEM is a problem directory or a glob of them (quote it); problems are
named by their directory. --submissions DIR holds DIR/<submission>/<problem>/;
--inputs FILE is a YAML file naming problems and submissions instead. A
submission without a directory for a problem is reported as missing there.

--jobs bounds concurrency in total: up to that many pairs run side by side,
and every pair's groups take their turn from one pool of --jobs slots, so a
pair with many groups uses the slots the others leave idle. --resume BATCH_DIR skips finished pairs and resumes interrupted
ones.

Exit status: 0 when every pair ran (whatever its verdict), 1 when a pair was
refused, 2 on bad input, 130 when interrupted.`,
		RunE: func(cmd *cobra.Command, args []string) error { return runBatch(cmd, args, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.submissions, "submissions", "", "directory of submissions: <name>/<problem>/")
	fl.StringVar(&f.inputs, "inputs", "", "YAML file naming the problems and submissions (instead of PROBLEM... and --submissions)")
	fl.StringVarP(&f.out, "out", "o", "", "batch directory (required unless --resume)")
	fl.StringVar(&f.resume, "resume", "", "continue the batch in this directory: finished pairs are kept, interrupted ones resumed")
	fl.IntVarP(&f.jobs, "jobs", "j", 1, "groups to run concurrently in total, across pairs and within them")
	fl.StringVar(&f.policy, "pass-policy", string(result.DefaultPolicy), "pass policy of every pair (see run --help)")
	fl.StringVar(&f.errorPolicy, "error-policy", string(result.DefaultErrorPolicy), errorPolicyUsage)
	fl.Int64Var(&f.seed, "seed", 0, "seed given to every pair (run --seed): submissions see it as $"+seedEnv+"; recorded in batch.json and each pair's manifest")
	fl.StringVar(&f.queue, "queue", "", "run every pair distributed: its groups go to `wasmeval worker` processes through the NATS JetStream server at nats://HOST:PORT (run --queue; give it again to --resume)")
	fl.StringVar(&f.creds, "queue-creds", "", "with --queue: authenticate with this NATS credentials `FILE` (run --queue-creds; give it again to --resume)")
	fl.IntVar(&f.workers, "workers", 0, "run every pair's groups in N local worker processes through an embedded NATS server (run --workers)")
	fl.DurationVar(&f.progressEvery, "progress-every", 5*time.Second, "print the batch's progress this often (0: only when a pair ends)")
	return cmd
}

func runBatch(cmd *cobra.Command, args []string, f batchFlags) error {
	if f.jobs < 1 {
		return usageErr(fmt.Errorf("batch: --jobs must be at least 1, got %d", f.jobs))
	}
	if _, err := result.ParsePolicy(f.policy); err != nil {
		return usageErr(fmt.Errorf("batch: --pass-policy: %w", err))
	}
	if _, err := result.ParseErrorPolicy(f.errorPolicy); err != nil {
		return usageErr(fmt.Errorf("batch: --error-policy: %w", err))
	}
	if f.creds != "" && f.queue == "" {
		return usageErr(errors.New("batch: --queue-creds goes with --queue"))
	}
	if f.queue != "" {
		// Every pair would fail alike on a server it cannot use: say so
		// once, before the batch directory is made.
		nc, _, err := distribute.Connect(cmd.Context(), f.queue, "wasmeval batch", distribute.WithCreds(f.creds))
		if err != nil {
			return usageErr(fmt.Errorf("batch: %w", err))
		}
		nc.Close()
	}
	var (
		bf  *batch.File
		dir string
	)
	if f.resume != "" {
		if len(args) > 0 || f.submissions != "" || f.inputs != "" {
			return usageErr(errors.New("batch --resume: the batch's problems and submissions are in its batch.json; give no PROBLEM, --submissions or --inputs"))
		}
		if f.out != "" && filepath.Clean(f.out) != filepath.Clean(f.resume) {
			return usageErr(fmt.Errorf("batch --resume %s: --out %s differs; a resumed batch continues in its own directory", f.resume, f.out))
		}
		dir = f.resume
		var err error
		if bf, err = batch.ReadFile(dir); err != nil {
			return usageErr(fmt.Errorf("batch --resume: %w", err))
		}
		if cmd.Flags().Changed("jobs") {
			bf.Jobs = f.jobs
		}
		if cmd.Flags().Changed("seed") && (bf.Seed == nil || *bf.Seed != f.seed) {
			return usageErr(fmt.Errorf("batch --resume %s: --seed %d is not the batch's seed; results of two seeds are not comparable", dir, f.seed))
		}
	} else {
		if f.out == "" {
			return usageErr(errors.New("batch: --out BATCH_DIR is required (or --resume BATCH_DIR)"))
		}
		plan, err := batchPlan(args, f)
		if err != nil {
			return usageErr(err)
		}
		dir = f.out
		bf = &batch.File{Plan: *plan, Jobs: f.jobs, PassPolicy: f.policy, ErrorPolicy: f.errorPolicy, StartedAt: time.Now().UTC()}
		if cmd.Flags().Changed("seed") {
			seed := f.seed
			bf.Seed = &seed
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create batch directory: %w", err)
	}
	// One writer per batch directory: a second batch (or resume) in it is
	// refused while this one runs.
	lock, err := journal.LockDir(dir)
	if err != nil {
		return usageErr(fmt.Errorf("batch: %w", err))
	}
	defer lock.Unlock()
	if f.resume == "" {
		if _, err := os.Stat(filepath.Join(dir, batch.FileName)); err == nil {
			return usageErr(fmt.Errorf("batch: %s already holds a batch; continue it with --resume %s, or choose another --out", dir, dir))
		}
	}
	bf.Status = batch.StatusRunning
	refused := map[string]string{}
	update := func() error {
		pairs, err := batch.Collect(dir, &bf.Plan)
		if err != nil {
			return err
		}
		for i := range pairs {
			if msg, ok := refused[pairs[i].Submission+"/"+pairs[i].Problem]; ok {
				pairs[i].Status, pairs[i].Error = batch.PairRefused, msg
			}
		}
		bf.Pairs, bf.Totals = pairs, batch.Totals(&bf.Plan, pairs)
		bf.UpdatedAt = time.Now().UTC()
		return batch.WriteFile(dir, bf)
	}
	if err := update(); err != nil {
		return err
	}
	ctx := cmd.Context()
	errw := cmd.ErrOrStderr()
	warmWazero()
	// One pool of --jobs group slots for every pair: a pair's groups and
	// the other pairs' draw from it, so a pair with many groups uses the
	// slots the others leave idle.
	slots := run.NewSlots(bf.Jobs)
	st, runErr := batch.Run(ctx, &bf.Plan, batch.Options{
		Dir: dir, Jobs: bf.Jobs, Progress: errw, ProgressEvery: f.progressEvery,
		RunPair: func(ctx context.Context, k batch.PairKey, runDir string, resume bool, jobs int) (batch.PairRun, error) {
			return runPair(ctx, dir, bf, f, k, runDir, resume, jobs, slots)
		},
		Changed: func() {
			if err := update(); err != nil {
				fmt.Fprintf(errw, "warning: update %s: %v\n", batch.FileName, err)
			}
		},
	})
	if st != nil {
		refused = st.Refused
	}
	bf.Status = batch.StatusComplete
	if st == nil || st.Interrupted || runErr != nil {
		bf.Status = batch.StatusInterrupted
	}
	if err := update(); err != nil {
		return err
	}
	if runErr != nil {
		return runErr
	}
	if err := writeBatchReports(dir, bf); err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	fmt.Fprintln(w)
	batch.PrintLeaderboard(w, &bf.Plan, bf.Pairs, bf.Totals)
	for _, p := range bf.Pairs {
		if p.Status == batch.PairRefused {
			fmt.Fprintf(w, "refused: %s/%s: %s\n", p.Submission, p.Problem, p.Error)
		}
	}
	fmt.Fprintf(w, "\nbatch: %s\n", dir)
	if bf.Status == batch.StatusInterrupted {
		return &exitError{code: exitInterrupted, err: fmt.Errorf("interrupted: finished pairs are kept; continue with: wasmeval batch --resume %s", dir)}
	}
	if len(refused) > 0 {
		return &exitError{code: exitFail, err: fmt.Errorf("%d pair(s) refused; see above", len(refused))}
	}
	return nil
}

// batchPlan is the plan from PROBLEM... and --submissions, or --inputs.
func batchPlan(args []string, f batchFlags) (*batch.Plan, error) {
	if f.inputs != "" {
		if len(args) > 0 || f.submissions != "" {
			return nil, errors.New("batch: --inputs names the problems and submissions; give no PROBLEM or --submissions with it")
		}
		return batch.LoadInputs(f.inputs)
	}
	if len(args) == 0 || f.submissions == "" {
		return nil, errors.New("batch: give PROBLEM... and --submissions DIR, or --inputs FILE")
	}
	problems, err := batch.ExpandProblems(args)
	if err != nil {
		return nil, fmt.Errorf("batch: %w", err)
	}
	subs, err := batch.ScanSubmissions(f.submissions, problems)
	if err != nil {
		return nil, fmt.Errorf("batch: %w", err)
	}
	plan := &batch.Plan{Problems: problems, Submissions: subs}
	if err := batch.CheckPlan(plan, true); err != nil {
		return nil, err
	}
	return plan, nil
}

// runPair runs one pair through the same command as `wasmeval run` (flags
// parsed the same way, the same run directory, manifest and reports), its
// console output kept in BATCH_DIR/logs/<submission>/<problem>.log.
func runPair(ctx context.Context, batchDir string, bf *batch.File, f batchFlags, k batch.PairKey, runDir string, resume bool, jobs int, slots *run.Slots) (batch.PairRun, error) {
	logPath := filepath.Join(batchDir, "logs", k.Submission, k.Problem+".log")
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return batch.PairRun{}, err
	}
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return batch.PairRun{}, err
	}
	defer logf.Close()
	args := []string{"--jobs", strconv.Itoa(jobs), "--progress", "none", "--failures", "0", "--no-history"}
	if resume {
		args = append(args, "--resume", runDir)
	} else {
		args = append(args, k.ProblemDir, "--submission", k.SubmissionDir, "--out", runDir,
			"--pass-policy", bf.PassPolicy, "--error-policy", bf.ErrorPolicy)
		if bf.Seed != nil {
			args = append(args, "--seed", strconv.FormatInt(*bf.Seed, 10))
		}
	}
	logged := args
	if f.queue != "" {
		args = append(args, "--queue", f.queue)
		logged = append(logged, "--queue", "(given)") // may hold credentials
	}
	if f.creds != "" {
		args = append(args, "--queue-creds", f.creds)
		logged = append(logged, "--queue-creds", f.creds)
	}
	if f.workers > 0 {
		args = append(args, "--workers", strconv.Itoa(f.workers))
		logged = append(logged, "--workers", strconv.Itoa(f.workers))
	}
	fmt.Fprintf(logf, "$ wasmeval run %q\n", logged)
	rc := newRunCmdIn(slots)
	rc.SetArgs(args)
	rc.SetOut(logf)
	rc.SetErr(logf)
	rc.SilenceErrors, rc.SilenceUsage = true, true
	err = rc.ExecuteContext(ctx)
	return classifyPair(err, logf), nil
}

// classifyPair turns a run's result into the batch's view of the pair: a
// finished run (passed, failed or inconclusive) is done; an interrupted one
// is resumed next time; any other error refused the pair.
func classifyPair(err error, log io.Writer) batch.PairRun {
	if err == nil {
		return batch.PairRun{}
	}
	var ee *exitError
	if errors.As(err, &ee) {
		switch ee.code {
		case exitFail, exitInconclusive:
			return batch.PairRun{}
		case exitInterrupted:
			return batch.PairRun{Interrupted: true}
		}
	}
	fmt.Fprintln(log, "wasmeval:", err)
	return batch.PairRun{Refused: err.Error()}
}

// writeBatchReports writes what is derived from the pairs' run
// directories: results.parquet, the table of every case, and
// leaderboard.html.
func writeBatchReports(dir string, bf *batch.File) error {
	if _, err := batch.WriteResults(dir, bf.Pairs); err != nil {
		return fmt.Errorf("batch: %w", err)
	}
	if err := batch.WriteLeaderboard(dir, bf); err != nil {
		return fmt.Errorf("batch: %w", err)
	}
	return nil
}

// isBatchDir reports whether dir holds a batch (batch.json).
func isBatchDir(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, batch.FileName))
	return err == nil
}

// runBatchReport is `wasmeval report BATCH_DIR`: the leaderboard as text,
// batch.json's content as json, or the HTML page; with --compare
// OTHER_BATCH, the pairs whose results changed (exit 1 when one
// regressed).
func runBatchReport(cmd *cobra.Command, dir string, f reportFlags) error {
	bf, err := batch.ReadFile(dir)
	if err != nil {
		return usageErr(fmt.Errorf("report: %w", err))
	}
	w := cmd.OutOrStdout()
	if f.compare != "" {
		base, err := batch.ReadFile(f.compare)
		if err != nil {
			return usageErr(fmt.Errorf("report --compare: %w", err))
		}
		changes := batch.Compare(bf, base)
		switch f.format {
		case "text":
			batch.PrintCompare(w, dir, f.compare, changes)
		case "json":
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			if changes == nil {
				changes = []batch.PairChange{}
			}
			if err := enc.Encode(map[string]any{"batch": dir, "baseline": f.compare, "changes": changes}); err != nil {
				return err
			}
		default:
			return usageErr(fmt.Errorf("report: --compare of two batches prints text or json, not %s", f.format))
		}
		if n := batch.Regressions(changes); n > 0 {
			return &exitError{code: exitFail, err: fmt.Errorf("%d pair(s) regressed", n)}
		}
		return nil
	}
	switch f.format {
	case "text":
		batch.PrintLeaderboard(w, &bf.Plan, bf.Pairs, bf.Totals)
		return nil
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(bf)
	case "html":
		return batch.RenderLeaderboard(w, bf)
	}
	return usageErr(fmt.Errorf("report: a batch directory is reported as text, json or html, not %s", f.format))
}

// warmWazero makes wazero look up its own version once, before pairs start
// plugin hosts side by side: wazero caches it in a global without
// synchronisation on the first compilation cache made, so two hosts made at
// once race on it (seen with -race). A cache in a temporary directory is
// the cheapest call that does it.
func warmWazero() {
	dir, err := os.MkdirTemp("", "wasmeval-warm-")
	if err != nil {
		return
	}
	defer os.RemoveAll(dir)
	if c, err := wazero.NewCompilationCacheWithDir(dir); err == nil {
		c.Close(context.Background())
	}
}
