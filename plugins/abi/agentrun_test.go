package abi

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// fullAgentRun sets every field of a test function's run, its messages,
// calls and results.
func fullAgentRun() AgentRun {
	return AgentRun{TaskResult: map[string]any{"n": 1.0}, Status: "completed", Instruction: "q", Iterations: 2,
		Sandbox: map[string]any{"kind": "docker"}, TaskName: "t", ExecutionTrace: []any{map[string]any{"action": "a"}},
		Answer: &Answer{Value: "42", Rule: RuleAnswerTag}, Usage: &Usage{InputTokens: 1, OutputTokens: 2, TotalTokens: 3, Cost: 0.5},
		ElapsedSeconds: 1.25,
		Conversation: []Message{{Role: "tool", Content: "ok", Name: "f", ToolCallID: "c1",
			ToolCalls:   []ToolCall{{ID: "c1", Name: "f", Arguments: "{", RawArguments: "{", ArgumentsError: "unexpected EOF"}},
			ToolResults: []ToolResult{{ToolCallID: "c1", Name: "f", Content: "[1]", JSON: []any{1.0}, IsError: true}}}}}
}

// Every field of a test input survives encoding and decoding, under the
// names the schema and docs/plugin-abi.md give them.
func TestAgentRunRoundTrip(t *testing.T) {
	run := fullAgentRun()
	checkEveryFieldSet(t, reflect.ValueOf(run), "AgentRun")
	in := TestInput{ABIVersion: Version, Config: map[string]any{}, Result: run}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var back TestInput
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, in) {
		t.Errorf("round trip:\n%+v\nwant\n%+v", back, in)
	}
	for _, key := range []string{`"task_name"`, `"answer":{"value":"42","rule":"answer_tag"}`, `"usage":{"input_tokens":1,"output_tokens":2,"total_tokens":3,"cost":0.5}`,
		`"elapsed_seconds":1.25`, `"tool_call_id":"c1"`, `"tool_results":[{`, `"raw_arguments":"{"`, `"arguments_error"`, `"json":[1]`, `"is_error":true`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("%s not in %s", key, b)
		}
	}
	// The new fields are optional: a bare run writes none of them.
	bare, _ := json.Marshal(AgentRun{Conversation: []Message{{Role: "user", ToolCalls: []ToolCall{{Name: "f"}}}}})
	for _, key := range []string{"task_name", "answer", "usage", "elapsed_seconds", "tool_call_id", "tool_results", "raw_arguments", "arguments_error", `"id"`} {
		if strings.Contains(string(bare), key) {
			t.Errorf("bare run has %s: %s", key, bare)
		}
	}
}

func TestAnswerFound(t *testing.T) {
	for _, tt := range []struct {
		a    Answer
		want bool
	}{{Answer{Value: false, Rule: RuleTaskResult}, true}, {Answer{Rule: RuleNone}, false}, {Answer{}, false}} {
		if tt.a.Found() != tt.want {
			t.Errorf("%+v: Found() = %v", tt.a, !tt.want)
		}
	}
}
