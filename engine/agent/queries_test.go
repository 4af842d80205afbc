package agent

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

func TestLinking(t *testing.T) {
	r, err := Parse([]byte(`{"conversation": [
		{"role": "assistant", "function_call": {"name": "lookup", "arguments": "{\"q\": 1}"}},
		{"role": "function", "name": "lookup", "content": "{\"hit\": true}"},
		{"role": "assistant", "tool_calls": [{"id": "dup", "type": "function", "function": {"name": "a", "arguments": "{}"}}]},
		{"role": "tool", "tool_call_id": "dup", "content": "one"},
		{"role": "tool", "tool_call_id": "dup", "content": "two"},
		{"role": "tool", "tool_call_id": "later", "content": "before its call"},
		{"role": "assistant", "tool_calls": [{"id": "later", "type": "function", "function": {"name": "b", "arguments": "{}"}}]},
		{"role": "function", "content": "anonymous"},
		{"role": "user", "tool_call_id": "dup", "content": "not a tool reply"}
	]}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := r.Conversation
	calls := c.ToolCalls()
	if calls[0].Name != "lookup" || calls[0].ID != "" || calls[0].Result == nil || !reflect.DeepEqual(calls[0].Result.Value(), map[string]any{"hit": true}) {
		t.Errorf("legacy function call: %+v", calls[0])
	}
	if calls[1].Result == nil || calls[1].Result.Content != "one" {
		t.Errorf("first result stays linked: %+v", calls[1].Result)
	}
	if calls[2].Result != nil {
		t.Errorf("a result before its call does not link: %+v", calls[2].Result)
	}
	if c[8].Text != "not a tool reply" || len(c[8].ToolResults) != 0 {
		t.Errorf("user message with tool_call_id: %+v", c[8])
	}
	want := []string{
		`conversation[4]: a second result for tool call "dup"; the first one stays linked`,
		`conversation[5]: no earlier tool call has id "later"`,
		`conversation[7]: a tool result with neither a call id nor a tool name`,
	}
	w := r.Warnings
	if len(w) != 4 || w[0] != `conversation[8].tool_call_id: on a message whose role is "user", not "tool"; ignored` || !reflect.DeepEqual(w[1:], want) {
		t.Errorf("warnings %q", w)
	}
	if got := len(c.UnlinkedResults()); got != 2 {
		t.Errorf("unlinked %d", got)
	}
	if !c.Called("b") || c.Called("c") || len(c.CallsTo("a")) != 1 {
		t.Errorf("Called/CallsTo")
	}
	if got := c.ToolOutputs("b"); got != nil {
		t.Errorf("outputs of an unanswered call: %v", got)
	}
}

func TestFinalReply(t *testing.T) {
	tests := []struct{ msgs, want string }{
		{`[]`, ""},
		{`[{"role": "user", "content": "hi"}]`, ""},
		{`[{"role": "assistant", "content": " a "}, {"role": "assistant", "content": null, "tool_calls": [{"id": "x", "function": {"name": "t", "arguments": "{}"}}]}]`, "a"},
		{`[{"role": "assistant", "content": "a"}, {"role": "assistant", "content": [{"type": "text", "text": "b"}, {"type": "image", "source": {}}, {"type": "text", "text": "c"}]}]`, "b\nc"},
	}
	for _, tt := range tests {
		if got := conv(t, tt.msgs).FinalReply(); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.msgs, got, tt.want)
		}
	}
}

func TestAgentRun(t *testing.T) {
	r := mustRead(t, "anthropic_tools.json")
	run := r.AgentRun()
	b, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	// Read back as a plugin would: what the JSON says, not the Go values.
	var back abi.AgentRun
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range back.Conversation {
		roles = append(roles, fmt.Sprintf("%s:%d/%d", m.Role, len(m.ToolCalls), len(m.ToolResults)))
	}
	// One message per message of the result: the user messages carrying
	// tool_result blocks are no longer split.
	want := []string{"user:0/0", "assistant:1/0", "user:0/1", "assistant:2/0", "user:0/2", "assistant:0/0"}
	if !reflect.DeepEqual(roles, want) {
		t.Errorf("roles %v, want %v", roles, want)
	}
	call := back.Conversation[3].ToolCalls[1]
	if call.ID != "toolu_01C" || call.Name != "read_file" || call.RawArguments != `{"path":".gitignore"}` || call.ArgumentsError != "" ||
		!reflect.DeepEqual(call.Arguments, map[string]any{"path": ".gitignore"}) {
		t.Errorf("tool call %+v", call)
	}
	results := back.Conversation[4].ToolResults
	wantResults := []abi.ToolResult{
		{ToolCallID: "toolu_01B", Name: "bash", Content: "17", JSON: float64(17)},
		{ToolCallID: "toolu_01C", Name: "read_file", Content: "Error: no such file", IsError: true},
	}
	if !reflect.DeepEqual(results, wantResults) || back.Conversation[4].Content != "Keep going." {
		t.Errorf("tool results %+v, content %q", results, back.Conversation[4].Content)
	}
	if back.TaskName != "count-python-files" || back.Iterations != 3 || back.ExecutionTrace[1].(map[string]any)["duration_ms"] != float64(120) {
		t.Errorf("run %s", b)
	}
	if back.Usage == nil || *back.Usage != (abi.Usage{InputTokens: 2210, OutputTokens: 181, TotalTokens: 2391, Cost: 0.0093}) || back.ElapsedSeconds != 0 {
		t.Errorf("usage %+v, elapsed %v", back.Usage, back.ElapsedSeconds)
	}
	if back.Answer == nil || *back.Answer != (abi.Answer{Value: "17", Rule: abi.RuleAnswerTag}) {
		t.Errorf("answer %+v", back.Answer)
	}

	// OpenAI tool messages keep their id, and the tool's name and result
	// as name and content; arguments that are not JSON are their text,
	// flagged.
	bad := mustRead(t, "bad_arguments.json").AgentRun()
	c := bad.Conversation[1].ToolCalls[0]
	if c.Arguments != `{"query": "wasm` || c.RawArguments != `{"query": "wasm` || c.ArgumentsError == "" || c.ID != "call_x" {
		t.Errorf("bad arguments %+v", c)
	}
	if now := bad.Conversation[1].ToolCalls[1]; !reflect.DeepEqual(now.Arguments, map[string]any{}) || now.ArgumentsError != "" {
		t.Errorf("empty arguments %+v", now)
	}
	tool := bad.Conversation[2]
	if tool.Role != "tool" || tool.Name != "search" || tool.ToolCallID != "call_x" || tool.Content != "error: could not parse arguments" ||
		len(tool.ToolResults) != 1 || tool.ToolResults[0] != (abi.ToolResult{ToolCallID: "call_x", Name: "search", Content: "error: could not parse arguments"}) {
		t.Errorf("tool message %+v", tool)
	}
	if orphan := bad.Conversation[3]; orphan.Name != "" || orphan.ToolCallID != "call_zz" || orphan.Content != "orphan" {
		t.Errorf("orphan tool message %+v", orphan)
	}
	if bad.Answer == nil || bad.Answer.Rule != abi.RuleNone || bad.Answer.Value != nil || bad.Usage != nil {
		t.Errorf("answer %+v, usage %+v", bad.Answer, bad.Usage)
	}
}

// TestLinkingScales: linking many id-less calls and results takes linear
// time (quadratic linking would take minutes here).
func TestLinkingScales(t *testing.T) {
	var b []byte
	b = append(b, `{"conversation": [`...)
	const n = 50000
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"role": "assistant", "function_call": {"name": "f", "arguments": "{}"}}`...)
	}
	for i := 0; i < n; i++ {
		b = append(b, `, {"role": "function", "name": "f", "content": "1"}`...)
	}
	b = append(b, "]}"...)
	r, err := Parse(b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	calls := r.Conversation.ToolCalls()
	if calls[0].Result == nil || calls[0].Result.Message != n || calls[n-1].Result.Message != 2*n-1 || len(r.Warnings) != 0 {
		t.Errorf("links: %v", r.Warnings)
	}
}
