package conformance

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/host"
)

// BenchmarkIsolation calls each language's reference verifier with the
// same vector in both isolations, pooled on all cores: in process, where
// the module is compiled with termination checks, and in worker processes,
// where it is compiled without and a call crosses a pipe. It is what the
// choice of the CLI's default isolation rests on (plugins/host/RATIONALE.md).
//
//	go test -run '^$' -bench Isolation -benchtime 2s ./plugins/conformance/
func BenchmarkIsolation(b *testing.B) {
	vec := vectorNamed(b, "verify_json_diff")
	for _, lang := range Languages {
		for _, iso := range []string{host.InProcess, host.Process} {
			b.Run(lang.Name+"/"+iso, func(b *testing.B) {
				p := loadIn(b, lang, iso)
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
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
			})
		}
	}
}

// vectorNamed is the conformance vector of that name.
func vectorNamed(tb testing.TB, name string) *Vector {
	vectors, err := LoadVectors("vectors")
	if err != nil {
		tb.Fatal(err)
	}
	for _, v := range vectors {
		if v.name == name {
			return v
		}
	}
	tb.Fatalf("vector %s missing", name)
	return nil
}

// loadIn loads a language's reference plugin into a new host with that
// isolation and its own compilation cache, closed when tb ends.
func loadIn(tb testing.TB, lang Language, isolation string) *host.Plugin {
	h, err := host.New(host.Options{CacheDir: filepath.Join(tb.TempDir(), "cache"), Isolation: isolation})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { h.Close() })
	p, err := h.Load(context.Background(), Reference(tb, lang), "")
	if err != nil {
		tb.Fatal(err)
	}
	return p
}
