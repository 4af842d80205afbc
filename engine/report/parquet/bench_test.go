package parquet

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/report/synth"
	"github.com/wasmeval/wasmeval/engine/result"
)

// BenchmarkParquet writes the Parquet file of a run from its journal at two
// sizes. Baseline, measured in the same run: decoding the same journal
// without writing anything. Reported: rows/s, peak heap (MiB) and the
// 100k/10k peak-heap ratio (flat memory means ~1).
func BenchmarkParquet(b *testing.B) {
	dir := b.TempDir()
	sizes := []int{10_000, 100_000}
	journals := map[int]string{}
	for _, n := range sizes {
		d := filepath.Join(dir, "j", string(rune('a'+len(journals))))
		os.MkdirAll(d, 0o755)
		p, err := synth.Journal(d, n)
		if err != nil {
			b.Fatal(err)
		}
		journals[n] = p
	}
	peaks := map[int]float64{}
	for _, n := range sizes {
		b.Run("decode-only/rows="+strconv.Itoa(n), func(b *testing.B) {
			var peak float64
			start := time.Now()
			for range b.N {
				h := synth.StartHeapPeak()
				if err := journal.Read(journals[n], func(*result.CaseRecord) error { return nil }); err != nil {
					b.Fatal(err)
				}
				peak = max(peak, h.Stop())
			}
			b.ReportMetric(float64(n*b.N)/time.Since(start).Seconds(), "rows/s")
			b.ReportMetric(peak, "peak-heap-MiB")
		})
		b.Run("parquet/rows="+strconv.Itoa(n), func(b *testing.B) {
			out := filepath.Join(dir, "out.parquet")
			var peak float64
			start := time.Now()
			for range b.N {
				h := synth.StartHeapPeak()
				if _, err := FromJournal(journals[n], out, "bench", "sub"); err != nil {
					b.Fatal(err)
				}
				peak = max(peak, h.Stop())
			}
			b.ReportMetric(float64(n*b.N)/time.Since(start).Seconds(), "rows/s")
			b.ReportMetric(peak, "peak-heap-MiB")
			st, _ := os.Stat(out)
			b.ReportMetric(float64(st.Size())/(1<<20), "file-MiB")
			jst, _ := os.Stat(journals[n])
			b.ReportMetric(float64(jst.Size())/(1<<20), "journal-MiB")
			peaks[n] = peak
		})
	}
	if peaks[10_000] > 0 && peaks[100_000] > 0 {
		b.Logf("peak heap 100k/10k rows: %.2f", peaks[100_000]/peaks[10_000])
	}
}
