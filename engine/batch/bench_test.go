package batch

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmeval/wasmeval/engine/report/synth"
)

// BenchmarkResultsParquet writes a batch's results.parquet of 100k rows
// (one pair) and of 1,000,000 rows (ten pairs of 100k) and reports each
// one's peak heap (MiB), rows/s and the 1M/100k peak-heap ratio: the table
// streams through the per-run writer's bounded row groups, so the ratio
// stays near 1 however many pairs the batch has.
//
//	go test ./engine/batch -run '^$' -bench ResultsParquet -benchtime 1x
func BenchmarkResultsParquet(b *testing.B) {
	dir := b.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		b.Fatal(err)
	}
	const perPair = 100_000
	journalPath, err := synth.Journal(src, perPair)
	if err != nil {
		b.Fatal(err)
	}
	// A batch directory of n pairs, each journal a link to the same one.
	batchOf := func(n int) (string, []PairResult) {
		bd := filepath.Join(dir, fmt.Sprintf("batch-%d", n))
		var pairs []PairResult
		for i := range n {
			k := PairKey{Submission: fmt.Sprintf("s%02d", i), Problem: "p"}
			rd := filepath.Join(bd, k.RunDir())
			if err := os.MkdirAll(rd, 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.Link(journalPath, filepath.Join(rd, "results.jsonl")); err != nil {
				b.Fatal(err)
			}
			pairs = append(pairs, PairResult{Submission: k.Submission, Problem: k.Problem, Dir: k.RunDir(), Status: PairComplete, RunID: "r" + k.Submission})
		}
		return bd, pairs
	}
	peaks := map[int]float64{}
	for _, n := range []int{1, 10} {
		bd, pairs := batchOf(n)
		rows := n * perPair
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			var peak float64
			for range b.N {
				h := synth.StartHeapPeak()
				got, err := WriteResults(bd, pairs)
				if err != nil {
					b.Fatal(err)
				}
				peak = max(peak, h.Stop())
				if got != int64(rows) {
					b.Fatalf("%d rows written, want %d", got, rows)
				}
			}
			b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(peak, "peak-heap-MiB")
			peaks[rows] = peak
		})
	}
	if peaks[100_000] > 0 && peaks[1_000_000] > 0 {
		b.Logf("peak heap 1M/100k rows: %.2f", peaks[1_000_000]/peaks[100_000])
	}
}
