package main

import (
	"fmt"
	"io"

	"github.com/wasmeval/wasmeval/engine/manifest"
	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/report/history"
)

// recordHistory adds the finished run in out to the history in dir and
// prints what changed since the run before it, case by case, so a
// regression is seen without asking for a comparison.
func recordHistory(w io.Writer, dir, out string, m *manifest.Manifest) error {
	doc, err := report.EvalResultsOf(out, m.StartedAt)
	if err != nil {
		return fmt.Errorf("history %s: %w", dir, err)
	}
	entry, prev, err := history.Record(dir, m.RunID, m.StartedAt, doc)
	if err != nil {
		return fmt.Errorf("history %s: %w", dir, err)
	}
	fmt.Fprintf(w, "history: %s\n", entry.Path)
	if prev == nil {
		fmt.Fprintln(w, "(the first run in this history: nothing to compare with)")
		return nil
	}
	history.Compare(prev.Results, doc).Print(w)
	return nil
}
