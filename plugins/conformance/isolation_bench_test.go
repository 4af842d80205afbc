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
	for _, lang := range Languages {
		for _, iso := range []string{host.InProcess, host.Process} {
			b.Run(lang.Name+"/"+iso, func(b *testing.B) {
				h, err := host.New(host.Options{CacheDir: filepath.Join(b.TempDir(), "cache"), Isolation: iso})
				if err != nil {
					b.Fatal(err)
				}
				defer h.Close()
				p, err := h.Load(context.Background(), Reference(b, lang), "")
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
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
			})
		}
	}
}
