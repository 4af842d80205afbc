package batch

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/report/parquet"
	"github.com/wasmeval/wasmeval/engine/report/synth"
)

// benchLayouts are the layouts BenchmarkResultsParquet compares: a run's
// row groups (at most 4,096 rows, 8 MiB) and the batch table's.
var benchLayouts = []struct {
	name   string
	layout parquet.Layout
}{
	{"run", parquet.Layout{}},
	{"table", parquet.TableLayout},
}

// BenchmarkResultsParquet writes a batch's results.parquet of 100k rows
// (one pair) and of 1,000,000 rows (ten pairs of 100k), in a run's layout
// and in the table's, and reports each one's peak heap (MiB in use, the
// collector's garbage included), peak live heap (MiB marked live by a
// collection: what the writer holds) and rows/s, and the 1M/100k ratios:
// the table streams through bounded row groups, so the ratios stay near 1
// however many pairs the batch has.
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
	type batchDir struct {
		dir   string
		pairs []PairResult
	}
	batches := map[int]batchDir{}
	for _, n := range []int{1, 10} {
		bd, pairs := batchOf(n)
		batches[n] = batchDir{bd, pairs}
	}
	for _, l := range benchLayouts {
		type peaks struct{ heap, live float64 }
		got := map[int]peaks{}
		for _, n := range []int{1, 10} {
			bd, pairs := batches[n].dir, batches[n].pairs
			rows := n * perPair
			b.Run(fmt.Sprintf("layout=%s/rows=%d", l.name, rows), func(b *testing.B) {
				var p peaks
				for range b.N {
					h := synth.StartHeapPeak()
					live := startLivePeak()
					written, err := writeResults(bd, pairs, l.layout)
					if err != nil {
						b.Fatal(err)
					}
					p.live = max(p.live, live.stop())
					p.heap = max(p.heap, h.Stop())
					if written != int64(rows) {
						b.Fatalf("%d rows written, want %d", written, rows)
					}
				}
				b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
				b.ReportMetric(p.heap, "peak-heap-MiB")
				b.ReportMetric(p.live, "peak-live-MiB")
				got[rows] = p
			})
		}
		if a, z := got[100_000], got[1_000_000]; a.heap > 0 && z.heap > 0 {
			b.Logf("layout %s: 1M/100k rows: peak heap %.2f, peak live heap %.2f", l.name, z.heap/a.heap, z.live/a.live)
		}
	}
}

// livePeak samples the live heap as of the last collection
// (/gc/heap/live:bytes) every 5 ms: unlike the heap in use, it does not
// move with when the collector runs, so it shows what the writer holds.
type livePeak struct {
	mu   sync.Mutex
	peak uint64
	done chan struct{}
	wg   sync.WaitGroup
}

func startLivePeak() *livePeak {
	p := &livePeak{done: make(chan struct{})}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			if s[0].Value.Kind() == metrics.KindUint64 {
				p.mu.Lock()
				p.peak = max(p.peak, s[0].Value.Uint64())
				p.mu.Unlock()
			}
			select {
			case <-p.done:
				return
			case <-t.C:
			}
		}
	}()
	return p
}

// stop ends sampling and returns the peak in MiB.
func (p *livePeak) stop() float64 {
	close(p.done)
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	return float64(p.peak) / (1 << 20)
}
