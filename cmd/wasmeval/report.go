package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmeval/wasmeval/engine/compare"
	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/manifest"
	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/report/html"
	"github.com/wasmeval/wasmeval/engine/report/junit"
	"github.com/wasmeval/wasmeval/engine/report/rundir"
	"github.com/wasmeval/wasmeval/engine/result"
)

type reportFlags struct {
	compare  string
	format   string
	output   string
	policy   string
	errors   string
	write    bool
	salvage  bool
	failures int
}

func newReportCmd() *cobra.Command {
	var f reportFlags
	cmd := &cobra.Command{
		Use:   "report RUN_DIR",
		Short: "Summarise a finished (or interrupted) run; compare two runs",
		Long: `Summarise the run in RUN_DIR from its results journal: pass counts per
checkpoint, group and group type. With --compare OTHER, list the cases that
regressed (passed in OTHER, fail in RUN_DIR) and those fixed.

Formats: text (default), json, markdown, junit (JUnit XML for CI), html
(the self-contained page run writes as report.html), eval-results (pass
counts by category and a short entry per case: the shape eval-case
harnesses keep their runs in).

A journal with corrupt lines (not a torn last line: lines in the middle
that are not case records) is refused, naming each line. With --salvage,
they are moved to results.corrupt beside the journal and the run is
reported from the other records, marked interrupted: run --resume then
runs the cases of the lines moved.

A run still being written is reported from the cases finished so far, and
the report says so on stderr.

Exit status: 0, or 1 when --compare finds regressions, 2 on bad input.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReport(cmd, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.compare, "compare", "", "baseline run directory to compare with")
	fl.StringVar(&f.format, "format", "text", "output format: text, json, markdown, junit, html, eval-results")
	fl.StringVarP(&f.output, "output", "o", "", "write to this file instead of stdout")
	fl.StringVar(&f.policy, "pass-policy", "", "judge checkpoints with this policy instead of the run's")
	fl.StringVar(&f.errors, "error-policy", "", "count errored cases with this error policy instead of the run's: inconclusive, fail, ignore")
	fl.BoolVar(&f.write, "write", false, "also regenerate results.parquet and report.html in RUN_DIR")
	fl.IntVar(&f.failures, "failures", report.DefaultConsoleFailures, "with --format text: "+failuresUsage)
	fl.BoolVar(&f.salvage, "salvage", false, "move corrupt journal lines to results.corrupt and report the other results (the run is then marked interrupted)")
	return cmd
}

func runReport(cmd *cobra.Command, dir string, f reportFlags) error {
	if isBatchDir(dir) {
		return runBatchReport(cmd, dir, f)
	}
	switch f.format {
	case "text", "json", "markdown", "junit", "html", "eval-results":
	default:
		return usageErr(fmt.Errorf("report: --format %q: expected text, json, markdown, junit, html or eval-results", f.format))
	}
	if f.failures < 0 {
		return usageErr(fmt.Errorf("report: --failures must be 0 (no list) or more, got %d", f.failures))
	}
	if f.compare != "" && (f.format == "junit" || f.format == "html" || f.format == "eval-results") {
		return usageErr(fmt.Errorf("report: --compare prints text, json or markdown, not %s", f.format))
	}
	var policy result.Policy
	if f.policy != "" {
		p, err := result.ParsePolicy(f.policy)
		if err != nil {
			return usageErr(fmt.Errorf("report: --pass-policy: %w", err))
		}
		policy = p
	}
	var errPolicy result.ErrorPolicy
	if f.errors != "" {
		p, err := result.ParseErrorPolicy(f.errors)
		if err != nil {
			return usageErr(fmt.Errorf("report: --error-policy: %w", err))
		}
		errPolicy = p
	}
	stderr := cmd.ErrOrStderr()
	if f.salvage {
		c, err := rundir.Salvage(dir)
		if err != nil {
			return usageErr(fmt.Errorf("report --salvage: %w", err))
		}
		if c != nil {
			fmt.Fprintf(stderr, "warning: %v\nthey are set aside in %s; the run is marked interrupted, and `wasmeval run --resume %s` runs their cases again\n",
				c, filepath.Join(dir, journal.SetAsideName), dir)
		}
	}
	run, err := rundir.Open(dir, policy, errPolicy)
	var corrupt *journal.Corruption
	if errors.As(err, &corrupt) {
		return usageErr(fmt.Errorf("report: %w\n`wasmeval report --salvage %s` sets these lines aside (in %s) and reports the other results; `wasmeval run --resume %s` does too, and runs their cases again",
			err, dir, journal.SetAsideName, dir))
	}
	if err != nil {
		return usageErr(err)
	}
	noteWriter(stderr, dir, run)
	if note := report.DuplicateNote(run.Info.DuplicatesIgnored); note != "" {
		fmt.Fprintf(stderr, "note: %s: %s\n", filepath.Join(dir, journal.FileName), note)
	}
	if f.write {
		if err := run.WriteFiles(); err != nil {
			return err
		}
	}
	if f.output == "" {
		return writeReport(cmd.OutOrStdout(), f, dir, run)
	}
	// The report replaces --output whole or not at all: a full disk must
	// not leave a cut-off JUnit file for CI to read as the whole run.
	err = writeFileAtomic(f.output, func(w io.Writer) error { return writeReport(w, f, dir, run) })
	var ee *exitError
	if err != nil && !errors.As(err, &ee) {
		return usageErr(fmt.Errorf("report: --output: %w", err))
	}
	return err
}

func writeReport(w io.Writer, f reportFlags, dir string, run *rundir.Run) error {
	if f.compare != "" {
		return reportCompare(w, f, dir)
	}
	switch f.format {
	case "json":
		return report.WriteJSON(w, dir, run.Info, run.Summaries)
	case "markdown":
		return report.WriteMarkdown(w, dir, run.Info, run.Summaries)
	case "junit":
		return junit.Write(w, dir, run.Info, run.Summaries)
	case "html":
		opts := run.HTMLOptions()
		opts.ArtifactBase = artifactBase(f.output, dir)
		return html.Write(w, dir, opts, run.Summaries)
	case "eval-results":
		// The run's start, from its manifest; without one, the earliest
		// case's.
		var runAt time.Time
		if run.Manifest != nil {
			runAt = run.Manifest.StartedAt
		}
		return report.WriteEvalResults(w, dir, runAt)
	}
	fmt.Fprintf(w, "%s  run %s", run.Info.Problem, run.Info.RunID)
	if run.Info.Status != "" {
		fmt.Fprintf(w, " (%s)", run.Info.Status)
	}
	fmt.Fprintln(w)
	report.PrintSummary(w, run.Summaries)
	return report.PrintFailures(w, dir, f.failures)
}

// noteWriter says, on stderr (stdout may be a JUnit or JSON document),
// when the run is not finished: still being written, or stopped without
// ending (killed or crashed). Reading a run being written is safe: the
// report covers the records written so far.
func noteWriter(w io.Writer, dir string, run *rundir.Run) {
	if run.Manifest != nil && run.Manifest.Status != manifest.StatusRunning {
		// A run that ended wrote whole lines only: a torn last one is
		// damage done since, and the case it held is not in the report.
		jpath := filepath.Join(dir, journal.FileName)
		if torn, err := journal.TornTail(jpath); err == nil && torn {
			fmt.Fprintf(w, "warning: the run in %s ended (%s), yet the last line of %s is cut short: the journal was damaged since, and the case that line held is not in this report\n",
				dir, run.Manifest.Status, jpath)
		}
		return
	}
	if run.Manifest == nil {
		return
	}
	switch {
	case run.Writer.Active && run.Writer.PID > 0:
		fmt.Fprintf(w, "note: the run in %s is in progress (pid %d is writing it): this report covers the cases finished so far\n", dir, run.Writer.PID)
	case run.Writer.Active:
		fmt.Fprintf(w, "note: the run in %s is in progress: this report covers the cases finished so far\n", dir)
	case run.Writer.Known:
		fmt.Fprintf(w, "note: the run in %s stopped without ending (it was killed or crashed): this report covers the cases it finished; `wasmeval run --resume %s` runs the rest\n", dir, dir)
	}
}

func reportCompare(w io.Writer, f reportFlags, dir string) error {
	res, err := compare.Runs(f.compare, dir)
	if err != nil {
		return usageErr(err)
	}
	switch f.format {
	case "json":
		if err := res.WriteJSON(w); err != nil {
			return err
		}
	case "markdown":
		res.WriteMarkdown(w)
	default:
		res.Print(w)
	}
	if len(res.Regressions) > 0 {
		return &exitError{code: exitFail, err: errors.New("regressions found")}
	}
	return nil
}

// artifactBase is the run directory as the HTML page written to output
// sees it, for its links to screenshots and logs: "" when the page is
// in the run directory (or on stdout, read where the user chooses), else
// the run directory relative to the page's, or absolute when there is no
// relative path.
func artifactBase(output, dir string) string {
	if output == "" {
		return ""
	}
	from, err1 := filepath.Abs(filepath.Dir(output))
	to, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return filepath.ToSlash(dir)
	}
	if from == to {
		return ""
	}
	if rel, err := filepath.Rel(from, to); err == nil {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(to)
}
