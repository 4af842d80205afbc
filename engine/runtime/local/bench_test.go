//go:build linux

package local

import (
	"context"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/runtime"
)

// BenchmarkExecContained runs `true` as a case under each isolation and, in
// the same iteration, starts `true` directly collecting its status and
// output (the least any harness does), and reports µs per case for both
// and their ratio: what the launcher's containment costs a case.
//
//	go test -run '^$' -bench ExecContained -benchtime 2000x ./engine/runtime/local/
func BenchmarkExecContained(b *testing.B) {
	for _, iso := range isolations {
		for _, mem := range []int64{0, 256 << 20} {
			b.Run(fmt.Sprintf("%s/memory-cap=%v", iso, mem > 0), func(b *testing.B) {
				s := openSessionWith(b, Options{Isolation: iso, MemoryBytes: mem}, nil)
				req := runtime.ExecRequest{Argv: []string{"true"}, Env: baseEnv, Timeout: time.Minute}
				var contained, bare time.Duration
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					t0 := time.Now()
					if res, err := s.Exec(context.Background(), req); err != nil || res.ExitCode != 0 {
						b.Fatalf("%+v %v", res, err)
					}
					t1 := time.Now()
					if err := exec.Command("true").Run(); err != nil {
						b.Fatal(err)
					}
					contained += t1.Sub(t0)
					bare += time.Since(t1)
				}
				b.ReportMetric(float64(contained.Microseconds())/float64(b.N), "contained-µs/case")
				b.ReportMetric(float64(bare.Microseconds())/float64(b.N), "bare-µs/case")
				b.ReportMetric(float64(contained)/float64(bare), "contained/bare")
			})
		}
	}
}
