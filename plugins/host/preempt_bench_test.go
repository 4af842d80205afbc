package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/wasmeval/wasmeval/plugins/host/internal/preempt"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// BenchmarkPreemptionPoints times the guest alone, what the preemption
// points cost it: the reference verifiers of the Rust and AssemblyScript
// SDKs (minimal runtime) and the inventory example's (Go SDK) answering
// verify_batch with batches of 256 calls
// of the ~1.5 KB JSON case, on wazero with no checks at all (the baseline,
// which could not be stopped) and rewritten with the host's points, in
// turns on one thread. It reports the best round's µs a call of each and
// their ratio (plugins/host/RATIONALE.md, "Points where calls need them").
//
//	go test -run '^$' -bench PreemptionPoints -benchtime 20x ./plugins/host/
func BenchmarkPreemptionPoints(b *testing.B) {
	root, err := pluginbuild.ModuleRoot()
	if err != nil {
		b.Fatal(err)
	}
	reference := map[string]any{"tolerance": 0.001}
	verifiers := []struct {
		name   string
		config map[string]any
		build  func(out string) error
	}{
		{"rust", reference, func(out string) error {
			return pluginbuild.BuildRust(filepath.Join(root, "plugins/conformance/rust/lib.rs"), out)
		}},
		{"assemblyscript-minimal", reference, func(out string) error {
			return pluginbuild.BuildAssemblyScriptWith(filepath.Join(root, "plugins/conformance/assemblyscript/plugin.ts"), out, "--runtime", "minimal")
		}},
		// The inventory example's verifier (Go SDK), told the output is JSON.
		{"go-inventory", benchConfig, func(out string) error {
			return pluginbuild.Build(filepath.Join(root, "examples/inventory/plugins/verifier"), out)
		}},
	}
	for _, v := range verifiers {
		batch := verifyBatchInput(b, 256, v.config)
		b.Run(v.name, func(b *testing.B) {
			out := filepath.Join(b.TempDir(), v.name+".wasm")
			if err := v.build(out); err != nil {
				b.Fatal(err)
			}
			raw, err := os.ReadFile(out)
			if err != nil {
				b.Fatal(err)
			}
			pointed, err := preempt.Instrument(raw)
			if err != nil {
				b.Fatal(err)
			}
			rawGuest, pointedGuest := newBatchGuest(b, raw, false), newBatchGuest(b, pointed, true)
			best := [2]time.Duration{1 << 62, 1 << 62}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for k, g := range []*batchGuest{rawGuest, pointedGuest} {
					if d := g.round(b, batch, 10); d < best[k] {
						best[k] = d
					}
				}
			}
			per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 / (10 * 256) }
			b.ReportMetric(per(best[0]), "raw-µs/call")
			b.ReportMetric(per(best[1]), "points-µs/call")
			b.ReportMetric(per(best[1])/per(best[0]), "points/raw")
		})
	}
}

// verifyBatchInput is a verify_batch input of n calls of benchInput's
// case, each with its own total and the binding's config, their outputs
// written raw, as the host writes them for the SDKs.
func verifyBatchInput(tb testing.TB, n int, config map[string]any) []byte {
	b := []byte(`{"abi_version":1,"calls":[`)
	for k := 0; k < n; k++ {
		if k > 0 {
			b = append(b, ',')
		}
		in := benchInput()
		out := strings.Replace(in.Actual.Output, `"total":1234.5`, fmt.Sprintf(`"total":%.1f`, 1234.5+float64(k)), 1)
		in.Config, in.Case.ID, in.Actual.Output = config, fmt.Sprintf("bench-%d", k), out
		in.Expected = map[string]any{"status_code": 0, "output": out}
		var err error
		if b, err = in.AppendInput(b, true); err != nil {
			tb.Fatal(err)
		}
	}
	return append(b, "]}"...)
}

// batchGuest is a native-transport module instantiated on its own
// runtime, with host functions that answer nothing.
type batchGuest struct {
	mod              api.Module
	input, out, call api.Function
}

func newBatchGuest(tb testing.TB, wasm []byte, points bool) *batchGuest {
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig())
	tb.Cleanup(func() { rt.Close(ctx) })
	if points {
		if err := preempt.Instantiate(ctx, rt); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		tb.Fatal(err)
	}
	if _, err := rt.NewHostModuleBuilder("wasmeval").
		NewFunctionBuilder().WithFunc(func(int32, int32, int32, int32) int64 { return -1 }).Export("read_asset").
		NewFunctionBuilder().WithFunc(func(int32, int32, int32) {}).Export("log").
		Instantiate(ctx); err != nil {
		tb.Fatal(err)
	}
	mod, err := rt.InstantiateWithConfig(ctx, wasm, wazero.NewModuleConfig().WithName(""))
	if err != nil {
		tb.Fatal(err)
	}
	if init := mod.ExportedFunction("_initialize"); init != nil { // a Go reactor
		if _, err := init.Call(ctx); err != nil {
			tb.Fatal(err)
		}
	}
	return &batchGuest{mod: mod, input: mod.ExportedFunction("wasmeval_input"),
		out: mod.ExportedFunction("wasmeval_output"), call: mod.ExportedFunction("verify_batch")}
}

// round makes n verify_batch calls and returns how long they took.
func (g *batchGuest) round(tb testing.TB, batch []byte, n int) time.Duration {
	ctx := context.Background()
	start := time.Now()
	for i := 0; i < n; i++ {
		at, err := g.input.Call(ctx, api.EncodeI32(int32(len(batch))))
		if err != nil || !g.mod.Memory().Write(uint32(at[0]), batch) {
			tb.Fatal("no room for the batch: ", err)
		}
		if rc, err := g.call.Call(ctx); err != nil || rc[0] != 0 {
			tb.Fatal("verify_batch: ", err, rc)
		}
		o, err := g.out.Call(ctx)
		if err != nil || o[0]&0xffffffff < 256 {
			tb.Fatal("no batch output: ", err)
		}
	}
	return time.Since(start)
}
