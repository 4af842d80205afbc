package host

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// A verifier built with Extism's own AssemblyScript PDK, and nothing of
// wasmeval's, runs through the released Extism Go SDK in both isolations:
// any module built with an Extism PDK is a plugin. (Go modules built with
// Extism's Go PDK are the misbehave and minimal plugins of these tests.)
func TestExtismAssemblyScriptPDKPlugin(t *testing.T) {
	wasm := filepath.Join(t.TempDir(), "aspdk.wasm")
	if err := pluginbuild.BuildAssemblyScriptWith("./testdata/aspdk/plugin.ts", wasm,
		"--use", "abort=plugins/host/testdata/aspdk/plugin/pdkAbort"); err != nil {
		t.Fatal(err)
	}
	for _, iso := range []string{InProcess, Process} {
		t.Run(iso, func(t *testing.T) {
			p, err := newHost(t, Options{Isolation: iso}).Load(context.Background(), wasm, "")
			if err != nil {
				t.Fatal(err)
			}
			if d := p.Describe(); d.Name != "as-pdk-verifier" || d.Transport != abi.TransportExtism || p.Batches("verify") {
				t.Fatalf("describe %+v", d)
			}
			for _, tc := range []struct {
				actual string
				pass   bool
			}{{"hi\n", true}, {"bye\n", false}} {
				in := abi.VerifyInput{Case: abi.Case{ID: "c1"}, Actual: abi.Actual{Output: tc.actual}, Expected: map[string]any{"output": "hi\n"}}
				out, err := p.Verify(context.Background(), in, CallOptions{})
				if err != nil || len(out.Attributes) != 1 || out.Attributes[0].IsCorrect != tc.pass || out.Attributes[0].Expected != "hi\n" {
					t.Errorf("%q: %v %+v", tc.actual, err, out)
				}
			}
			// Without batches, many calls go one at a time, each answered.
			ins := []abi.VerifyInput{{Case: abi.Case{ID: "a"}, Expected: map[string]any{"output": "x"}},
				{Case: abi.Case{ID: "b"}, Actual: abi.Actual{Output: "x"}, Expected: map[string]any{"output": "x"}}}
			outs, errs := p.VerifyBatch(context.Background(), ins, CallOptions{})
			if errs[0] != nil || errs[1] != nil || outs[0].Attributes[0].IsCorrect || !outs[1].Attributes[0].IsCorrect || p.batches.Load() != 0 {
				t.Errorf("calls one at a time: %+v %v", outs, errs)
			}
		})
	}
}
