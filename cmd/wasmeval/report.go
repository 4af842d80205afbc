package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/wasmeval/wasmeval/engine/compare"
	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/report/html"
	"github.com/wasmeval/wasmeval/engine/report/junit"
	"github.com/wasmeval/wasmeval/engine/report/rundir"
	"github.com/wasmeval/wasmeval/engine/result"
)

type reportFlags struct {
	compare string
	format  string
	output  string
	policy  string
	write   bool
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
(the self-contained page run writes as report.html).

Exit status: 0, or 1 when --compare finds regressions, 2 on bad input.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReport(cmd, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.compare, "compare", "", "baseline run directory to compare with")
	fl.StringVar(&f.format, "format", "text", "output format: text, json, markdown, junit, html")
	fl.StringVarP(&f.output, "output", "o", "", "write to this file instead of stdout")
	fl.StringVar(&f.policy, "pass-policy", "", "judge checkpoints with this policy instead of the run's")
	fl.BoolVar(&f.write, "write", false, "also regenerate results.parquet and report.html in RUN_DIR")
	return cmd
}

func runReport(cmd *cobra.Command, dir string, f reportFlags) error {
	switch f.format {
	case "text", "json", "markdown", "junit", "html":
	default:
		return usageErr(fmt.Errorf("report: --format %q: expected text, json, markdown, junit or html", f.format))
	}
	if f.compare != "" && (f.format == "junit" || f.format == "html") {
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
	run, err := rundir.Open(dir, policy)
	if err != nil {
		return usageErr(err)
	}
	if f.write {
		if err := run.WriteFiles(); err != nil {
			return err
		}
	}
	var w io.Writer = cmd.OutOrStdout()
	if f.output != "" {
		out, err := os.Create(f.output)
		if err != nil {
			return usageErr(fmt.Errorf("report: --output: %w", err))
		}
		defer out.Close()
		bw := bufio.NewWriter(out)
		defer bw.Flush()
		w = bw
	}
	if f.compare != "" {
		return reportCompare(w, f, dir)
	}
	switch f.format {
	case "json":
		return report.WriteJSON(w, run.Info, run.Summaries)
	case "markdown":
		return report.WriteMarkdown(w, dir, run.Info, run.Summaries)
	case "junit":
		return junit.Write(w, dir, run.Info, run.Summaries)
	case "html":
		return html.Write(w, dir, run.HTMLOptions(), run.Summaries)
	}
	fmt.Fprintf(w, "%s  run %s", run.Info.Problem, run.Info.RunID)
	if run.Info.Status != "" {
		fmt.Fprintf(w, " (%s)", run.Info.Status)
	}
	fmt.Fprintln(w)
	report.PrintSummary(w, run.Summaries)
	return nil
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
