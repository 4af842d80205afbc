package conformance

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/host"
)

// BenchmarkIsolation calls each language's reference verifier with the
// same vector in both isolations, pooled on all cores: in process, where a
// native module runs with the host's preemption points and an Extism one
// under wazero's termination checks, and in worker processes, where the
// module is compiled without either and a call crosses to the worker. It
// is what the choice of the CLI's default isolation rests on
// (plugins/host/RATIONALE.md), with the CPU time a call costs the host
// and its workers together.
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
				self0, children0 := cpuTimes()
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
				reportCPU(b, self0, children0)
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
