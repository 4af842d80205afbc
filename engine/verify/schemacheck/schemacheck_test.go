package schemacheck_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/checkspec"
	"github.com/wasmeval/wasmeval/engine/verify"
	_ "github.com/wasmeval/wasmeval/engine/verify/schemacheck"
	"github.com/wasmeval/wasmeval/plugins/abi"
)

func TestSchemaCheck(t *testing.T) {
	actual := verify.Actual{Output: `{"items": 3, "tags": ["b", "a"]}`}
	tests := []struct {
		name    string
		schema  any
		correct bool
		summary string
	}{
		{"passes", map[string]any{"type": "object", "required": []any{"items"}}, true, ""},
		{"fails", map[string]any{"type": "object", "properties": map[string]any{"items": map[string]any{"type": "string"}}}, false, "$.items"},
		{"two violations", map[string]any{"type": "object", "required": []any{"id"}, "properties": map[string]any{"tags": map[string]any{"items": map[string]any{"type": "number"}}}},
			false, "and 2 other violations"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := verify.Run(checkspec.CheckSpec{Kind: "schema", Schema: tt.schema}, actual, nil, verify.Env{})
			if res.IsCorrect != tt.correct {
				t.Fatalf("is_correct=%v, want %v (diff %+v)", res.IsCorrect, tt.correct, res.Diff)
			}
			if !tt.correct && (res.Diff == nil || !strings.Contains(res.Diff.Summary, tt.summary)) {
				t.Errorf("diff %+v, want the summary to contain %q", res.Diff, tt.summary)
			}
			if tt.correct && res.Actual.(map[string]any)["items"] == nil {
				t.Errorf("the parsed output is the actual value, got %#v", res.Actual)
			}
		})
	}
	res := verify.Run(checkspec.CheckSpec{Kind: "schema", Schema: map[string]any{"type": "object"}}, verify.Actual{Output: "{not json"}, nil, verify.Env{})
	if res.IsCorrect || !strings.Contains(res.Diff.Summary, "output is not valid JSON") {
		t.Errorf("invalid JSON output: %+v", res.Diff)
	}
}

func TestSchemaFileFromProblem(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "schema.yaml"), []byte("type: object\nrequired: [id]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := verify.Env{ReadProblemFile: func(rel string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, rel)) }}
	res := verify.Run(checkspec.CheckSpec{Kind: "schema", SchemaFile: "schema.yaml"}, verify.Actual{Output: `{"name":"x"}`}, nil, env)
	if res.IsCorrect || res.Diff.Entries[0].Path != "$" || !strings.Contains(res.Diff.Summary, "id") {
		t.Fatalf("missing required property: %+v", res.Diff)
	}
	os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte("type: [object\n"), 0o644)
	res = verify.Run(checkspec.CheckSpec{Kind: "schema", SchemaFile: "bad.yaml"}, verify.Actual{Output: `{}`}, nil, env)
	if res.IsCorrect || !strings.Contains(res.Diff.Summary, "schema_file bad.yaml") {
		t.Fatalf("unparsable schema file: %+v", res.Diff)
	}
}

func TestValidateCompilesSchemas(t *testing.T) {
	if msgs := verify.Validate(checkspec.CheckSpec{Kind: "schema", Schema: map[string]any{"type": 5}}); len(msgs) != 1 || !strings.Contains(msgs[0], "invalid JSON Schema") {
		t.Errorf("got %v", msgs)
	}
	if msgs := verify.Validate(checkspec.CheckSpec{Kind: "schema", Schema: map[string]any{"type": "object"}}); len(msgs) != 0 {
		t.Errorf("a valid schema: %v", msgs)
	}
}

// A schema judges the mock_calls attribute as the list of calls, with
// each JSON body decoded.
func TestSchemaCheckMockCalls(t *testing.T) {
	actual := verify.Actual{MockCalls: []abi.MockCall{
		{Mock: "payments", Method: "POST", Path: "/v1/charges", Body: `{"amount":1999}`, Status: 201},
		{Mock: "payments", Method: "POST", Path: "/v1/charges", Body: `{"amount":"1999"}`, Status: 201},
	}}
	schema := map[string]any{"type": "array", "items": map[string]any{
		"required":   []any{"mock", "status", "body"},
		"properties": map[string]any{"body": map[string]any{"properties": map[string]any{"amount": map[string]any{"type": "integer"}}}}}}
	res := verify.Run(checkspec.CheckSpec{Kind: "schema", Attribute: "mock_calls", Schema: schema}, actual, nil, verify.Env{})
	if res.IsCorrect || res.Diff == nil || !strings.Contains(res.Diff.Summary, "$[1].body.amount") {
		t.Fatalf("correct %v, diff %+v: want the second call's amount named", res.IsCorrect, res.Diff)
	}
	actual.MockCalls = actual.MockCalls[:1]
	if res := verify.Run(checkspec.CheckSpec{Kind: "schema", Attribute: "mock_calls", Schema: schema}, actual, nil, verify.Env{}); !res.IsCorrect {
		t.Errorf("one call with an integer amount: %+v", res.Diff)
	}
}
