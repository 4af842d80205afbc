package conformance

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/plugins/host"
)

// TestAssemblyScriptMinimalRuntimeCollectsBetweenCalls: asc's minimal
// runtime collects nothing unless asked, so the SDK starts every call with
// a collection (sdk/assemblyscript/assembly/host.ts). Memory then holds
// one call's garbage, not that of every call since the last collection: a
// few thousand calls, one at a time and in batches, run under a 16 MiB
// cap, in process and in a worker. Without that collection the module
// runs out of memory long before.
func TestAssemblyScriptMinimalRuntimeCollectsBetweenCalls(t *testing.T) {
	file := Reference(t, languageNamed(t, "assemblyscript-minimal"))
	calls := targetCalls(64)
	ctx := context.Background()
	for _, iso := range []string{host.InProcess, host.Process} {
		t.Run(iso, func(t *testing.T) {
			h, err := host.New(host.Options{CacheDir: filepath.Join(t.TempDir(), "cache"), Isolation: iso,
				Timeout: 2 * time.Minute, MemoryBytes: 16 << 20})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			p, err := h.Load(ctx, file, "")
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 3000; i++ {
				if out, err := p.Verify(ctx, calls[i%len(calls)], host.CallOptions{}); !checkVerdict(t, out, err) {
					t.Fatalf("call %d", i)
				}
			}
			for i := 0; i < 40; i++ {
				outs, errs := p.VerifyBatch(ctx, calls, host.CallOptions{})
				for k := range calls {
					if !checkVerdict(t, outs[k], errs[k]) {
						t.Fatalf("batch %d, call %d", i, k)
					}
				}
			}
		})
	}
}
