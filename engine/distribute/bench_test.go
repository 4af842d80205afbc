package distribute

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/distribute/natstest"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/run"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
)

// sleepProblem writes a problem of groups×perGroup cases whose
// submission sleeps 100 ms: what limits its throughput is how many cases
// run at once, not the CPU, so more workers should scale it linearly even
// on a small machine.
func sleepProblem(tb testing.TB, groups, perGroup int) (problemDir, submission string) {
	tb.Helper()
	dir := tb.TempDir()
	cfg := "name: sleepy\ncommand: \"sleep 0.1\"\ncheckpoints:\n  c1:\n    groups:\n"
	for g := 0; g < groups; g++ {
		cfg += fmt.Sprintf("      g%03d:\n        type: Core\n", g)
		if err := os.MkdirAll(filepath.Join(dir, "c1", fmt.Sprintf("g%03d", g)), 0o755); err != nil {
			tb.Fatal(err)
		}
		for i := 0; i < perGroup; i++ {
			cdir := filepath.Join(dir, "c1", fmt.Sprintf("g%03d", g), fmt.Sprintf("case_%05d", i))
			if err := os.MkdirAll(cdir, 0o755); err != nil {
				tb.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(cdir, "case.yaml"), []byte("expected: {status_code: 0}\n"), 0o644); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o644); err != nil {
		tb.Fatal(err)
	}
	sub := tb.TempDir()
	os.WriteFile(filepath.Join(sub, "README"), []byte("a submission that needs no files\n"), 0o644)
	return dir, sub
}

// serveWorkers runs n in-process workers of one slot each on url until
// the returned func is called; prepare makes their runners.
func serveWorkers(tb testing.TB, url string, n int, prepare Prepare) func() {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		nc, js, err := Connect(ctx, url, "bench worker")
		if err != nil {
			tb.Fatal(err)
		}
		w := &Worker{Conn: nc, JS: js, Name: fmt.Sprintf("w%d", i), Slots: 1, Capabilities: []Capability{HostCapability("local")},
			Version: "bench", ABI: 1, CacheDir: tb.TempDir(), Prepare: prepare}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer nc.Close()
			_ = w.Serve(ctx)
		}()
	}
	return func() { cancel(); wg.Wait() }
}

// coordinate runs the problem through the queue at url and returns the
// run's outcome.
func coordinate(tb testing.TB, url, prob, sub, runID string) *run.Outcome {
	tb.Helper()
	p, err := run.LoadProblem(prob)
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	nc, js, err := Connect(ctx, url, "bench coordinator")
	if err != nil {
		tb.Fatal(err)
	}
	defer nc.Close()
	coord := &Coordinator{Conn: nc, JS: js, RunID: runID, Version: "bench", ABI: 1, ProblemDir: prob, Submission: sub,
		Needs: HostCapability("local")}
	res, err := run.Run(ctx, run.Options{Problem: p, Submission: sub, OutDir: tb.TempDir(), Loader: run.BuiltinLoader,
		Runtime: local.New(local.Options{BaseDir: tb.TempDir()}), Executor: coord})
	if err != nil {
		tb.Fatal(err)
	}
	if res.Interrupted {
		tb.Fatalf("run interrupted: %v", res.ExecutorError)
	}
	return res
}

// BenchmarkDistributedSleep runs 200 cases of 100 ms (20 groups of 10)
// with 1, 2 and 4 workers of one slot, and reports each one's cases per
// second and its speed-up over one worker measured in the same run.
func BenchmarkDistributedSleep(b *testing.B) {
	e, err := StartEmbedded(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer e.Stop()
	prob, sub := sleepProblem(b, 20, 10)
	prepare := func(ctx context.Context, job *Job, a *Fetched) (GroupRunner, error) {
		p, err := run.LoadProblem(a.ProblemDir)
		if err != nil {
			return nil, err
		}
		return run.NewGroups(ctx, run.Options{Problem: p, Submission: a.SubmissionDir, OutDir: b.TempDir(),
			Runtime: local.New(local.Options{BaseDir: b.TempDir()}), Loader: run.BuiltinLoader})
	}
	var base float64
	for _, n := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("workers=%d", n), func(b *testing.B) {
			stop := serveWorkers(b, e.URL(), n, prepare)
			defer stop()
			var elapsed time.Duration
			for i := 0; i < b.N; i++ {
				start := time.Now()
				coordinate(b, e.URL(), prob, sub, fmt.Sprintf("sleep-%d-%d", n, i))
				elapsed += time.Since(start)
			}
			rate := float64(200*b.N) / elapsed.Seconds()
			b.ReportMetric(rate, "cases/s")
			if n == 1 {
				base = rate
			}
			if base > 0 {
				b.ReportMetric(rate/base, "x-one-worker")
				b.ReportMetric(rate/base/float64(n), "of-linear")
			}
		})
	}
}

// syntheticRunner emits perGroup passing records per group without
// running anything: what is measured is the coordinator.
type syntheticRunner struct{ perGroup int }

func (s syntheticRunner) Run(ctx context.Context, checkpoint, group string, epoch int, _ []string, emit func(*result.CaseRecord, bool) error) error {
	for i := 0; i < s.perGroup; i++ {
		rec := &result.CaseRecord{Problem: "sleepy", Checkpoint: checkpoint, Group: group, GroupType: "Core", ID: fmt.Sprintf("case_%05d", i), Index: i,
			StartedAt: time.Now().UTC(), Case: &result.CaseInfo{Arguments: []string{}}, Outcome: result.OutcomePassed, Passed: true, Score: 1}
		if err := emit(rec, false); err != nil {
			return err
		}
	}
	return nil
}

func (syntheticRunner) Close() {}

// BenchmarkCoordinatorHeap reports the coordinator's peak heap for 10,000
// and 100,000 cases (100 groups), records made up by the workers: it
// must stay flat, since the coordinator holds a set per group in flight,
// streams records to the journal and spools the summaries' per-case
// entries.
func BenchmarkCoordinatorHeap(b *testing.B) {
	// A nats-server process of its own, so the streams it holds are not
	// counted in this process's heap.
	url := natstest.Start(b).URL()
	prob, sub := sleepProblem(b, 100, 0)
	for _, cases := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("cases=%d", cases), func(b *testing.B) {
			stop := serveWorkers(b, url, 4, func(context.Context, *Job, *Fetched) (GroupRunner, error) {
				return syntheticRunner{perGroup: cases / 100}, nil
			})
			defer stop()
			var peak, live uint64
			for i := 0; i < b.N; i++ {
				goruntime.GC()
				p, l := peakHeap(func() { coordinate(b, url, prob, sub, fmt.Sprintf("heap-%d-%d", cases, i)) })
				peak, live = max(peak, p), max(live, l)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(live)/(1<<20), "peak-live-MiB")
		})
	}
}

// peakHeap samples HeapInuse while fn runs, and the live heap as of the
// last collection (what is held, without the garbage a collection has
// yet to free); the workers run in this process too; their share is
// small and the same at both sizes.
func peakHeap(fn func()) (inuse, live uint64) {
	var peak, peakLive atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms goruntime.MemStats
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		for {
			goruntime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			metrics.Read(s)
			if s[0].Value.Kind() == metrics.KindUint64 && s[0].Value.Uint64() > peakLive.Load() {
				peakLive.Store(s[0].Value.Uint64())
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
	return peak.Load(), peakLive.Load()
}
