package wasmeval

import (
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/wasmeval/wasmeval/engine/agent"
)

func TestFindAnswer(t *testing.T) {
	tc := func(args any) Message {
		return Message{Role: "assistant", ToolCalls: []ToolCall{{Name: "task_complete", Arguments: args}}}
	}
	say := func(s string) Message { return Message{Role: "assistant", Content: s} }
	tests := []struct {
		name  string
		run   AgentRun
		value any
		rule  string
	}{
		{"task_result", AgentRun{TaskResult: "42", Conversation: []Message{say("<answer>1</answer>")}}, "42", RuleTaskResult},
		{"zero is an answer", AgentRun{TaskResult: json.Number("0")}, json.Number("0"), RuleTaskResult},
		{"false is an answer", AgentRun{TaskResult: false}, false, RuleTaskResult},
		{"empty object is not", AgentRun{TaskResult: map[string]any{}, Conversation: []Message{say("x")}}, "x", RuleFinalReply},
		{"blank string is not", AgentRun{TaskResult: " \n", Conversation: []Message{say("x")}}, "x", RuleFinalReply},
		{"task_complete before a later tag", AgentRun{Conversation: []Message{tc(map[string]any{"answer": "a"}), say("<answer>b</answer>")}}, "a", RuleTaskComplete},
		{"result field", AgentRun{Conversation: []Message{tc(map[string]any{"result": json.Number("3")})}}, json.Number("3"), RuleTaskComplete},
		{"null answer falls to result", AgentRun{Conversation: []Message{tc(map[string]any{"answer": nil, "result": "r"})}}, "r", RuleTaskComplete},
		{"whole arguments", AgentRun{Conversation: []Message{tc(map[string]any{"n": "x"})}}, map[string]any{"n": "x"}, RuleTaskComplete},
		{"raw arguments", AgentRun{Conversation: []Message{{Role: "assistant", ToolCalls: []ToolCall{
			{Name: "task_complete", Arguments: `{"answer": "cu`, RawArguments: `{"answer": "cu`, ArgumentsError: "unexpected EOF"}}}}}, `{"answer": "cu`, RuleTaskComplete},
		{"tag only in the final reply", AgentRun{Conversation: []Message{say("<answer>old</answer>"), say("new")}}, "new", RuleFinalReply},
		{"last tag, trimmed", AgentRun{Conversation: []Message{say("<answer>1</answer> <answer> 2 </answer>"), {Role: "user", Content: "ok"}}}, "2", RuleAnswerTag},
		{"blank reply skipped", AgentRun{Conversation: []Message{say("<answer>1</answer>"), say("  ")}}, "1", RuleAnswerTag},
		{"json block", AgentRun{Conversation: []Message{say("```json\n[1]\n```\n```JSON \r\n{\"a\": 2}\n```")}}, map[string]any{"a": json.Number("2")}, RuleJSONBlock},
		{"unlabelled fence is no json block", AgentRun{Conversation: []Message{say("```\n{\"a\": 1}\n```")}}, "```\n{\"a\": 1}\n```", RuleFinalReply},
		{"broken last block", AgentRun{Conversation: []Message{say("```json\n1\n```\n```json\n{\n```")}}, "```json\n1\n```\n```json\n{\n```", RuleFinalReply},
		{"nothing", AgentRun{Conversation: []Message{{Role: "user", Content: "q"}}}, nil, RuleNone},
		{"the host's answer wins", AgentRun{TaskResult: "42", Answer: &Answer{Value: "7", Rule: RuleFinalReply}}, "7", RuleFinalReply},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FindAnswer(&tt.run)
			if want := (Answer{Value: tt.value, Rule: tt.rule}); !reflect.DeepEqual(got, want) {
				t.Errorf("got %#v, want %#v", got, want)
			}
		})
	}
}

