package rundir

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/report/html"
	"github.com/wasmeval/wasmeval/engine/report/junit"
	"github.com/wasmeval/wasmeval/engine/report/synth"
)

// BenchmarkReport reads a run back the way `wasmeval report` does —
// summaries, then the HTML page and JUnit XML streamed from the journal —
// at 10k and 100k cases. Reported: rows/s, peak heap (MiB) and peak heap
// as a fraction of the journal's size: a reader holding every record
// would need several times the journal; a streaming one a small fraction.
func BenchmarkReport(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		dir := filepath.Join(b.TempDir(), strconv.Itoa(n))
		os.MkdirAll(dir, 0o755)
		jpath, err := synth.Journal(dir, n)
		if err != nil {
			b.Fatal(err)
		}
		st, _ := os.Stat(jpath)
		b.Run("rows="+strconv.Itoa(n), func(b *testing.B) {
			var peak float64
			start := time.Now()
			for range b.N {
				h := synth.StartHeapPeak()
				run, err := Open(dir, "", "")
				if err != nil {
					b.Fatal(err)
				}
				if err := html.Write(io.Discard, dir, run.HTMLOptions(), run.Summaries); err != nil {
					b.Fatal(err)
				}
				if err := junit.Write(io.Discard, dir, run.Info, run.Summaries); err != nil {
					b.Fatal(err)
				}
				if report.Sum(run.Summaries).Cases != n {
					b.Fatalf("summaries count %d cases", report.Sum(run.Summaries).Cases)
				}
				peak = max(peak, h.Stop())
			}
			b.ReportMetric(float64(n*b.N)/time.Since(start).Seconds(), "rows/s")
			b.ReportMetric(peak, "peak-heap-MiB")
			b.ReportMetric(peak/(float64(st.Size())/(1<<20)), "heap/journal")
		})
	}
}
