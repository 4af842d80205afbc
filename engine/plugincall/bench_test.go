package plugincall

import (
	"context"
	"testing"

	"github.com/wasmeval/wasmeval/engine/checkspec"
	"github.com/wasmeval/wasmeval/engine/verify"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// BenchmarkVerifier compares, in one run, verification of the same case by
// the built-in checks and by the example verifier plugin (pooled instances,
// all cores), and reports calls per second for both.
//
//	go test -run '^$' -bench Verifier -benchtime 3s ./engine/plugincall/
func BenchmarkVerifier(b *testing.B) {
	c, actual := benchCase()
	b.Run("builtin", func(b *testing.B) {
		specs := []checkspec.CheckSpec{{Kind: "status"}, {Kind: "json", Tolerance: 0.001}}
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				for _, s := range specs {
					// As engine/run runs them.
					if r := verify.Run(s, actual, c.Expected, verify.Env{RawJSON: true}); !r.IsCorrect {
						b.Error("wrong verdict")
					}
				}
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
	})
	for _, iso := range []string{host.InProcess, host.Process} {
		b.Run("plugin-"+iso, func(b *testing.B) {
			p := loadVerifier(b, iso)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					attrs, err := Verify(context.Background(), p, c, actual, benchConfig, host.CallOptions{})
					if err != nil || len(attrs) != 2 || !attrs[0].IsCorrect || !attrs[1].IsCorrect {
						b.Errorf("verdict %v %+v", err, attrs)
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
		})
	}
}