func TestAnswerText(t *testing.T) {
	for _, tt := range []struct {
		v    any
		want string
	}{{nil, ""}, {" a ", " a "}, {json.Number("4.0"), "4.0"}, {false, "false"},
		{map[string]any{"b": "<", "a": []any{json.Number("1e2")}}, `{"a":[1e2],"b":"\u003c"}`}} {
		if got := AnswerText(tt.v); got != tt.want {
			t.Errorf("AnswerText(%#v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

// FuzzFindAnswerMatchesEngine holds the SDK's rule to the engine's on a
// final reply of any text: the answer tags and JSON fences are found by
// hand here, by regular expressions there.
func FuzzFindAnswerMatchesEngine(f *testing.F) {
	for _, s := range []string{"<answer>1</answer>", "````json\n1\n```", "```json \t\r\n{\"a\":[1]}```", "```jsonx\n1```",
		"<answer><answer>2</answer></answer>", "```json\n1\n```\n```json\n{", "```JSON\n\"s\"\n```", " plain ", "```json\n```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		doc, _ := json.Marshal(map[string]any{"conversation": []any{map[string]any{"role": "assistant", "content": s}}})
		r, err := agent.Parse(doc, agent.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := agent.FindAnswer(nil, r.Conversation)
		got := FindAnswer(&AgentRun{Conversation: []Message{{Role: "assistant", Content: s}}})
		if got.Rule != string(want.Rule) || !reflect.DeepEqual(got.Value, want.Value) {
			t.Errorf("%q: sdk %#v, engine %#v", s, got, want)
		}
	})
}

// The run's every field is decoded, the new ones included, and a field of
// the wrong type is named.
func TestDecodeAgentRun(t *testing.T) {
	in, err := DecodeTestInput([]byte(`{"abi_version":1,"config":{},"result":{"task_result":null,"status":"completed",
		"task_name":"t","elapsed_seconds":1.5,"usage":{"input_tokens":3,"output_tokens":4,"total_tokens":7,"cost":0.25},
		"answer":{"value":{"n":1},"rule":"task_complete"},
		"conversation":[{"role":"assistant","content":"","tool_calls":[{"id":"c1","name":"task_complete","arguments":"{","raw_arguments":"{","arguments_error":"unexpected EOF"}]},
			{"role":"tool","content":"ok","name":"task_complete","tool_call_id":"c1","tool_results":[{"tool_call_id":"c1","name":"task_complete","content":"[1]","json":[1],"is_error":true}]}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	r := in.Result
	want := AgentRun{Status: "completed", TaskName: "t", ElapsedSeconds: 1.5, Usage: &Usage{InputTokens: 3, OutputTokens: 4, TotalTokens: 7, Cost: 0.25},
		Answer: &Answer{Value: map[string]any{"n": json.Number("1")}, Rule: RuleTaskComplete},
		Conversation: []Message{{Role: "assistant", ToolCalls: []ToolCall{{ID: "c1", Name: "task_complete", Arguments: "{", RawArguments: "{", ArgumentsError: "unexpected EOF"}}},
			{Role: "tool", Content: "ok", Name: "task_complete", ToolCallID: "c1",
				ToolResults: []ToolResult{{ToolCallID: "c1", Name: "task_complete", Content: "[1]", JSON: []any{json.Number("1")}, IsError: true}}}}}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("got  %#v\nwant %#v", r, want)
	}
	for doc, msg := range map[string]string{
		`{"result":{"conversation":[{"role":"tool","tool_results":[{"is_error":"yes"}]}]}}`: "$.result.conversation[0].tool_results[0].is_error is a string, expected a boolean",
		`{"result":{"usage":{"input_tokens":1.5}}}`:                                         "$.result.usage.input_tokens is a number, expected an integer",
		`{"result":{"answer":{"value":1,"rule":2}}}`:                                        "$.result.answer.rule is a number, expected a string",
		`{"result":{"conversation":[{"role":"a","tool_calls":[{"name":"f","id":3}]}]}}`:     "$.result.conversation[0].tool_calls[0].id is a number, expected a string",
	} {
		if _, err := DecodeTestInput([]byte(doc)); err == nil || err.Error() != msg {
			t.Errorf("%s: got %v, want %s", doc, err, msg)
		}
	}
}
