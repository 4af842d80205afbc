package run

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/plugins/callcache"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// BenchmarkVerdictCache rescores a recorded run of 10,000 cases (groups
// of 1,000, outputs of 400 bytes, one in four wrong) twice with one fresh
// verdict cache: cold, when every call is made and its answer kept, then
// warm, nothing changed, when every call is answered from the cache. Each
// rescore starts its own plugin host, as the CLI does, in the CLI's
// default isolation (auto: the Rust verifier in process, the minimal
// verifier, an Extism module, in worker processes) and in worker
// processes (process), and verifies one group at a time, so the time spent verifying is not
// mixed with another group's reading and journaling. It reports the
// verification time of each per case and their ratio, for the minimal
// verifier (Go, no batches: one call per case) and the Rust SDK's
// conformance verifier (batches of 256). It also reports the time each
// rescore spent loading its plugin (host.Load), and the ratio with it
// counted on both sides; a warm rescore must run no plugin code: start no
// worker, compile no module.
// WASMEVAL_BENCH_CASES changes the case count.
//
//	go test -run '^$' -bench VerdictCache -benchtime 1x ./engine/run/
func BenchmarkVerdictCache(b *testing.B) {
	n := 10000
	if s := os.Getenv("WASMEVAL_BENCH_CASES"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			b.Fatalf("WASMEVAL_BENCH_CASES: %q is not a case count", s)
		}
	}
	for _, v := range rescoreVerifiers {
		if v.build == nil {
			continue
		}
		for _, iso := range []string{host.Auto, host.Process} {
			b.Run(v.name+"/"+iso, func(b *testing.B) {
				p, from, hostCache := cacheBenchRun(b, v, n)
				var cold, warm, coldLoad, warmLoad time.Duration
				for i := 0; i < b.N; i++ {
					store, err := callcache.Open(b.TempDir())
					if err != nil {
						b.Fatal(err)
					}
					c := rescoreCached(b, p, from, store, hostCache, iso)
					if c.counts.Hits != 0 || c.counts.Misses != int64(n) {
						b.Fatalf("cold: %+v, want %d misses", c.counts, n)
					}
					// The warm rescore opens the store again, as the
					// next process would: it reads the cache from disk.
					if store, err = callcache.Open(store.Dir()); err != nil {
						b.Fatal(err)
					}
					w := rescoreCached(b, p, from, store, hostCache, iso)
					if w.counts.Hits != int64(n) || w.counts.Misses != 0 {
						b.Fatalf("warm: %+v, want %d hits", w.counts, n)
					}
					if w.workers != 0 || w.compiled != 0 {
						b.Fatalf("warm: %d plugin workers started, %d modules compiled, want none", w.workers, w.compiled)
					}
					cold += c.verifying
					warm += w.verifying
					coldLoad += c.loading
					warmLoad += w.loading
				}
				b.ReportMetric(float64(cold.Microseconds())/float64(b.N*n), "cold-µs/case")
				b.ReportMetric(float64(warm.Microseconds())/float64(b.N*n), "warm-µs/case")
				b.ReportMetric(float64(warm)/float64(cold), "warm/cold")
				// Loading the plugin, which a warm rescore does too: with
				// the describe cache it starts no worker.
				b.ReportMetric(float64(coldLoad.Microseconds())/float64(b.N)/1000, "cold-load-ms")
				b.ReportMetric(float64(warmLoad.Microseconds())/float64(b.N)/1000, "warm-load-ms")
				b.ReportMetric(float64(warm+warmLoad)/float64(cold+coldLoad), "warm/cold-with-load")
			})
		}
	}
}

// cacheBenchRun records a run of n cases verified by v and loads its
// problem; hostCache is the plugin host's cache directory to use.
func cacheBenchRun(b *testing.B, v rescoreVerifier, n int) (p *problem.Problem, from, hostCache string) {
	b.Helper()
	prob, from := recordedRunVerified(b, n, 1000, 400, 10, v.module(b), v.config)
	p, err := LoadProblem(prob)
	if err != nil {
		b.Fatal(err)
	}
	return p, from, filepath.Join(os.TempDir(), "wasmeval-test-cache")
}

// verifyTimeOfRescore rescores the run in from with the verdict cache in
// store, and returns the time spent verifying and the cache's counts.
func verifyTimeOfRescore(b testing.TB, p *problem.Problem, from string, store *callcache.Store) (time.Duration, CacheCounts) {
	b.Helper()
	r := rescoreCached(b, p, from, store, filepath.Join(os.TempDir(), "wasmeval-test-cache"), host.Process)
	return r.verifying, r.counts
}

// cachedRescore is what rescoreCached measured.
type cachedRescore struct {
	verifying time.Duration // in verifyCases
	loading   time.Duration // loading the plugins (host.Load)
	counts    CacheCounts
	workers   int64 // plugin worker processes started
	compiled  int64 // modules compiled in the host's process
	outcome   *RescoreOutcome
}

// rescoreCached rescores the run in from with the verdict cache in store
// and a plugin host of its own (in isolation, the compilation and
// describe caches in hostCache), as the CLI does.
func rescoreCached(b testing.TB, p *problem.Problem, from string, store *callcache.Store, hostCache, isolation string) cachedRescore {
	b.Helper()
	h, err := host.New(host.Options{CacheDir: hostCache, Isolation: isolation})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	rs, err := PrepareRescore(context.Background(), RescoreOptions{Problem: p, From: from, Loader: BuiltinLoader, Plugins: h, Jobs: 1, VerdictCache: store})
	if err != nil {
		b.Fatal(err)
	}
	res, err := rs.Run(context.Background(), RescoreTarget{OutDir: filepath.Join(b.TempDir(), "out")})
	if err != nil {
		b.Fatal(err)
	}
	if res.VerdictCache == nil {
		b.Fatal("no verdict cache counts")
	}
	return cachedRescore{verifying: time.Duration(rs.plugins.verifying.Load()), loading: time.Duration(rs.plugins.loading.Load()),
		counts: *res.VerdictCache, workers: h.WorkersStarted(), compiled: h.ModulesCompiled(), outcome: res}
}

// BenchmarkCacheHits is the warm half of BenchmarkVerdictCache on its own,
// for profiling what a hit costs: one cold rescore fills the cache, then
// every iteration is a warm rescore of the 10,000 cases (a store opened
// again, as by the next process). It reports the time spent verifying per
// case, which is the hits and what the engine does around them.
//
//	go test -run '^$' -bench CacheHits/rust -benchtime 10x -cpuprofile cpu.out ./engine/run/
func BenchmarkCacheHits(b *testing.B) {
	n := 10000
	for _, v := range rescoreVerifiers {
		if v.build == nil {
			continue
		}
		b.Run(v.name, func(b *testing.B) {
			p, from, hostCache := cacheBenchRun(b, v, n)
			store, err := callcache.Open(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			if c := rescoreCached(b, p, from, store, hostCache, host.Auto); c.counts.Misses != int64(n) {
				b.Fatalf("cold: %+v, want %d misses", c.counts, n)
			}
			var warm time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if store, err = callcache.Open(store.Dir()); err != nil {
					b.Fatal(err)
				}
				w := rescoreCached(b, p, from, store, hostCache, host.Auto)
				if w.counts.Hits != int64(n) || w.workers != 0 || w.compiled != 0 {
					b.Fatalf("warm: %+v, %d workers, %d modules compiled, want %d hits and none", w.counts, w.workers, w.compiled, n)
				}
				warm += w.verifying
			}
			b.ReportMetric(float64(warm.Nanoseconds())/1000/float64(b.N*n), "warm-µs/case")
		})
	}
}
