package host

import (
	"encoding/json"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// What the host sends each kind of plugin matches that kind's input
// schema in plugins/abi/schema, for bare calls (nothing optional set, nil
// maps and lists) as well as full ones, so a plugin author can rely on the
// published schemas.
func TestInputEnvelopesMatchTheirSchemas(t *testing.T) {
	stdin := "some input\n"
	bare := abi.Case{ID: "bare"}
	full := abi.Case{ID: "full", Checkpoint: "c1", Group: "g", GroupType: "Core", Arguments: []string{"a", "b"},
		Stdin: &stdin, Env: map[string]string{"K": "v"}, TrackedFiles: []string{"out/*.csv"}, Reset: true, TimeoutS: 3,
		InputFiles: []abi.InputFile{{Path: "in.txt", Content: "text"}, {Path: "in.bin", Content: "/wD+", Encoding: "base64"}},
		Expected:   map[string]any{"status_code": 0, "output": map[string]any{"total": 1.5}, "files": map[string]any{"out/a.csv": "x\n"}},
		Request:    map[string]any{"method": "POST", "path": "/notes", "json": map[string]any{"title": "t"}}, Extra: map[string]any{"note": "kept"}}
	actuals := []abi.Actual{{}, {StatusCode: 1, Output: "out", Stderr: "err", TimedOut: true,
		Files: map[string]any{"out/a.csv": "x\n", "out/b.bin": []byte{1, 2}}, Headers: map[string]string{"content-type": "application/json"}}}
	run := abi.AgentRun{TaskResult: "42", Status: "completed", Instruction: "answer", Iterations: 2,
		Conversation: []abi.Message{
			{Role: "assistant", Content: "<answer>42</answer>", ToolCalls: []abi.ToolCall{
				{ID: "call_1", Name: "task_complete", Arguments: map[string]any{"answer": "42"}, RawArguments: `{"answer":"42"}`},
				{ID: "call_2", Name: "search", Arguments: `{"q": "cut`, RawArguments: `{"q": "cut`, ArgumentsError: "unexpected EOF"}}},
			{Role: "tool", Name: "task_complete", Content: "ok", ToolCallID: "call_1", ToolResults: []abi.ToolResult{{ToolCallID: "call_1", Name: "task_complete", Content: "ok"}}},
			{Role: "user", Content: "", ToolResults: []abi.ToolResult{{ToolCallID: "call_2", Name: "search", Content: "[1]", JSON: []any{1}, IsError: true}}}},
		ExecutionTrace: []any{map[string]any{"step": 1}}, Sandbox: map[string]any{"id": "s"}, TaskName: "six-times-seven",
		Answer: &abi.Answer{Value: "42", Rule: abi.RuleTaskResult}, Usage: &abi.Usage{InputTokens: 10, OutputTokens: 2, TotalTokens: 12, Cost: 0.001},
		ElapsedSeconds: 1.5}

	check := func(schema string, v any) {
		t.Helper()
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := ValidateEnvelope(schema, data); err != nil {
			t.Errorf("%s: %v\n%s", schema, err, data)
		}
	}
	for _, c := range []abi.Case{bare, full} {
		for _, a := range actuals {
			check("verify_input", verifyInput(abi.VerifyInput{Case: c, Actual: a}))
			check("verify_input", verifyInput(abi.VerifyInput{Case: c, Actual: a, Config: map[string]any{"tolerance": 0.1}, Expected: c.Expected}))
			check("evaluate_input", evaluateInput(abi.EvaluateInput{Function: "f"}))
			ac, aa := c, a
			check("evaluate_input", evaluateInput(abi.EvaluateInput{Function: "f", Arguments: map[string]any{"path": "x"},
				Config: map[string]any{"k": 1}, Case: &ac, Actual: &aa, Expected: c.Expected}))
			check("load_input", loadInput(abi.LoadInput{Group: abi.GroupInfo{Checkpoint: "c1", Group: "g", GroupType: "Core"},
				History: []abi.Outcome{{Case: c, Actual: a}}}))
		}
	}
	check("load_input", loadInput(abi.LoadInput{}))
	check("test_input", testInput(abi.AgentRun{}, nil))
	check("test_input", testInput(run, map[string]any{"expected": "42"}))
	none := abi.AgentRun{Answer: &abi.Answer{Rule: abi.RuleNone}}
	check("test_input", testInput(none, nil))

	// The check can fail: an envelope without its ABI version is refused,
	// and so is an answer found by a rule the ABI does not name.
	if err := ValidateEnvelope("test_input", []byte(`{"abi_version":1,"config":{},"result":{"conversation":[],"status":"","answer":{"value":1,"rule":"guess"}}}`)); err == nil {
		t.Error("an answer with an unknown rule passed the test_input schema")
	}
	if err := ValidateEnvelope("verify_input", []byte(`{"config":{},"case":{"id":"x","arguments":[]},"actual":{},"expected":{}}`)); err == nil {
		t.Error("an envelope without abi_version passed the verify_input schema")
	}
}
