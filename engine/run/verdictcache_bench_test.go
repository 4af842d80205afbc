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
// rescore starts its own plugin host (worker processes), as the CLI does,
// and verifies one group at a time, so the time spent verifying is not
// mixed with another group's reading and journaling. It reports the
// verification time of each per case and their ratio, for the minimal
// verifier (Go, no batches: one call per case) and the Rust SDK's
// conformance verifier (batches of 256).
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
		b.Run(v.name, func(b *testing.B) {
			wasm := v.module(b)
			prob, from := recordedRunVerified(b, n, 1000, 400, 10, wasm, v.config)
			p, err := LoadProblem(prob)
			if err != nil {
				b.Fatal(err)
			}
			var cold, warm time.Duration
			for i := 0; i < b.N; i++ {
				store, err := callcache.Open(b.TempDir())
				if err != nil {
					b.Fatal(err)
				}
				c, counts := verifyTimeOfRescore(b, p, from, store)
				if counts.Hits != 0 || counts.Misses != int64(n) {
					b.Fatalf("cold: %+v, want %d misses", counts, n)
				}
				// The warm rescore opens the store again, as the
				// next process would: it reads the cache from disk.
				if store, err = callcache.Open(store.Dir()); err != nil {
					b.Fatal(err)
				}
				w, counts := verifyTimeOfRescore(b, p, from, store)
				if counts.Hits != int64(n) || counts.Misses != 0 {
					b.Fatalf("warm: %+v, want %d hits", counts, n)
				}
				cold += c
				warm += w
			}
			b.ReportMetric(float64(cold.Microseconds())/float64(b.N*n), "cold-µs/case")
			b.ReportMetric(float64(warm.Microseconds())/float64(b.N*n), "warm-µs/case")
			b.ReportMetric(float64(warm)/float64(cold), "warm/cold")
		})
	}
}

// verifyTimeOfRescore rescores the run in from with the verdict cache in
// store, and returns the time spent verifying and the cache's counts.
func verifyTimeOfRescore(b testing.TB, p *problem.Problem, from string, store *callcache.Store) (time.Duration, CacheCounts) {
	b.Helper()
	h, err := host.New(host.Options{CacheDir: filepath.Join(os.TempDir(), "wasmeval-test-cache"), Isolation: host.Process})
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
	return time.Duration(rs.plugins.verifying.Load()), *res.VerdictCache
}
