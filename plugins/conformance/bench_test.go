package conformance

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/host"
)

// SlowFactor is how much slower than the fastest SDK a language may be
// before the benchmark flags it.
const SlowFactor = 3

// BenchmarkSDKs calls each language's reference verifier, pooled and on all
// cores, with the same vector in the CLI's default process isolation, and
// reports calls/s and the module's size; it flags any language more than
// SlowFactor times slower than the fastest (docs/benchmarks.md).
//
//	go test -run '^$' -bench SDKs -benchtime 3s ./plugins/conformance/
func BenchmarkSDKs(b *testing.B) {
	vectors, err := LoadVectors("vectors")
	if err != nil {
		b.Fatal(err)
	}
	var vec *Vector
	for _, v := range vectors {
		if v.name == "verify_json_diff" {
			vec = v
		}
	}
	if vec == nil {
		b.Fatal("vector verify_json_diff missing")
	}
	var mu sync.Mutex
	rates := map[string]float64{}
	sizes := map[string]int64{}
	for _, lang := range Languages {
		b.Run(lang.Name, func(b *testing.B) {
			file := Reference(b, lang)
			st, err := os.Stat(file)
			if err != nil {
				b.Fatal(err)
			}
			h, err := host.New(host.Options{CacheDir: filepath.Join(b.TempDir(), "cache"), Isolation: host.Process})
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close()
			p, err := h.Load(context.Background(), file, "")
			if err != nil {
				b.Fatal(err)
			}
			want := vec.expand(*vec.Output)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					out, failure, err := call(context.Background(), p, vec)
					if err != nil || failure != "" || string(out) != want {
						b.Errorf("%s: wrong answer: %v %s %s", lang.Name, err, failure, head(out))
						return
					}
				}
			})
			rate := float64(b.N) / b.Elapsed().Seconds()
			b.ReportMetric(rate, "calls/s")
			b.ReportMetric(float64(st.Size()), "module-bytes")
			mu.Lock()
			rates[lang.Name], sizes[lang.Name] = rate, st.Size()
			mu.Unlock()
		})
	}
	if len(rates) == 0 {
		return
	}
	names := make([]string, 0, len(rates))
	best := 0.0
	for n, r := range rates {
		names = append(names, n)
		best = max(best, r)
	}
	sort.Strings(names)
	var report strings.Builder
	for _, n := range names {
		flag := ""
		if rates[n]*SlowFactor < best {
			flag = fmt.Sprintf("  SLOW: more than %dx slower than the fastest", SlowFactor)
		}
		fmt.Fprintf(&report, "\n%-15s %9.0f calls/s  %5.2fx of the fastest  %8d bytes%s", n, rates[n], rates[n]/best, sizes[n], flag)
	}
	// The Go and Rust SDKs on their two transports, measured in this run:
	// what the native transport gives over Extism's for the same plugin.
	for _, lang := range []string{"go", "rust"} {
		if n, e := rates[lang], rates[lang+"-extism"]; n > 0 && e > 0 {
			fmt.Fprintf(&report, "\n%s SDK, native transport / Extism transport: %.2fx", lang, n/e)
		}
	}
	// Printed, not logged: a parent benchmark's log is dropped without -v.
	fmt.Println("SDK comparison (verify, vector verify_json_diff, process isolation):" + report.String())
}
