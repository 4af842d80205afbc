package conformance

import (
	"context"
	"reflect"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// TestLoaderGroupOrigin calls every reference loader with the group input
// the engine sends for a regression group (its envelope written by the
// host, as in a run) and for the group it re-runs, and holds each SDK to
// the same, correct origin: the checkpoint, group and directory the cases
// come from.
func TestLoaderGroupOrigin(t *testing.T) {
	cfg := map[string]any{"echo_group": true}
	inputs := []struct {
		name string
		in   abi.LoadInput
		want abi.Case
	}{
		{"regression", abi.LoadInput{Config: cfg, Group: abi.GroupInfo{Checkpoint: "c2", Group: "c1_core", GroupType: "Regression",
			CaseGroup: "core", CaseOrder: []string{"b", "a"}, TimeoutS: 30, OriginCheckpoint: "c1", OriginGroup: "core", Dir: "c1/core"}},
			abi.Case{ID: "c1_core_origin", Arguments: []string{"c1", "core", "c1/core"},
				Extra: map[string]any{"checkpoint": "c2", "group": "c1_core", "case_group": "core"}}},
		{"origin", abi.LoadInput{Config: cfg, Group: abi.GroupInfo{Checkpoint: "c1", Group: "core", GroupType: "Core",
			CaseGroup: "core", TimeoutS: 30, OriginCheckpoint: "c1", OriginGroup: "core", Dir: "c1/core"}},
			abi.Case{ID: "core_origin", Arguments: []string{"c1", "core", "c1/core"},
				Extra: map[string]any{"checkpoint": "c1", "group": "core", "case_group": "core"}}},
	}
	got := map[string][]abi.LoadOutput{}
	for _, lang := range Languages {
		t.Run(lang.Name, func(t *testing.T) {
			file := Reference(t, lang)
			p, err := newHost(t).Load(context.Background(), file, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range inputs {
				out, err := p.LoadCases(context.Background(), c.in, host.CallOptions{})
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				want := abi.LoadOutput{Cases: []abi.Case{c.want}, Done: true}
				if !reflect.DeepEqual(out, want) {
					t.Errorf("%s: got %+v\nwant %+v", c.name, out, want)
				}
				got[lang.Name] = append(got[lang.Name], out)
			}
		})
	}
	// Identical across SDKs (the per-language checks above already imply
	// it; this names the languages that differ should the want change).
	var first string
	for _, lang := range Languages {
		out, ok := got[lang.Name]
		if !ok {
			continue
		}
		if first == "" {
			first = lang.Name
			continue
		}
		if !reflect.DeepEqual(out, got[first]) {
			t.Errorf("%s and %s answer differently:\n%+v\n%+v", first, lang.Name, got[first], out)
		}
	}
}
