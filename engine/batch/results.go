package batch

import (
	"os"
	"path/filepath"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/report/parquet"
)

// ResultsName is the batch's table of every case of every pair.
const ResultsName = parquet.FileName

// WriteResults writes batchDir/results.parquet: every row of every pair's
// own results.parquet (one per attempt of each case's epochs), the
// submission and problem columns holding the batch's names for the pair.
// It is the per-run writer fed one journal after another, so rows stream
// through bounded row groups whatever the batch's size, and the file is
// renamed into place only when whole. It returns the number of rows.
func WriteResults(batchDir string, pairs []PairResult) (int64, error) {
	// A batch's table runs to millions of rows, and the writer holds every
	// row group's metadata until it closes: the table's layout has fewer,
	// larger row groups than a run's (RATIONALE.md).
	return writeResults(batchDir, pairs, parquet.TableLayout)
}

func writeResults(batchDir string, pairs []PairResult, layout parquet.Layout) (int64, error) {
	w, err := parquet.CreateLayout(filepath.Join(batchDir, ResultsName), "", "", layout)
	if err != nil {
		return 0, err
	}
	for _, p := range pairs {
		jp := filepath.Join(batchDir, p.Dir, journal.FileName)
		if p.Status == PairMissing {
			continue
		}
		if _, err := os.Stat(jp); err != nil {
			continue // not started: no rows
		}
		w.SetRun(p.RunID, p.Submission, p.Problem)
		if _, err := report.ReadEveryAttempt(jp, w.Add); err != nil {
			w.Abort()
			return 0, err
		}
	}
	n := w.Rows()
	return n, w.Close()
}
