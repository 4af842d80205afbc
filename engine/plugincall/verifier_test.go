package plugincall

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/checkspec"
	"github.com/wasmeval/wasmeval/engine/verify"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// TestVerifierPluginMatchesBuiltinChecks runs the inventory example's
// verifier plugin and the same checks built in on passing and failing
// results, and requires verdicts that encode to the same JSON (what the
// journal and every report see), whichever shortcut either side took. The
// built-in checks run as engine/run runs them, with verify.Env.RawJSON.
func TestVerifierPluginMatchesBuiltinChecks(t *testing.T) {
	_, base := benchCase()
	doc := base.Output
	tests := []struct {
		name     string
		actual   verify.Actual
		expected map[string]any
	}{
		{"same text", verify.Actual{Output: doc}, map[string]any{"status_code": 0, "output": doc}},
		{"same tokens, other spacing", verify.Actual{Output: "{\n  \"currency\": \"EUR\", \"total\": 1234.5, \"items\": []}\n"},
			map[string]any{"status_code": 0, "output": `{"currency":"EUR","total":1234.5,"items":[]}`}},
		{"within tolerance", verify.Actual{Output: `{"total":1234.5004,"currency":"EUR"}`}, map[string]any{"output": `{"currency":"EUR","total":1234.5}`}},
		{"different values", verify.Actual{Output: `{"total":12,"currency":"USD","extra":[1]}`}, map[string]any{"output": `{"currency":"EUR","total":1234.5}`}},
		{"escapes and non-ASCII", verify.Actual{Output: `{"name":"caf\u00e9 \"x\"\\/"}`}, map[string]any{"output": `{"name":"caf\u00e9 \"x\"\\/"}`}},
		{"structured expectation", verify.Actual{Output: `{"a":[1,2]}`}, map[string]any{"output": map[string]any{"a": []any{1, 2}}}},
		{"invalid JSON both sides", verify.Actual{Output: `{"a":}`}, map[string]any{"output": `{"a":}`}},
		{"wrong status", verify.Actual{StatusCode: 2, Output: doc}, map[string]any{"status_code": 0, "output": doc}},
	}
	p := loadVerifier(t, host.Process)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &cases.Case{ID: "c", Arguments: []string{}, Expected: tt.expected}
			got, err := Verify(context.Background(), p, c, tt.actual, benchConfig, host.CallOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var want []verify.AttributeResult
			if _, ok := tt.expected["status_code"]; ok {
				want = append(want, verify.Run(checkspec.CheckSpec{Kind: "status"}, tt.actual, tt.expected, verify.Env{RawJSON: true}))
			}
			want = append(want, verify.Run(checkspec.CheckSpec{Kind: "json", Tolerance: 0.001}, tt.actual, tt.expected, verify.Env{RawJSON: true}))
			if len(got) != len(want) {
				t.Fatalf("%d attributes from the plugin, %d built in: %+v", len(got), len(want), got)
			}
			for i := range want {
				if got[i].Check != p.Label() {
					t.Errorf("attribute %s is checked by %q, not the plugin", got[i].Attribute, got[i].Check)
				}
				got[i].Check, want[i].Check = "", ""
				g, _ := json.Marshal(got[i])
				w, _ := json.Marshal(want[i])
				if string(g) != string(w) {
					t.Errorf("plugin   %s\nbuilt in %s", g, w)
				}
			}
		})
	}
}
