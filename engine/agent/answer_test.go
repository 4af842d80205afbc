package agent

import (
	"encoding/json"
	"reflect"
	"testing"
)

// conv parses a conversation written as JSON.
func conv(t *testing.T, msgs string) Conversation {
	t.Helper()
	r, err := Parse([]byte(`{"conversation": `+msgs+`}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r.Conversation
}

func TestAnswerRules(t *testing.T) {
	const (
		// Every rule could apply: task_complete, an <answer> tag and a
		// json block in the last assistant message.
		all = `[
			{"role": "user", "content": "q"},
			{"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "task_complete", "arguments": "{\"answer\": \"first\"}"}}]},
			{"role": "tool", "tool_call_id": "c1", "content": "ok"},
			{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "task_complete", "input": {"result": {"n": 2}}}]},
			{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]},
			{"role": "assistant", "content": "<answer>tag</answer>\n` + "```json\\n[1]\\n```" + `\ntext"}
		]`
		noComplete = `[
			{"role": "assistant", "content": "<answer>old</answer>"},
			{"role": "user", "content": "again"},
			{"role": "assistant", "content": "<answer> one </answer> then <answer>\n two\n</answer>` + "\\n```json\\n{\\\"a\\\": 1}\\n```" + `"},
			{"role": "assistant", "content": [{"type": "text", "text": "   "}]}
		]`
		jsonOnly = `[
			{"role": "assistant", "content": "<answer>old</answer>"},
			{"role": "assistant", "content": "` + "```json\\n{\\\"a\\\": 1}\\n```\\nand\\n```JSON  \\n{\\\"a\\\": 2}\\n```" + `"}
		]`
		badJSON = `[
			{"role": "assistant", "content": "` + "```json\\n{\\\"a\\\": 1}\\n```\\n```json\\n{broken\\n```" + `"}
		]`
		plain = `[
			{"role": "assistant", "content": "  The answer is 4.  "},
			{"role": "tool", "tool_call_id": "x", "content": "late"}
		]`
	)
	tests := []struct {
		name       string
		taskResult any
		msgs       string
		rule       AnswerRule
		value      any
		message    int
	}{
		{"task_result first", "42", all, RuleTaskResult, "42", -1},
		{"task_result object", map[string]any{"k": json.Number("1")}, all, RuleTaskResult, map[string]any{"k": json.Number("1")}, -1},
		{"task_result zero counts", json.Number("0"), all, RuleTaskResult, json.Number("0"), -1},
		{"task_result false counts", false, all, RuleTaskResult, false, -1},
		{"blank task_result", "  \n", all, RuleTaskComplete, map[string]any{"n": json.Number("2")}, 3},
		{"empty object", map[string]any{}, all, RuleTaskComplete, map[string]any{"n": json.Number("2")}, 3},
		{"empty list", []any{}, all, RuleTaskComplete, map[string]any{"n": json.Number("2")}, 3},
		{"null: last task_complete's result", nil, all, RuleTaskComplete, map[string]any{"n": json.Number("2")}, 3},
		{"last answer tag", nil, noComplete, RuleAnswerTag, "two", 2},
		{"last json block", nil, jsonOnly, RuleJSONBlock, map[string]any{"a": json.Number("2")}, 1},
		{"last json block broken", nil, badJSON, RuleFinalReply, "```json\n{\"a\": 1}\n```\n```json\n{broken\n```", 0},
		{"final reply", nil, plain, RuleFinalReply, "The answer is 4.", 0},
		{"nothing", nil, `[{"role": "user", "content": "q"}]`, RuleNone, nil, -1},
		{"no conversation", nil, `[]`, RuleNone, nil, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := FindAnswer(tt.taskResult, conv(t, tt.msgs))
			want := Answer{Value: tt.value, Rule: tt.rule, Message: tt.message}
			if !reflect.DeepEqual(a, want) {
				t.Errorf("got  %#v\nwant %#v", a, want)
			}
		})
	}
}

func TestTaskCompleteFields(t *testing.T) {
	tests := []struct {
		name, args string
		want       any
	}{
		{"answer", `{"answer": "a", "result": "r"}`, "a"},
		{"result", `{"result": "r", "note": "n"}`, "r"},
		{"null answer falls to result", `{"answer": null, "result": "r"}`, "r"},
		{"whole arguments", `{"summary": "s"}`, map[string]any{"summary": "s"}},
		{"not an object", `"done"`, "done"},
		{"not JSON", `{"answer": "cut`, `{"answer": "cut`},
		{"empty", ``, map[string]any{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, _ := json.Marshal(tt.args)
			c := conv(t, `[{"role": "assistant", "content": "<answer>no</answer>", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "task_complete", "arguments": `+string(args)+`}}]}]`)
			a := FindAnswer(nil, c)
			if a.Rule != RuleTaskComplete || !reflect.DeepEqual(a.Value, tt.want) {
				t.Errorf("got %#v", a)
			}
		})
	}
}
