package host

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// BenchmarkNativeTransport measures the native transport against the
// stdio transport through Extism in the same run: each iteration makes the
// same call once through each, and the benchmark reports both rates and
// their ratio. The two test plugins do the same work (encoding/json on the
// same ~2 KB verify envelope, or an echo of it or of 1 MB) and differ only
// in the transport.
//
//	go test -run '^$' -bench NativeTransport -benchtime 2000x ./plugins/host/
func BenchmarkNativeTransport(b *testing.B) {
	in := benchInput()
	in.Config = map[string]any{"mode": "ok"}
	verifyIn, err := json.Marshal(in)
	if err != nil {
		b.Fatal(err)
	}
	big := []byte(strings.Repeat("0123456789abcdef", 1<<16))
	for _, iso := range []string{Process, InProcess} {
		for _, tc := range []struct {
			name, export string
			input        []byte
		}{{"verify", "verify", verifyIn}, {"echo-2KB", "echo", verifyIn}, {"echo-1MB", "echo", big}} {
			b.Run(iso+"/"+tc.name, func(b *testing.B) {
				h := newHost(b, Options{Isolation: iso})
				native, stdio := load(b, h, "native"), load(b, h, "misbehave")
				call := func(p *Plugin) time.Duration {
					start := time.Now()
					out, err := p.Call(context.Background(), tc.export, tc.input, CallOptions{})
					if err != nil || len(out) == 0 {
						b.Fatalf("%s: %v", p.Label(), err)
					}
					return time.Since(start)
				}
				call(native) // warm both pools
				call(stdio)
				var tn, ts time.Duration
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					tn += call(native)
					ts += call(stdio)
				}
				b.ReportMetric(float64(b.N)/tn.Seconds(), "native-calls/s")
				b.ReportMetric(float64(b.N)/ts.Seconds(), "stdio-calls/s")
				b.ReportMetric(ts.Seconds()/tn.Seconds(), "native-speedup")
			})
		}
	}
}
