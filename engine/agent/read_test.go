package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func mustRead(t *testing.T, name string) *Result {
	t.Helper()
	r, err := ReadFile(filepath.Join("testdata", name), Options{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

func TestOpenAIParallel(t *testing.T) {
	r := mustRead(t, "openai_parallel.json")
	if r.TaskName != "weather-two-cities" || r.Status != "completed" || r.Iterations != 2 {
		t.Errorf("header: %+v", r)
	}
	if got := r.ExtraKeys(); !reflect.DeepEqual(got, []string{"agent_version", "model"}) {
		t.Errorf("extra keys: %v", got)
	}
	if r.Usage == nil || r.Usage.InputTokens != 412 || r.Usage.OutputTokens != 96 || r.Usage.TotalTokens != 508 || r.Usage.Cost != nil {
		t.Errorf("usage: %+v", r.Usage)
	}
	if _, ok := r.Usage.Extra["prompt_tokens_details"]; !ok {
		t.Errorf("usage extra: %v", r.Usage.Extra)
	}
	if r.ElapsedSeconds == nil || *r.ElapsedSeconds != 3.41 {
		t.Errorf("elapsed: %v", r.ElapsedSeconds)
	}
	c := r.Conversation
	if len(c) != 6 {
		t.Fatalf("%d messages", len(c))
	}
	dialects := []Dialect{DialectText, DialectText, DialectOpenAI, DialectOpenAI, DialectOpenAI, DialectText}
	for i, m := range c {
		if m.Dialect != dialects[i] {
			t.Errorf("message %d: dialect %s, want %s", i, m.Dialect, dialects[i])
		}
	}
	if want := "What is the weather in Paris and in Berlin right now?\nAnswer as JSON {city: celsius}."; c[1].Text != want {
		t.Errorf("parts text %q", c[1].Text)
	}
	if _, ok := c[2].Extra["refusal"]; !ok {
		t.Errorf("message extra: %v", c[2].Extra)
	}
	calls := c.ToolCalls()
	if len(calls) != 2 || calls[0].ID != "call_Ab12" || calls[1].ID != "call_Cd34" {
		t.Fatalf("calls: %+v", calls)
	}
	wantArgs := map[string]any{"city": "Paris", "unit": "celsius"}
	if !reflect.DeepEqual(calls[0].Arguments, wantArgs) || calls[0].RawArguments != `{"city": "Paris", "unit": "celsius"}` {
		t.Errorf("arguments %#v raw %q", calls[0].Arguments, calls[0].RawArguments)
	}
	// The tool messages answer out of order; linking is by id.
	if calls[0].Result == nil || calls[0].Result.Message != 4 || calls[1].Result == nil || calls[1].Result.Message != 3 {
		t.Fatalf("links: %+v %+v", calls[0].Result, calls[1].Result)
	}
	if calls[1].Result.Name != "get_weather" || calls[1].Result.Call != calls[1] {
		t.Errorf("result name/back link: %+v", calls[1].Result)
	}
	outs := c.ToolOutputs("get_weather")
	want := []any{
		map[string]any{"city": "Paris", "temperature": json.Number("18"), "sky": "clear"},
		map[string]any{"city": "Berlin", "temperature": json.Number("12.5"), "sky": "overcast"},
	}
	if !reflect.DeepEqual(outs, want) {
		t.Errorf("outputs %#v", outs)
	}
	if got := c.ToolCounts(); !reflect.DeepEqual(got, []ToolCount{{"get_weather", 2}}) {
		t.Errorf("counts %v", got)
	}
	if len(r.Warnings) != 0 {
		t.Errorf("warnings: %v", r.Warnings)
	}
	a := r.Answer()
	if a.Rule != RuleTaskResult || !reflect.DeepEqual(a.Value, map[string]any{"Paris": json.Number("18"), "Berlin": json.Number("12.5")}) {
		t.Errorf("answer %+v", a)
	}
	if len(r.ExecutionTrace) != 2 || r.ExecutionTrace[0].Feedback != "two results" {
		t.Errorf("trace %+v", r.ExecutionTrace)
	}
	if sb, ok := r.Sandbox.(map[string]any); !ok || sb["kind"] != "docker" {
		t.Errorf("sandbox %v", r.Sandbox)
	}
}

func TestAnthropicTools(t *testing.T) {
	r := mustRead(t, "anthropic_tools.json")
	c := r.Conversation
	if got := c.ToolNames(); !reflect.DeepEqual(got, []string{"bash", "bash", "read_file"}) {
		t.Errorf("names %v", got)
	}
	if got := c.ToolCounts(); !reflect.DeepEqual(got, []ToolCount{{"bash", 2}, {"read_file", 1}}) {
		t.Errorf("counts %v", got)
	}
	for i, m := range c {
		want := DialectAnthropic
		if i == 0 || i == 5 { // only text: the same in every dialect
			want = DialectText
		}
		if m.Dialect != want {
			t.Errorf("message %d: dialect %s", i, m.Dialect)
		}
	}
	if c[1].Text != "I'll list the files first." {
		t.Errorf("text %q", c[1].Text)
	}
	if c[3].Thinking != "That count may include the virtualenv." {
		t.Errorf("thinking %q", c[3].Thinking)
	}
	if c[4].Text != "Keep going." || len(c[4].ToolResults) != 2 {
		t.Errorf("user message with results: %+v", c[4])
	}
	ex := c.Exchanges()
	if len(ex) != 3 {
		t.Fatalf("exchanges %d", len(ex))
	}
	if ex[0].Call.RawArguments != `{"command":"find . -name '*.py' | wc -l"}` || ex[0].Result.Content != "42\n" {
		t.Errorf("exchange 0: %+v %+v", ex[0].Call, ex[0].Result)
	}
	if !ex[0].Result.IsJSON || ex[0].Result.JSON != json.Number("42") {
		t.Errorf("\"42\\n\" is JSON: %+v", ex[0].Result)
	}
	if ex[2].Result == nil || !ex[2].Result.IsError || ex[2].Result.Content != "Error: no such file" || ex[2].Result.IsJSON {
		t.Errorf("error result %+v", ex[2].Result)
	}
	if got := c.ToolOutputs("bash"); !reflect.DeepEqual(got, []any{json.Number("42"), json.Number("17")}) {
		t.Errorf("bash outputs %#v", got)
	}
	if r.Usage.Cost == nil || *r.Usage.Cost != 0.0093 || r.Usage.TotalTokens != 2391 {
		t.Errorf("usage %+v", r.Usage)
	}
	a := r.Answer()
	if a.Rule != RuleAnswerTag || a.Value != "17" || a.Message != 5 {
		t.Errorf("answer %+v", a)
	}
	if !strings.HasPrefix(c.FinalReply(), "There are 42 files") {
		t.Errorf("final reply %q", c.FinalReply())
	}
}

func TestMixed(t *testing.T) {
	r := mustRead(t, "mixed.json")
	c := r.Conversation
	want := []Dialect{DialectText, DialectText, DialectOpenAI, DialectAnthropic, DialectAnthropic, DialectOpenAI, DialectOpenAI}
	for i, m := range c {
		if m.Dialect != want[i] {
			t.Errorf("message %d: %s, want %s", i, m.Dialect, want[i])
		}
	}
	calls := c.ToolCalls()
	if len(calls) != 3 {
		t.Fatalf("calls %d", len(calls))
	}
	// An OpenAI call answered by an Anthropic block, and the reverse.
	if calls[0].Result == nil || calls[0].Result.Message != 3 || calls[0].Result.Name != "read_file" {
		t.Errorf("call 0 result %+v", calls[0].Result)
	}
	if calls[1].Result == nil || calls[1].Result.Message != 5 || !reflect.DeepEqual(calls[1].Result.JSON, map[string]any{"ok": true, "bytes": json.Number("33")}) {
		t.Errorf("call 1 result %+v", calls[1].Result)
	}
	// The flat {id, name, arguments} form with object arguments.
	if calls[2].Name != "task_complete" || calls[2].RawArguments != `{"answer":"An evaluation engine.","confidence":0.9}` {
		t.Errorf("flat call %+v", calls[2])
	}
	if r.Sandbox != "local" {
		t.Errorf("sandbox %v", r.Sandbox)
	}
	a := r.Answer()
	if a.Rule != RuleTaskComplete || a.Value != "An evaluation engine." || a.Message != 6 {
		t.Errorf("answer %+v", a)
	}
	if len(r.Warnings) != 0 {
		t.Errorf("warnings %v", r.Warnings)
	}
}

func TestBadArguments(t *testing.T) {
	r := mustRead(t, "bad_arguments.json")
	calls := r.Conversation.ToolCalls()
	if calls[0].ArgumentsValid() || calls[0].Arguments != nil || calls[0].RawArguments != `{"query": "wasm` {
		t.Errorf("bad arguments kept raw and flagged: %+v", calls[0])
	}
	if !calls[1].ArgumentsValid() || !reflect.DeepEqual(calls[1].Arguments, map[string]any{}) {
		t.Errorf("empty arguments are {}: %+v", calls[1])
	}
	if calls[0].Result == nil || calls[1].Result != nil {
		t.Errorf("links %+v %+v", calls[0].Result, calls[1].Result)
	}
	un := r.Conversation.UnlinkedResults()
	if len(un) != 1 || un[0].Content != "orphan" {
		t.Errorf("unlinked %+v", un)
	}
	want := []string{
		"conversation[1].tool_calls[0].function.arguments: not JSON (unexpected EOF); kept as text",
		`conversation[3]: no earlier tool call has id "call_zz"`,
	}
	if !reflect.DeepEqual(r.Warnings, want) {
		t.Errorf("warnings:\n%q\nwant\n%q", r.Warnings, want)
	}
	if a := r.Answer(); a.Rule != RuleNone || a.Value != nil || a.Message != -1 {
		t.Errorf("answer %+v", a)
	}
}

func TestErrors(t *testing.T) {
	file := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name string
		in   []byte
		kind error
		want string
	}{
		{"content number", file("wrong_content_type.json"), ErrShape,
			"result.json: conversation[3].content: expected a string or a list of content blocks, got a number"},
		{"html", file("not_json.txt"), ErrNotJSON,
			`result.json: not JSON: invalid character '<' looking for beginning of value (at byte 1); it begins "<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n<center><h1>502 Bad Gateway</h1></center>\n<hr><center>nginx/1.25.3</center>\n</body>\n</html>\n"`},
		{"empty", []byte(" \n"), ErrNotJSON, "result.json: empty; expected a JSON object"},
		{"truncated", []byte(`{"status": "compl`), ErrNotJSON, `result.json: not JSON: it ends before the JSON value does; it begins "{\"status\": \"compl"`},
		{"two values", []byte(`{} {}`), ErrNotJSON, `result.json: not JSON: extra data after the top-level value at byte 2: " {}"`},
		{"list", []byte(`[]`), ErrShape, "result.json: expected an object at the top level, got a list"},
		{"iterations string", []byte(`{"iterations": "three"}`), ErrShape, "result.json: iterations: expected a non-negative integer, got a string"},
		{"iterations fraction", []byte(`{"iterations": 2.5}`), ErrShape, "result.json: iterations: expected a non-negative integer, got 2.5"},
		{"iterations negative", []byte(`{"iterations": -1}`), ErrShape, "result.json: iterations: expected a non-negative integer, got -1"},
		{"status", []byte(`{"status": true}`), ErrShape, "result.json: status: expected a string, got a boolean"},
		{"conversation object", []byte(`{"conversation": {}}`), ErrShape, "result.json: conversation: expected a list, got an object"},
		{"message string", []byte(`{"conversation": ["hi"]}`), ErrShape, "result.json: conversation[0]: expected a message (an object with a role), got a string"},
		{"no role", []byte(`{"conversation": [{"content": "hi"}]}`), ErrShape, "result.json: conversation[0].role: missing; every message needs a role"},
		{"block no type", []byte(`{"conversation": [{"role": "user", "content": [{"text": "x"}]}]}`), ErrShape, "result.json: conversation[0].content[0].type: missing; a content block needs a type"},
		{"block number", []byte(`{"conversation": [{"role": "user", "content": [1]}]}`), ErrShape, "result.json: conversation[0].content[0]: expected a content block (an object with a type), got a number"},
		{"text not string", []byte(`{"conversation": [{"role": "user", "content": [{"type": "text", "text": 5}]}]}`), ErrShape, "result.json: conversation[0].content[0].text: expected a string, got a number"},
		{"tool_calls object", []byte(`{"conversation": [{"role": "assistant", "tool_calls": {}}]}`), ErrShape, "result.json: conversation[0].tool_calls: expected a list, got an object"},
		{"function name", []byte(`{"conversation": [{"role": "assistant", "tool_calls": [{"id": "a", "function": {"arguments": "{}"}}]}]}`), ErrShape, "result.json: conversation[0].tool_calls[0].function.name: missing; a tool call needs a name"},
		{"tool_use name", []byte(`{"conversation": [{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": 3}]}]}`), ErrShape, "result.json: conversation[0].content[0].name: expected a string, got a number"},
		{"tool_result content", []byte(`{"conversation": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": {}}]}]}`), ErrShape, "result.json: conversation[0].content[0].content: expected a string or a list of content blocks, got an object"},
		{"is_error", []byte(`{"conversation": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "is_error": "yes"}]}]}`), ErrShape, "result.json: conversation[0].content[0].is_error: expected a boolean, got a string"},
		{"tool_call_id", []byte(`{"conversation": [{"role": "tool", "tool_call_id": 7, "content": "x"}]}`), ErrShape, "result.json: conversation[0].tool_call_id: expected a string, got a number"},
		{"trace", []byte(`{"execution_trace": ["ran"]}`), ErrShape, "result.json: execution_trace[0]: expected an object with action and feedback, got a string"},
		{"usage", []byte(`{"usage": {"input_tokens": "10"}}`), ErrShape, "result.json: usage.input_tokens: expected a non-negative integer, got a string"},
		{"cost", []byte(`{"usage": {"cost": -1}}`), ErrShape, "result.json: usage.cost: expected a non-negative number, got -1"},
		{"elapsed", []byte(`{"elapsed_seconds": "3s"}`), ErrShape, "result.json: elapsed_seconds: expected a non-negative number, got a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.in, Options{})
			if err == nil {
				t.Fatal("no error")
			}
			if err.Error() != tt.want {
				t.Errorf("error\n%s\nwant\n%s", err, tt.want)
			}
			if !errors.Is(err, tt.kind) {
				t.Errorf("error is not %v", tt.kind)
			}
		})
	}
}

func TestSnippetBounded(t *testing.T) {
	in := append([]byte("\x00\x01not json "), bytes.Repeat([]byte("é"), 1000)...)
	_, err := Parse(in, Options{Source: "out.json"})
	if err == nil || !errors.Is(err, ErrNotJSON) {
		t.Fatalf("err %v", err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "out.json: not JSON: ") || !strings.Contains(msg, `"\x00\x01not json éé`) || !strings.HasSuffix(msg, "…") {
		t.Errorf("message %q", msg)
	}
	if len(msg) > 400 {
		t.Errorf("message is %d bytes", len(msg))
	}
}

func TestTooLarge(t *testing.T) {
	big := []byte(`{"task_result": "` + strings.Repeat("x", 2000) + `"}`)
	opts := Options{MaxBytes: 1024}
	if _, err := Parse(big, opts); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Parse: %v", err)
	}
	_, err := Read(bytes.NewReader(big), opts)
	if !errors.Is(err, ErrTooLarge) || err.Error() != "result.json: over the size limit of 1 KiB; make the agent write less" {
		t.Errorf("Read: %v", err)
	}
	name := filepath.Join(t.TempDir(), "result.json")
	if err := os.WriteFile(name, big, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ReadFile(name, opts)
	if !errors.Is(err, ErrTooLarge) || err.Error() != "result.json: 2019 bytes, over the size limit of 1 KiB; make the agent write less" {
		t.Errorf("ReadFile: %v", err)
	}
	if _, err := Read(bytes.NewReader(big), Options{}); err != nil {
		t.Errorf("default cap: %v", err)
	}
}

func TestLenient(t *testing.T) {
	in := `{"task_result": null, "conversation": null, "execution_trace": null, "status": null,
		"iterations": 3.0, "usage": {"input_tokens": 1, "output_tokens": 2, "cost_usd": 0.5},
		"conversation_id": "c1",
		"sandbox": null}`
	r, err := Parse([]byte("\xef\xbb\xbf"+in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Iterations != 3 || r.Usage.TotalTokens != 3 || *r.Usage.Cost != 0.5 || r.Extra["conversation_id"] != "c1" {
		t.Errorf("%+v %+v", r, r.Usage)
	}
	if len(r.Conversation) != 0 || len(r.ExecutionTrace) != 0 || r.Answer().Rule != RuleNone {
		t.Errorf("empty result: %+v", r)
	}
}

// A result nested deeper than the SDKs read is the result's error, not
// a fault of the test function that would refuse it.
func TestResultDeeperThanTheSDKsReadIsRefused(t *testing.T) {
	ok := `{"task_result": ` + strings.Repeat("[", MaxDepth-1) + strings.Repeat("]", MaxDepth-1) + `}`
	if _, err := Parse([]byte(ok), Options{}); err != nil {
		t.Errorf("a result %d levels deep: %v", MaxDepth, err)
	}
	deep := `{"task_result": ` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `}`
	if _, err := Parse([]byte(deep), Options{}); err == nil || !strings.Contains(err.Error(), "nests more than 1000 levels deep") {
		t.Errorf("a result %d levels deep: %v", MaxDepth+1, err)
	}
}
