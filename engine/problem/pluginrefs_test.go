package problem

import (
	"slices"
	"testing"

	"github.com/wasmeval/wasmeval/engine/checkspec"
)

// Every place a plugin can be bound is walked: a new binding left out
// of the walk would be missing from manifests and distributed runs.
func TestPluginRefsWalksEveryBinding(t *testing.T) {
	ref := func(name string) *PluginRef { return &PluginRef{Path: name + ".wasm"} }
	p := &Problem{
		Checkpoints: []*Checkpoint{{Groups: []*Group{{
			Verifier: ref("verifier"), LoaderRef: ref("loader"),
			Checks: []CheckSpec{{Kind: "evaluator", Plugin: ref("evaluator")},
				{Kind: "evaluators", Calls: []checkspec.EvaluatorCall{{Plugin: ref("call")}}}},
			Mocks: []Mock{{Name: "payments"}, {Name: "rates", Plugin: ref("mock")}},
		}}}},
		CasePlugins: []*PluginRef{ref("case")},
	}
	var got []string
	p.PluginRefs(func(r *PluginRef) { got = append(got, r.Path) })
	want := []string{"verifier.wasm", "loader.wasm", "evaluator.wasm", "call.wasm", "mock.wasm", "case.wasm"}
	if !slices.Equal(got, want) {
		t.Fatalf("walked %v, want %v", got, want)
	}
}
