package run

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/runtime/local"
)

// trivialProblem writes a problem with n cases whose submission exits at
// once, so what is measured is the engine's own cost per case.
func trivialProblem(tb testing.TB, n int, isolated bool) (problemDir, submission string) {
	tb.Helper()
	dir := tb.TempDir()
	cfg := fmt.Sprintf("name: trivial\ncommand: \"true\"\ncheckpoints:\n  c1:\n    groups:\n      g:\n        type: Core\n        isolated: %v\n", isolated)
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o644); err != nil {
		tb.Fatal(err)
	}
	for i := 0; i < n; i++ {
		cdir := filepath.Join(dir, "c1", "g", fmt.Sprintf("case_%05d", i))
		if err := os.MkdirAll(cdir, 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cdir, "case.yaml"), []byte("expected: {status_code: 0}\n"), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	sub := tb.TempDir()
	os.WriteFile(filepath.Join(sub, "README"), []byte("a submission that needs no files\n"), 0o644)
	return dir, sub
}

// peakHeap samples HeapInuse while fn runs.
func peakHeap(fn func()) uint64 {
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms goruntime.MemStats
		for {
			goruntime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	fn()
	close(stop)
	wg.Wait()
	return peak.Load()
}

func runTrivial(b *testing.B, prob, sub string) {
	p, err := LoadProblem(prob)
	if err != nil {
		b.Fatal(err)
	}
	res, err := Run(context.Background(), Options{
		Problem: p, Submission: sub, OutDir: b.TempDir(),
		Runtime: local.New(local.Options{BaseDir: b.TempDir()}), Loader: BuiltinLoader,
	})
	if err != nil || !res.Passed {
		b.Fatalf("trivial run failed: %v", err)
	}
}

// bareLoop is the least any harness does per case: start the command and
// collect its exit status, stdout and stderr.
func bareLoop(b *testing.B, n int) {
	for i := 0; i < n; i++ {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command("true")
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEngineOverhead runs n trivial cases through the engine and the
// same number of bare `true` spawns in the same iteration, and reports the
// ratio engine/bare along with the engine's peak heap.
//
//	go test -run '^$' -bench EngineOverhead -benchtime 3x ./engine/run/
func BenchmarkEngineOverhead(b *testing.B) {
	for _, isolated := range []bool{false, true} {
		for _, n := range []int{1000, 10000} {
			b.Run(fmt.Sprintf("isolated=%v/cases=%d", isolated, n), func(b *testing.B) {
				prob, sub := trivialProblem(b, n, isolated)
				var engine, bare time.Duration
				var peak uint64
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					t0 := time.Now()
					h := peakHeap(func() { runTrivial(b, prob, sub) })
					engine += time.Since(t0)
					if h > peak {
						peak = h
					}
					t1 := time.Now()
					bareLoop(b, n)
					bare += time.Since(t1)
				}
				b.ReportMetric(float64(engine.Microseconds())/float64(b.N*n), "engine-µs/case")
				b.ReportMetric(float64(bare.Microseconds())/float64(b.N*n), "bare-µs/case")
				b.ReportMetric(float64(engine)/float64(bare), "engine/bare")
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			})
		}
	}
}
