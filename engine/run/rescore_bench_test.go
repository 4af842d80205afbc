package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pin"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// recordedRun writes a problem of n cases in groups of groupSize (built-in
// checks only) and the journal of a run of it, each case's output about
// outBytes long; one case in four recorded a wrong output, wrongBytes
// long.
func recordedRun(tb testing.TB, n, groupSize, outBytes, wrongBytes int) (problemDir, runDir string) {
	return recordedRunVerified(tb, n, groupSize, outBytes, wrongBytes, nil, "")
}

// recordedRunVerified is recordedRun with a verifier plugin (the module
// wasm, stored in the problem as verifier.wasm) bound to every group with
// config (a YAML flow mapping); no plugin when wasm is nil.
func recordedRunVerified(tb testing.TB, n, groupSize, outBytes, wrongBytes int, wasm []byte, config string) (problemDir, runDir string) {
	tb.Helper()
	problemDir, runDir = tb.TempDir(), tb.TempDir()
	groups := (n + groupSize - 1) / groupSize
	var cfg strings.Builder
	cfg.WriteString("name: recorded\ncommand: \"true\"\n")
	if wasm != nil {
		if err := os.WriteFile(filepath.Join(problemDir, "verifier.wasm"), wasm, 0o644); err != nil {
			tb.Fatal(err)
		}
		fmt.Fprintf(&cfg, "verifier: {type: plugin, path: verifier.wasm, sha256: %s, config: %s}\n", pin.Digest(wasm), config)
	}
	cfg.WriteString("checkpoints:\n  c1:\n    groups:\n")
	for g := 0; g < groups; g++ {
		fmt.Fprintf(&cfg, "      g%03d: {type: Core}\n", g)
	}
	if err := os.WriteFile(filepath.Join(problemDir, "config.yaml"), []byte(cfg.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	os.MkdirAll(filepath.Join(problemDir, "c1"), 0o755)
	w, err := journal.Create(filepath.Join(runDir, journal.FileName))
	if err != nil {
		tb.Fatal(err)
	}
	defer w.Close()
	line := strings.Repeat("x", max(outBytes-20, 1))
	for g := 0; g < groups; g++ {
		var cases strings.Builder
		for i := g * groupSize; i < min(n, (g+1)*groupSize); i++ {
			want := fmt.Sprintf("%d %s\n", i, line)
			fmt.Fprintf(&cases, "case_%06d: {order: %d, expected: {output: %s}}\n", i, i, strconv.Quote(want))
			got := want
			if i%4 == 3 {
				got = fmt.Sprintf("%d wrong %s\n", i, strings.Repeat("y", wrongBytes))
			}
			rec := &result.CaseRecord{Problem: "recorded", Checkpoint: "c1", Group: fmt.Sprintf("g%03d", g), GroupType: "Core",
				ID: fmt.Sprintf("case_%06d", i), Index: i - g*groupSize, StartedAt: time.Unix(0, 0).UTC(),
				Case:       &result.CaseInfo{Arguments: []string{}, TimeoutS: 30},
				Result:     result.Execution{Output: got},
				Attributes: []verify.AttributeResult{{Attribute: "output", Actual: got, Expected: want, IsCorrect: got == want, Weight: 1}}}
			rec.Score, rec.Passed = result.Score(rec.Attributes)
			if err := w.Append(rec); err != nil {
				tb.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(problemDir, "c1", fmt.Sprintf("g%03d.yaml", g)), []byte(cases.String()), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return problemDir, runDir
}

// rescoreVerifier is how a benchmark's recorded problem is verified:
// built-in checks (no build), or a verifier plugin, built from source and
// bound to every group with config.
type rescoreVerifier struct {
	name   string
	build  func(out string) error
	config string
	// changed is how many of n cases a rescore with it turns from fail
	// to pass.
	changed func(n int) int
}

var rescoreVerifiers = []rescoreVerifier{
	{name: "builtin", changed: func(int) int { return 0 }},
	// The smallest verifier (no batches, a fixed verdict: everything
	// passes): the engine's cost of a plugin call, one case per call.
	{name: "minimal", build: func(out string) error { return pluginbuild.Build("../../plugins/host/testdata/minimal", out) },
		config: "{}", changed: func(n int) int { return n / 4 }},
	// The Rust SDK's conformance verifier, comparing the output as text:
	// the verdicts of the built-in check.
	{name: "rust", build: func(out string) error { return pluginbuild.BuildRust("../../plugins/conformance/rust/lib.rs", out) },
		config: "{output: text}", changed: func(int) int { return 0 }},
}

var (
	builtMu sync.Mutex
	built   = map[string][]byte{}
)

// module builds the verifier's plugin, once per test binary.
func (v rescoreVerifier) module(tb testing.TB) []byte {
	tb.Helper()
	builtMu.Lock()
	defer builtMu.Unlock()
	if data, ok := built[v.name]; ok {
		return data
	}
	dir, err := os.MkdirTemp("", "wasmeval-rescore-bench-")
	if err != nil {
		tb.Fatal(err)
	}
	defer os.RemoveAll(dir)
	wasm := filepath.Join(dir, v.name+".wasm")
	if err := v.build(wasm); err != nil {
		if errors.Is(err, pluginbuild.ErrToolchain) {
			tb.Skip(err)
		}
		tb.Fatal(err)
	}
	data, err := os.ReadFile(wasm)
	if err != nil {
		tb.Fatal(err)
	}
	built[v.name] = data
	return data
}

// rescoreSizes are the case counts BenchmarkRescore rescores, in one run;
// WASMEVAL_RESCORE_CASES sets others (comma-separated).
func rescoreSizes(tb testing.TB) []int {
	s := os.Getenv("WASMEVAL_RESCORE_CASES")
	if s == "" {
		return []int{10000, 100000}
	}
	var sizes []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			tb.Fatalf("WASMEVAL_RESCORE_CASES: %q is not a case count", f)
		}
		sizes = append(sizes, n)
	}
	return sizes
}

// rescoreMeasure is one rescore of a benchmark or test.
type rescoreMeasure struct {
	wall time.Duration
	cpu  time.Duration // this process's
	// workers is the plugin worker processes' CPU time (they run the
	// plugin's code).
	workers time.Duration
	peak    uint64 // HeapInuse, sampled
	base    uint64 // HeapInuse before
	// live is the largest live heap a collection found (what the rescore
	// held, without the garbage a collection had yet to free).
	live uint64
}

// heapPeaks samples, while fn runs, HeapInuse (what the heap took, garbage
// included: it depends on when collections ran) and the live heap as of
// the last collection (what was held).
func heapPeaks(fn func()) (inuse, live uint64) {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var ms goruntime.MemStats
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		for {
			goruntime.ReadMemStats(&ms)
			metrics.Read(sample)
			inuse = max(inuse, ms.HeapInuse)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				live = max(live, sample[0].Value.Uint64())
			}
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	fn()
	close(stop)
	<-done
	return inuse, live
}

// measureRescore rescores a recorded run of n cases (groups of 1,000,
// outputs of 400 bytes) with v, two groups at a time, and checks what it
// says.
func measureRescore(tb testing.TB, v rescoreVerifier, n int) rescoreMeasure {
	tb.Helper()
	var wasm []byte
	if v.build != nil {
		wasm = v.module(tb)
	}
	prob, from := recordedRunVerified(tb, n, 1000, 400, 10, wasm, v.config)
	p, err := LoadProblem(prob)
	if err != nil {
		tb.Fatal(err)
	}
	goruntime.GC()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	var res *RescoreOutcome
	cpu0, workers0 := cpuTime(syscall.RUSAGE_SELF), cpuTime(syscall.RUSAGE_CHILDREN)
	start := time.Now()
	peak, live := heapPeaks(func() {
		var h *host.Host
		if wasm != nil {
			// Worker processes, as the CLI runs plugins; closed (and
			// so waited for) before the time is taken.
			if h, err = host.New(host.Options{CacheDir: filepath.Join(os.TempDir(), "wasmeval-test-cache"), Isolation: host.Process}); err != nil {
				return
			}
			defer h.Close()
		}
		res, err = Rescore(context.Background(), RescoreOptions{Problem: p, From: from, Loader: BuiltinLoader, Plugins: h, Jobs: 2},
			RescoreTarget{OutDir: filepath.Join(tb.TempDir(), "out")})
	})
	m := rescoreMeasure{wall: time.Since(start), cpu: cpuTime(syscall.RUSAGE_SELF) - cpu0, workers: cpuTime(syscall.RUSAGE_CHILDREN) - workers0,
		peak: peak, base: ms.HeapInuse, live: live - min(live, ms.HeapAlloc)}
	if err != nil {
		tb.Fatal(err)
	}
	if res.Rescored != n || res.VerdictsChanged != v.changed(n) || res.LeftOut != 0 || res.NotRun != 0 {
		tb.Fatalf("rescored %d of %d, %d verdicts changed (want %d), %d left out, %d not run", res.Rescored, n, res.VerdictsChanged, v.changed(n), res.LeftOut, res.NotRun)
	}
	return m
}

// cpuTime is the user and system time this process (RUSAGE_SELF) or its
// children waited for (RUSAGE_CHILDREN) have used.
func cpuTime(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRescore rescores recorded runs of 10,000 and 100,000 cases
// (groups of 1,000, --jobs 2) with built-in checks, the minimal verifier
// plugin and the Rust SDK's conformance verifier, reporting for each the
// time per case, the total, the CPU time of this process (the engine's
// part: journal, loader, checks, records, summaries, the host's side of
// plugin calls) and of the plugin worker processes (the plugin's part),
// and the peak heap; after both sizes it prints the ratio of their peak
// heaps, which stays near 1: what a rescore holds does not grow with the
// cases.
//
//	go test -run '^$' -bench Rescore -benchtime 1x -timeout 60m ./engine/run/
func BenchmarkRescore(b *testing.B) {
	sizes := rescoreSizes(b)
	for _, v := range rescoreVerifiers {
		b.Run(v.name, func(b *testing.B) {
			var mu sync.Mutex
			peaks := map[int]float64{}
			for _, n := range sizes {
				b.Run(strconv.Itoa(n), func(b *testing.B) {
					var wall, cpu, workers time.Duration
					var peak, live uint64
					for i := 0; i < b.N; i++ {
						b.StopTimer()
						m := measureRescore(b, v, n)
						b.StartTimer()
						wall += m.wall
						cpu += m.cpu
						workers += m.workers
						peak = max(peak, m.peak)
						live = max(live, m.live)
					}
					b.ReportMetric(float64(wall.Microseconds())/float64(b.N*n), "µs/case")
					b.ReportMetric(wall.Seconds()/float64(b.N), "s")
					b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s")
					if v.build != nil {
						b.ReportMetric(workers.Seconds()/float64(b.N), "worker-cpu-s")
					}
					b.ReportMetric(float64(peak)/(1<<20), "MiB-peak-heap")
					b.ReportMetric(float64(live)/(1<<20), "MiB-peak-live")
					mu.Lock()
					peaks[n] = float64(peak)
					mu.Unlock()
				})
			}
			if len(sizes) > 1 && peaks[sizes[0]] > 0 && peaks[sizes[len(sizes)-1]] > 0 {
				lo, hi := sizes[0], sizes[len(sizes)-1]
				// Printed, not logged: a parent benchmark's log is dropped without -v.
				fmt.Printf("Rescore %s: peak heap at %d cases / at %d cases = %.2f\n", v.name, hi, lo, peaks[hi]/peaks[lo])
			}
		})
	}
}

// What a rescore holds does not grow with the cases: the heap it holds
// when a group ends (after a collection, so garbage is not counted; one
// group at a time, so another's cases in flight are not either) is at
// most 1.5 times as large at 100,000 cases as at 10,000, measured in the
// same run. The sampled peaks (HeapInuse, and the live heap as the
// collector last found it) are logged: they also count what a collection
// had yet to free, or was allocated while it marked, which depends on
// when collections run (more so on a loaded machine) and varied by a
// third between runs here.
func TestRescoreHeapIsFlat(t *testing.T) {
	if testing.Short() || raceBuild {
		t.Skip("rescores 110,000 cases")
	}
	mib := func(n uint64) float64 { return float64(n) / (1 << 20) }
	held := func(n int) uint64 {
		prob, from := recordedRun(t, n, 1000, 400, 10)
		p, err := LoadProblem(prob)
		if err != nil {
			t.Fatal(err)
		}
		goruntime.GC()
		var ms goruntime.MemStats
		goruntime.ReadMemStats(&ms)
		before := ms.HeapAlloc
		g := &heldAtGroupEnd{}
		var res *RescoreOutcome
		inuse, live := heapPeaks(func() {
			res, err = Rescore(context.Background(), RescoreOptions{Problem: p, From: from, Loader: BuiltinLoader, Jobs: 1},
				RescoreTarget{OutDir: filepath.Join(t.TempDir(), "out"), Progress: g})
		})
		if err != nil || res.Rescored != n {
			t.Fatalf("%+v %v", res, err)
		}
		t.Logf("%d cases: held at most %.1f MiB when a group ended; peaks: HeapInuse %.1f MiB, live %.1f MiB", n, mib(g.max-min(g.max, before)), mib(inuse), mib(live))
		return g.max - min(g.max, before)
	}
	small, large := held(10000), held(100000)
	if float64(large) > 1.5*float64(small) {
		t.Errorf("held %.2f times as much at 100,000 cases as at 10,000", float64(large)/float64(small))
	}
}

// heldAtGroupEnd is a progress that collects garbage as each group ends
// and notes the largest heap left.
type heldAtGroupEnd struct {
	nopProgress
	mu  sync.Mutex
	max uint64
}

func (h *heldAtGroupEnd) GroupFinished(string, string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	goruntime.GC()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	h.max = max(h.max, ms.HeapAlloc)
}

// A rescore holds the records of a batch, not of the journal: rescoring
// 2,000 cases of which 500 recorded a wrong output of 256 KiB (a journal
// of 125 MiB) keeps the heap far below the journal's size.
func TestRescoreHeapDoesNotHoldTheJournal(t *testing.T) {
	if testing.Short() || raceBuild {
		t.Skip("writes a 125 MiB journal")
	}
	prob, from := recordedRun(t, 2000, 500, 100, 256<<10)
	st, err := os.Stat(filepath.Join(from, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	p, err := LoadProblem(prob)
	if err != nil {
		t.Fatal(err)
	}
	var res *RescoreOutcome
	goruntime.GC()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms) // what earlier tests left is not the rescore's
	peak := peakHeap(func() {
		res, err = Rescore(context.Background(), RescoreOptions{Problem: p, From: from, Loader: BuiltinLoader},
			RescoreTarget{OutDir: filepath.Join(t.TempDir(), "out")})
	})
	peak -= min(ms.HeapInuse, peak)
	if err != nil || res.Rescored != 2000 || res.VerdictsChanged != 0 {
		t.Fatalf("%+v %v", res, err)
	}
	if limit := uint64(st.Size() / 3); peak > limit {
		t.Errorf("peak heap %d MiB for a %d MiB journal", peak>>20, st.Size()>>20)
	}
	t.Logf("peak heap %d MiB for a %d MiB journal", peak>>20, st.Size()>>20)
}
