package host

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// BenchmarkCacheHit measures the host's side of a verdict cache hit: a
// batch of 256 verify calls (outputs of about 400 bytes ending in a
// newline, one in four wrong, as engine/run's BenchmarkVerdictCache
// rescores), every one answered from an in-memory cache: encoding each
// call's envelope, its key, and checking and decoding the cached verdict.
// The store's own part is plugins/callcache's BenchmarkGetPacked. With
// -cpu 1 ns/hit is a hit's time on one core (lookups run on every core);
// cpu-ns/hit is the process's CPU time per hit, which the machine's load
// moves less than the wall time.
//
//	go test -run '^$' -bench CacheHit -cpu 1,2 -benchmem ./plugins/host/
func BenchmarkCacheHit(b *testing.B) {
	p := load(b, newHost(b, Options{Isolation: Process}), "misbehave")
	cache := newMemCache()
	opts := CallOptions{Cache: cache}
	ins := make([]abi.VerifyInput, MaxBatchCalls)
	line := strings.Repeat("x", 380)
	for i := range ins {
		ins[i] = verifyCall("", nil)
		ins[i].Case.ID = fmt.Sprintf("case_%06d", i)
		want := fmt.Sprintf("%d %s\n", i, line)
		ins[i].Expected = map[string]any{"output": want}
		ins[i].Actual.Output = want
		if i%4 == 3 {
			ins[i].Actual.Output = fmt.Sprintf("%d %s\n", i+1, line)
		}
	}
	cold, errs := p.VerifyBatch(context.Background(), ins, opts)
	for i, err := range errs {
		if err != nil {
			b.Fatalf("call %d: %v", i, err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for n := 0; n < b.N; n++ {
		warm, errs := p.VerifyBatch(context.Background(), ins, opts)
		if errs[0] != nil || len(warm[0].Attributes) != len(cold[0].Attributes) {
			b.Fatalf("call 0: %v, %v", warm[0], errs[0])
		}
	}
	b.StopTimer()
	cpu = cpuTime() - cpu
	if hits, misses, _ := cache.counts(); hits != b.N*len(ins) || misses != len(ins) {
		b.Fatalf("hits %d misses %d, want %d %d", hits, misses, b.N*len(ins), len(ins))
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ins)), "ns/hit")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*len(ins)), "cpu-ns/hit")
}
