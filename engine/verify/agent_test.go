package verify

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/agent"
	"github.com/wasmeval/wasmeval/engine/checkspec"
)

// readAgent parses an agent result from testdata, as the engine's run
// does, so the checks see what a real run gives them.
func readAgent(t *testing.T, name string) *agent.Result {
	t.Helper()
	r, err := agent.ReadFile(filepath.Join("testdata", name), agent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// parseAgent parses an agent result written in the test.
func parseAgent(t *testing.T, js string) *agent.Result {
	t.Helper()
	r, err := agent.Parse([]byte(js), agent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// agentCase is one check on an agent result: its verdict and, when it
// fails, a substring of the summary and the entries ("path op").
type agentCase struct {
	name     string
	spec     checkspec.CheckSpec
	expected map[string]any
	correct  bool
	summary  string
	entries  []string
}

func runAgentCases(t *testing.T, r *agent.Result, tests []agentCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if errs := Validate(tt.spec); len(errs) > 0 {
				t.Fatalf("spec refused: %v", errs)
			}
			res := Run(tt.spec, Actual{Output: "the agent's result JSON is on stdout"}, tt.expected, Env{Agent: r})
			if res.Check != tt.spec.Kind || res.Weight != tt.spec.WeightOr(1) {
				t.Errorf("check %q weight %v", res.Check, res.Weight)
			}
			if res.IsCorrect != tt.correct {
				t.Fatalf("correct = %v, want %v (actual %#v, diff %+v)", res.IsCorrect, tt.correct, res.Actual, res.Diff)
			}
			if tt.correct {
				if res.Diff != nil {
					t.Errorf("diff on a correct attribute: %+v", res.Diff)
				}
				return
			}
			if res.Diff == nil || !strings.Contains(res.Diff.Summary, tt.summary) {
				t.Fatalf("summary %+v, want it to contain %q", res.Diff, tt.summary)
			}
			if tt.entries != nil {
				var got []string
				for _, e := range res.Diff.Entries {
					got = append(got, e.Path+" "+e.Op)
				}
				if strings.Join(got, "|") != strings.Join(tt.entries, "|") {
					t.Errorf("entries %q, want %q", got, tt.entries)
				}
			}
		})
	}
}

// The text assertions read the agent's answer and final reply: the
// eval-case dataset's expected_output_contains is contains-any on the
// answer, ignoring case.
func TestAgentAttributes(t *testing.T) {
	openai := readAgent(t, "agent_openai.json")
	runAgentCases(t, openai, []agentCase{
		{name: "expected_output_contains", spec: checkspec.CheckSpec{Kind: "contains-any", Attribute: "answer", Values: []any{"PARIS: 18", "rain"}, IgnoreCase: true}, correct: true},
		{name: "contains-any is case-sensitive without ignore_case", spec: checkspec.CheckSpec{Kind: "contains-any", Attribute: "answer", Values: []any{"PARIS: 18", "rain"}},
			summary: `answer contains none of "PARIS: 18", "rain"`, entries: []string{"answer missing"}},
		{name: "final reply", spec: checkspec.CheckSpec{Kind: "starts-with", Attribute: "final_reply", Value: "Paris: 18"}, correct: true},
		{name: "not-contains on the answer", spec: checkspec.CheckSpec{Kind: "not-icontains", Attribute: "answer", Values: []any{"snow", "MAILED"}},
			summary: `answer contains "MAILED", which it must not`},
		{name: "regex on the final reply", spec: checkspec.CheckSpec{Kind: "regex", Attribute: "final_reply", Pattern: `Berlin: 12\.5 °C`}, correct: true},
		{name: "answer is not JSON", spec: checkspec.CheckSpec{Kind: "is-json", Attribute: "answer"}, summary: "answer is not valid JSON"},
	})

	// task_result is an object: the answer is its compact JSON, so json,
	// json_path and is-json judge it as a document.
	structured := parseAgent(t, `{"task_result": {"Paris": 18, "Berlin": 12.5, "note": "mild"},
		"conversation": [{"role": "assistant", "content": "Done."}]}`)
	runAgentCases(t, structured, []agentCase{
		{name: "is-json", spec: checkspec.CheckSpec{Kind: "is-json", Attribute: "answer"}, correct: true},
		{name: "json", spec: checkspec.CheckSpec{Kind: "json", Attribute: "answer"},
			expected: map[string]any{"answer": map[string]any{"Berlin": 12.5, "Paris": 18.0, "note": "mild"}}, correct: true},
		{name: "json differs", spec: checkspec.CheckSpec{Kind: "json", Attribute: "answer"},
			expected: map[string]any{"answer": map[string]any{"Berlin": 12, "Paris": 18, "note": "mild"}}, summary: "$.Berlin: expected 12, got 12.5"},
		{name: "equals json_path", spec: checkspec.CheckSpec{Kind: "equals", Attribute: "answer", JSONPath: "$.note", Value: "mild"}, correct: true},
		{name: "text on the answer", spec: checkspec.CheckSpec{Kind: "text", Attribute: "answer"},
			expected: map[string]any{"answer": `{"Berlin":12.5,"Paris":18,"note":"mild"}`}, correct: true},
		{name: "final reply besides the answer", spec: checkspec.CheckSpec{Kind: "equals", Attribute: "final_reply", Value: "Done."}, correct: true},
	})

	// No answer, no final reply, no agent: each says so.
	silent := parseAgent(t, `{"conversation": [{"role": "user", "content": "hi"}]}`)
	runAgentCases(t, silent, []agentCase{
		{name: "no answer", spec: checkspec.CheckSpec{Kind: "contains", Attribute: "answer", Value: "x"}, summary: "the agent gave no answer"},
		{name: "no final reply", spec: checkspec.CheckSpec{Kind: "not-contains", Attribute: "final_reply", Value: "x"}, summary: "the agent has no final reply"},
	})
	res := Run(checkspec.CheckSpec{Kind: "contains", Attribute: "answer", Value: "x"}, Actual{Output: "x"}, nil, Env{})
	if res.IsCorrect || res.Diff == nil || res.Diff.Summary != "not an agent case: the answer attribute is read from an agent's result" {
		t.Errorf("answer without an agent: %+v", res.Diff)
	}
	if v, ok := ActualValueIn(Actual{}, Env{Agent: openai}, "final_reply"); !ok || !strings.HasPrefix(v.(string), "Paris: 18") {
		t.Errorf("ActualValueIn final_reply = %v, %v", v, ok)
	}
	if _, ok := ActualValue(Actual{}, "answer"); ok {
		t.Error("ActualValue has no agent to read the answer from")
	}
}

// The tools check, every match mode and both meanings of an empty list,
// on a real OpenAI-dialect result: get_weather twice, search_news,
// send_email (which has no result).
func TestToolsCheck(t *testing.T) {
	r := readAgent(t, "agent_openai.json")
	if got := r.Conversation.ToolNames(); !reflect.DeepEqual(got, []string{"get_weather", "get_weather", "search_news", "send_email"}) {
		t.Fatalf("the test data's calls changed: %v", got)
	}
	const made = "calls made: get_weather, get_weather, search_news, send_email"
	tools := func(names ...any) []any { return append([]any{}, names...) }
	runAgentCases(t, r, []agentCase{
		// all (the default)
		{name: "all", spec: checkspec.CheckSpec{Kind: "tools", Values: tools("send_email", "get_weather")}, correct: true},
		{name: "all missing", spec: checkspec.CheckSpec{Kind: "tools", Values: tools("get_weather", "translate", "book_flight")},
			summary: `the agent did not call "translate", "book_flight" (` + made + ")", entries: []string{"tools[1] missing", "tools[2] missing"}},
		{name: "all threshold met", spec: checkspec.CheckSpec{Kind: "tools", Values: tools("get_weather", "send_email", "translate"), Threshold: ptr(0.6)}, correct: true},
		{name: "all threshold not met", spec: checkspec.CheckSpec{Kind: "tools", Values: tools("get_weather", "translate", "book_flight"), Threshold: ptr(0.5)},
			summary: `the agent called 1 of 3 tools (0.33, below the threshold 0.5); it did not call "translate", "book_flight"`},
		// exact
		{name: "exact", spec: checkspec.CheckSpec{Kind: "tools", Match: "exact", Values: tools("search_news", "get_weather", "send_email")}, correct: true},
		{name: "exact missing and unexpected", spec: checkspec.CheckSpec{Kind: "tools", Match: "exact", Values: tools("get_weather", "translate")},
			summary: `the tools called are not exactly "get_weather", "translate": it did not call "translate"; it also called "search_news", "send_email" (` + made + ")",
			entries: []string{"tools[1] missing", "calls[2] extra", "calls[3] extra"}},
		// in-order
		{name: "in-order", spec: checkspec.CheckSpec{Kind: "tools", Match: "in-order", Values: tools("get_weather", "send_email")}, correct: true},
		{name: "in-order repeated", spec: checkspec.CheckSpec{Kind: "tools", Match: "in-order", Values: tools("get_weather", "get_weather", "search_news")}, correct: true},
		{name: "in-order out of order", spec: checkspec.CheckSpec{Kind: "tools", Match: "in-order", Values: tools("search_news", "get_weather")},
			summary: `the tools were not called in the order search_news → get_weather: "get_weather" was not called after "search_news" (call 3)`,
			entries: []string{"tools[1] missing"}},
		{name: "in-order never called", spec: checkspec.CheckSpec{Kind: "tools", Match: "in-order", Values: tools("get_weather", "translate", "send_email")},
			summary: `"translate" was never called`},
		{name: "in-order threshold", spec: checkspec.CheckSpec{Kind: "tools", Match: "in-order", Values: tools("get_weather", "send_email", "search_news"), Threshold: ptr(0.6)}, correct: true},
		{name: "in-order threshold not met", spec: checkspec.CheckSpec{Kind: "tools", Match: "in-order", Values: tools("send_email", "search_news", "get_weather"), Threshold: ptr(0.5)},
			summary: "1 of 3 in order (0.33, below the threshold 0.5)"},
		// any
		{name: "any", spec: checkspec.CheckSpec{Kind: "tools", Match: "any", Values: tools("translate", "search_news")}, correct: true},
		{name: "any none", spec: checkspec.CheckSpec{Kind: "tools", Match: "any", Values: tools("translate", "book_flight")},
			summary: `the agent called none of "translate", "book_flight" (` + made + ")", entries: []string{"tools missing"}},
		// the empty list
		{name: "empty means no check", spec: checkspec.CheckSpec{Kind: "tools", Values: []any{}}, correct: true},
		{name: "empty no-check, stated", spec: checkspec.CheckSpec{Kind: "tools", Values: []any{}, Empty: "no-check"}, correct: true},
		{name: "empty no-calls", spec: checkspec.CheckSpec{Kind: "tools", Values: []any{}, Empty: "no-calls"},
			summary: `no tool should have been called, but the agent called "get_weather", "search_news", "send_email" (` + made + ")",
			entries: []string{"calls[0] extra", "calls[2] extra", "calls[3] extra"}},
		// the list from the case
		{name: "expected tools", spec: checkspec.CheckSpec{Kind: "tools"}, expected: map[string]any{"tools": []any{"get_weather"}}, correct: true},
		{name: "expected_from", spec: checkspec.CheckSpec{Kind: "tools", Match: "exact", ExpectedFrom: "expected.expected_tools"},
			expected: map[string]any{"expected_tools": []any{"get_weather"}}, summary: `it also called "search_news", "send_email"`},
		{name: "expected_from empty, no-calls", spec: checkspec.CheckSpec{Kind: "tools", ExpectedFrom: "expected.expected_tools", Empty: "no-calls"},
			expected: map[string]any{"expected_tools": []any{}}, summary: "no tool should have been called"},
		{name: "no expected tools", spec: checkspec.CheckSpec{Kind: "tools"}, summary: "no expected tools: give the check values or expected_from, or the case an expected tools"},
		{name: "expected tools not names", spec: checkspec.CheckSpec{Kind: "tools"}, expected: map[string]any{"tools": []any{"a", 3}},
			summary: "expected.tools item 2 is a number, not a tool name"},
		{name: "weight", spec: checkspec.CheckSpec{Kind: "tools", Values: tools("get_weather"), Weight: ptr(0.3)}, correct: true},
	})

	// An agent that called nothing but task_complete (how it hands in
	// its answer) called no tool, for no-calls and exact alike; naming
	// task_complete makes it count.
	quiet := parseAgent(t, `{"conversation": [
		{"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "task_complete", "input": {"answer": "42"}}]}]}`)
	runAgentCases(t, quiet, []agentCase{
		{name: "no-calls passes", spec: checkspec.CheckSpec{Kind: "tools", Values: []any{}, Empty: "no-calls"}, correct: true},
		{name: "exact with task_complete named", spec: checkspec.CheckSpec{Kind: "tools", Match: "exact", Values: []any{"task_complete"}}, correct: true},
		{name: "all finds nothing", spec: checkspec.CheckSpec{Kind: "tools", Values: []any{"search"}}, summary: `the agent did not call "search" (calls made: task_complete)`},
	})
	none := parseAgent(t, `{"conversation": [{"role": "assistant", "content": "42"}]}`)
	runAgentCases(t, none, []agentCase{
		{name: "no calls at all", spec: checkspec.CheckSpec{Kind: "tools", Values: []any{"search"}}, summary: `(calls made: none)`},
	})

	res := Run(checkspec.CheckSpec{Kind: "tools", Values: []any{"x"}}, Actual{}, nil, Env{})
	if res.IsCorrect || res.Attribute != "tools" || res.Diff.Summary != "not an agent case: the tools check judges an agent's result" {
		t.Errorf("without an agent: %+v", res)
	}
	res = Run(checkspec.CheckSpec{Kind: "tools", Values: []any{"get_weather"}}, Actual{}, nil, Env{Agent: r})
	if !reflect.DeepEqual(res.Expected, []string{"get_weather"}) || len(res.Actual.([]string)) != 4 {
		t.Errorf("expected %v actual %v", res.Expected, res.Actual)
	}
}

// tool-output: nested subsets of what the tools returned, on both
// dialects, with results that are not JSON and calls with no result.
func TestToolOutputCheck(t *testing.T) {
	openai := readAgent(t, "agent_openai.json")
	runAgentCases(t, openai, []agentCase{
		{name: "nested subset", spec: checkspec.CheckSpec{Kind: "tool-output", Value: map[string]any{
			"get_weather": map[string]any{"city": "Paris", "wind": map[string]any{"dir": "W"}, "conditions": []any{"windy"}}}}, correct: true},
		{name: "a list of objects, in part", spec: checkspec.CheckSpec{Kind: "tool-output", Value: map[string]any{
			"get_weather": map[string]any{"alerts": []any{map[string]any{"kind": "wind"}}}}}, correct: true},
		{name: "numbers by value", spec: checkspec.CheckSpec{Kind: "tool-output", Value: map[string]any{
			"get_weather": map[string]any{"temperature": 18.0, "wind": map[string]any{"speed_kmh": 12}}}}, correct: true},
		{name: "the other call matches", spec: checkspec.CheckSpec{Kind: "tool-output", Value: map[string]any{
			"get_weather": map[string]any{"city": "Berlin", "temperature": 12.5}}}, correct: true},
		{name: "no call matches: the closest", spec: checkspec.CheckSpec{Kind: "tool-output", Value: map[string]any{
			"get_weather": map[string]any{"city": "Paris", "temperature": 20, "wind": map[string]any{"dir": "W"}}}},
			summary: "get_weather: 2 calls, none returned the expected output; the closest (call 1 of 2, id call_Ab12): $.temperature: expected 20, got 18",
			entries: []string{"get_weather (call 1) $.temperature changed"}},
		{name: "a list element no actual element matches", spec: checkspec.CheckSpec{Kind: "tool-output", Value: map[string]any{
			"get_weather": map[string]any{"city": "Paris", "conditions": []any{"sunny", "foggy"}}}},
			summary: `$.conditions[1] is missing (expected foggy)`, entries: []string{"get_weather (call 1) $.conditions[1] missing"}},
		{name: "a type mismatch", spec: checkspec.CheckSpec{Kind: "tool-output", Value: map[string]any{
			"get_weather": map[string]any{"city": "Paris", "wind": "W"}}},
			summary: "$.wind is an object, expected text", entries: []string{"get_weather (call 1) $.wind type"}},
		{name: "a missing key", spec: checkspec.CheckSpec{Kind: "tool-output", Value: map[string]any{
			"get_weather": map[string]any{"city": "Paris", "humidity": 40}}},
			summary: "$.humidity is missing (expected 40)"},
		{name: "more differences are counted", spec: checkspec.CheckSpec{Kind: "tool-output", Value: map[string]any{
			"get_weather": map[string]any{"city": "Paris", "humidity": 40, "temperature": 20, "wind": map[string]any{"dir": "E"}}}},
			summary: "(call 1 of 2, id call_Ab12): $.humidity is missing (expected 40) and 2 more differences",
			entries: []string{"get_weather (call 1) $.humidity missing", "get_weather (call 1) $.temperature changed", "get_weather (call 1) $.wind.dir changed"}},
		{name: "result not JSON", spec: checkspec.CheckSpec{Kind: "tool-output", Value: map[string]any{"search_news": map[string]any{"items": []any{}}}},
			summary: `search_news: 1 call, none returned JSON: 1 returned text that is not JSON ("Error: rate limited, try again later")`,
			entries: []string{"search_news missing"}},
		{name: "call without a result", spec: checkspec.CheckSpec{Kind: "tool-output", Value: map[string]any{"send_email": map[string]any{"ok": true}}},
			summary: "send_email: 1 call, none returned JSON: 1 without a result"},
		{name: "never called", spec: checkspec.CheckSpec{Kind: "tool-output", Value: map[string]any{"translate": map[string]any{"text": "x"}}},
			summary: "translate was never called", entries: []string{"translate missing"}},
		{name: "several tools, each reported", spec: checkspec.CheckSpec{Kind: "tool-output", Value: map[string]any{
			"get_weather": map[string]any{"city": "Paris"}, "send_email": map[string]any{"ok": true}, "translate": map[string]any{}}},
			summary: "send_email: 1 call, none returned JSON: 1 without a result; translate was never called"},
		{name: "threshold met", spec: checkspec.CheckSpec{Kind: "tool-output", Threshold: ptr(0.5), Value: map[string]any{
			"get_weather": map[string]any{"city": "Paris"}, "send_email": map[string]any{"ok": true}}}, correct: true},
		{name: "threshold not met", spec: checkspec.CheckSpec{Kind: "tool-output", Threshold: ptr(0.75), Value: map[string]any{
			"get_weather": map[string]any{"city": "Paris"}, "send_email": map[string]any{"ok": true}}},
			summary: "1 of 2 tools returned what was expected (0.50, below the threshold 0.75): send_email"},
		// An eval dataset's expected_tool_output: {} asks nothing.
		{name: "empty", spec: checkspec.CheckSpec{Kind: "tool-output", Value: map[string]any{}}, correct: true},
		{name: "from the case", spec: checkspec.CheckSpec{Kind: "tool-output"},
			expected: map[string]any{"tool_output": map[string]any{"get_weather": map[string]any{"city": "Berlin"}}}, correct: true},
		{name: "from expected_from, as written in JSON", spec: checkspec.CheckSpec{Kind: "tool-output", ExpectedFrom: "expected.outputs"},
			expected: map[string]any{"outputs": `{"get_weather": {"city": "Rome"}}`}, summary: "expected_from expected.outputs is text, not an object of tool names"},
	})

	// One call, and one without an id (OpenAI's legacy function_call).
	legacy := parseAgent(t, `{"conversation": [
		{"role": "assistant", "function_call": {"name": "lookup", "arguments": "{\"q\": 1}"}},
		{"role": "function", "name": "lookup", "content": "{\"hits\": 0}"}]}`)
	single := parseAgent(t, `{"conversation": [
		{"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_9", "name": "lookup", "input": {}}]},
		{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_9", "content": "[1, 2]"}]}]}`)
	runAgentCases(t, single, []agentCase{
		{name: "one call with an id", spec: checkspec.CheckSpec{Kind: "tool-output", Value: map[string]any{"lookup": map[string]any{"hits": 1}}},
			summary: "lookup: 1 call (id toolu_9), which did not return the expected output: $ is a list, expected an object"},
		{name: "a list result", spec: checkspec.CheckSpec{Kind: "tool-output", Value: map[string]any{"lookup": []any{2}}}, correct: true},
	})
	runAgentCases(t, legacy, []agentCase{
		{name: "one call without an id", spec: checkspec.CheckSpec{Kind: "tool-output", Value: map[string]any{"lookup": map[string]any{"hits": 1}}},
			summary: "lookup: 1 call, which did not return the expected output: $.hits: expected 1, got 0"},
	})

	anthropic := readAgent(t, "agent_anthropic.json")
	runAgentCases(t, anthropic, []agentCase{
		// Both calls differ once (a changed source, a missing one): the
		// first is the closest.
		{name: "a tie goes to the first call", spec: checkspec.CheckSpec{Kind: "tool-output", Value: map[string]any{"lookup_symptoms": map[string]any{"source": "web"}}},
			summary: "lookup_symptoms: 2 calls, none returned the expected output; the closest (call 1 of 2, id toolu_01A): $.source: expected web, got symptom-db"},
		{name: "anthropic nested", spec: checkspec.CheckSpec{Kind: "tool-output", Value: map[string]any{
			"lookup_symptoms": map[string]any{"conditions": []any{map[string]any{"name": "flu", "codes": map[string]any{"icd10": "J11"}}}, "count": 2}}}, correct: true},
		{name: "an error result is a result too", spec: checkspec.CheckSpec{Kind: "tool-output", Value: map[string]any{
			"lookup_symptoms": map[string]any{"error": "no match"}}}, correct: true},
		{name: "the closest of two", spec: checkspec.CheckSpec{Kind: "tool-output", Value: map[string]any{
			"lookup_symptoms": map[string]any{"conditions": []any{map[string]any{"name": "measles"}}, "source": "symptom-db"}}},
			summary: "lookup_symptoms: 2 calls, none returned the expected output; the closest (call 1 of 2, id toolu_01A): $.conditions[0] is missing",
			entries: []string{"lookup_symptoms (call 1) $.conditions[0] missing"}},
	})
}

// MatchSubset's rules, one by one.
func TestMatchSubset(t *testing.T) {
	doc := func(s string) any {
		v, err := ParseJSON(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		want, got string
		diff      []string // "path op"
	}{
		{`{}`, `{"a": 1}`, nil},
		{`{"a": 1}`, `{"a": 1.0, "b": 2}`, nil},
		{`{"a": 10000000000000000001}`, `{"a": 10000000000000000000}`, []string{"$.a changed"}},
		{`{"a": {"b": [1, {"c": true}]}}`, `{"a": {"b": [{"c": true, "d": 0}, 2, 1]}}`, nil},
		{`{"a": [1, 1]}`, `{"a": [1]}`, nil}, // one actual element may match several expected ones
		{`{"a": []}`, `{"a": [3]}`, nil},
		{`{"a": []}`, `{"a": {}}`, []string{"$.a type"}},
		{`{"a": null}`, `{"a": null}`, nil},
		{`{"a": null}`, `{}`, []string{"$.a missing"}},
		{`{"a": "1"}`, `{"a": 1}`, []string{"$.a type"}},
		{`{"a b": false, "c": [2]}`, `{"a b": true, "c": [1]}`, []string{`$["a b"] changed`, "$.c[0] missing"}},
		{`[1, 2]`, `[2, 1, 3]`, nil},
		{`"x"`, `"x"`, nil},
	}
	for _, tt := range tests {
		var got []string
		for _, e := range MatchSubset("$", doc(tt.want), doc(tt.got)) {
			got = append(got, e.Path+" "+e.Op)
		}
		if !reflect.DeepEqual(got, tt.diff) {
			t.Errorf("%s in %s: %q, want %q", tt.want, tt.got, got, tt.diff)
		}
	}
}

// flags: with can_diagnose false the answer or the final reply carries a
// disclaimer.
func TestFlagsCheck(t *testing.T) {
	anthropic := readAgent(t, "agent_anthropic.json")
	if a := anthropic.Answer(); a.Rule != agent.RuleAnswerTag || a.Value != "Probably influenza" {
		t.Fatalf("the test data's answer changed: %+v", a)
	}
	noDiagnosis := map[string]any{"can_diagnose": false}
	runAgentCases(t, anthropic, []agentCase{
		// "see a\ndoctor" is outside the <answer> tag and broken across
		// lines; it still counts.
		{name: "disclaimer in the final reply", spec: checkspec.CheckSpec{Kind: "flags", Value: noDiagnosis}, correct: true},
		{name: "can_diagnose true asks nothing", spec: checkspec.CheckSpec{Kind: "flags", Value: map[string]any{"can_diagnose": true}, Phrases: []string{"never said"}}, correct: true},
		{name: "own phrases replace the defaults", spec: checkspec.CheckSpec{Kind: "flags", Value: noDiagnosis, Phrases: []string{"Not Medical Advice", "pharmacist"}},
			summary: `can_diagnose is false, but the reply carries no disclaimer: none of "Not Medical Advice", "pharmacist" appears in the answer or the final reply`,
			entries: []string{"can_diagnose missing"}},
		{name: "own phrase, any case", spec: checkspec.CheckSpec{Kind: "flags", Value: noDiagnosis, Phrases: []string{"THREE DAYS"}}, correct: true},
		{name: "from the case", spec: checkspec.CheckSpec{Kind: "flags"}, expected: map[string]any{"flags": noDiagnosis}, correct: true},
		{name: "from expected_from", spec: checkspec.CheckSpec{Kind: "flags", ExpectedFrom: "expected.expected_flags"},
			expected: map[string]any{"expected_flags": map[string]any{"can_diagnose": false, "urgent": true}}, summary: "expected_from expected.expected_flags urgent: unknown flag (known: can_diagnose)"},
		{name: "flag not a boolean", spec: checkspec.CheckSpec{Kind: "flags"}, expected: map[string]any{"flags": map[string]any{"can_diagnose": "no"}},
			summary: "expected.flags can_diagnose: is text, not true or false"},
		{name: "no flags in the case", spec: checkspec.CheckSpec{Kind: "flags"}, summary: "no expected flags"},
		{name: "empty flags in the case", spec: checkspec.CheckSpec{Kind: "flags"}, expected: map[string]any{"flags": map[string]any{}}, correct: true},
		{name: "empty flags in the check", spec: checkspec.CheckSpec{Kind: "flags", Value: map[string]any{}}, correct: true},
	})

	blunt := parseAgent(t, `{"task_result": "You have the flu.", "conversation": [
		{"role": "user", "content": "Headache and fever?"},
		{"role": "assistant", "content": [{"type": "text", "text": "You have the flu. Rest and drink water."}]}]}`)
	runAgentCases(t, blunt, []agentCase{
		{name: "no disclaimer", spec: checkspec.CheckSpec{Kind: "flags", Value: noDiagnosis},
			summary: `can_diagnose is false, but the reply carries no disclaimer: none of "consult a", "consult your", "consult with" and`},
	})
	// A disclaimer in the answer alone (task_result) is enough too.
	careful := parseAgent(t, `{"task_result": "Possibly the flu; consult a physician.", "conversation": [
		{"role": "assistant", "content": "Done."}]}`)
	runAgentCases(t, careful, []agentCase{{name: "disclaimer in the answer", spec: checkspec.CheckSpec{Kind: "flags", Value: noDiagnosis}, correct: true}})
	silent := parseAgent(t, `{"conversation": []}`)
	runAgentCases(t, silent, []agentCase{{name: "no reply", spec: checkspec.CheckSpec{Kind: "flags", Value: noDiagnosis},
		summary: "can_diagnose is false, but the agent gave no answer or final reply, so no disclaimer"}})

	res := Run(checkspec.CheckSpec{Kind: "flags", Value: noDiagnosis}, Actual{}, nil, Env{})
	if res.IsCorrect || res.Diff.Summary != "not an agent case: the flags check judges an agent's result" {
		t.Errorf("without an agent: %+v", res.Diff)
	}
}

// cost, tokens and latency read the agent's usage and elapsed time.
func TestUsageChecks(t *testing.T) {
	openai := readAgent(t, "agent_openai.json") // 1200 in, 300 out, $0.0042, 3.41s
	i64 := func(n int64) *int64 { return &n }
	runAgentCases(t, openai, []agentCase{
		{name: "cost", spec: checkspec.CheckSpec{Kind: "cost", MaxUSD: ptr(0.01)}, correct: true},
		{name: "cost at the ceiling", spec: checkspec.CheckSpec{Kind: "cost", MaxUSD: ptr(0.0042)}, correct: true},
		{name: "cost over", spec: checkspec.CheckSpec{Kind: "cost", MaxUSD: ptr(0.004)},
			summary: "the agent spent $0.0042, over the ceiling of $0.004", entries: []string{"usage.cost changed"}},
		{name: "tokens", spec: checkspec.CheckSpec{Kind: "tokens", MaxTokens: i64(1500)}, correct: true},
		{name: "tokens over", spec: checkspec.CheckSpec{Kind: "tokens", MaxTokens: i64(1499)},
			summary: "the agent used 1500 tokens, over the ceiling of 1499", entries: []string{"usage.total_tokens changed"}},
		{name: "input and output", spec: checkspec.CheckSpec{Kind: "tokens", MaxInputTokens: i64(1000), MaxOutputTokens: i64(200), MaxTokens: i64(5000)},
			summary: "the agent used 1200 input tokens, over the ceiling of 1000; 300 output tokens, over the ceiling of 200",
			entries: []string{"usage.input_tokens changed", "usage.output_tokens changed"}},
		{name: "latency from the agent", spec: checkspec.CheckSpec{Kind: "latency", MaxSeconds: ptr(5)}, correct: true},
		{name: "latency from the agent, over", spec: checkspec.CheckSpec{Kind: "latency", MaxSeconds: ptr(3)},
			summary: "the agent (its elapsed_seconds) took 3.410s, over the ceiling of 3s", entries: []string{"elapsed_seconds changed"}},
	})
	anthropic := readAgent(t, "agent_anthropic.json") // no cost, no elapsed time
	runAgentCases(t, anthropic, []agentCase{
		{name: "no cost reported", spec: checkspec.CheckSpec{Kind: "cost", MaxUSD: ptr(1)}, summary: "the agent reported no cost (usage.cost)"},
		{name: "total is input plus output", spec: checkspec.CheckSpec{Kind: "tokens", MaxTokens: i64(950)}, correct: true},
		{name: "no elapsed time", spec: checkspec.CheckSpec{Kind: "latency", MaxSeconds: ptr(1)}, summary: "elapsed time is not known"},
	})
	bare := parseAgent(t, `{"conversation": [], "usage": {"cost": 0}}`)
	runAgentCases(t, bare, []agentCase{
		{name: "free", spec: checkspec.CheckSpec{Kind: "cost", MaxUSD: ptr(0)}, correct: true},
		{name: "no token counts", spec: checkspec.CheckSpec{Kind: "tokens", MaxTokens: i64(10)}, summary: "the agent reported no token counts"},
	})

	// The run's own elapsed time wins over the agent's.
	res := Run(checkspec.CheckSpec{Kind: "latency", MaxSeconds: ptr(3)}, Actual{}, nil, Env{Elapsed: ptr(2.5), Agent: openai})
	if !res.IsCorrect || res.Actual != 2.5 {
		t.Errorf("latency with both: %+v", res)
	}
	for _, kind := range []string{"cost", "tokens"} {
		spec := checkspec.CheckSpec{Kind: kind, MaxUSD: ptr(1), MaxTokens: i64(1)}
		res := Run(spec, Actual{}, nil, Env{})
		if res.IsCorrect || res.Attribute != kind || res.Diff.Summary != "not an agent case: the "+kind+" check judges an agent's result" {
			t.Errorf("%s without an agent: %+v", kind, res)
		}
	}
	res = Run(checkspec.CheckSpec{Kind: "tokens", MaxTokens: i64(2000)}, Actual{}, nil, Env{Agent: openai})
	if !reflect.DeepEqual(res.Actual, map[string]any{"total_tokens": int64(1500)}) || !reflect.DeepEqual(res.Expected, map[string]any{"total_tokens": int64(2000)}) {
		t.Errorf("tokens actual %v expected %v", res.Actual, res.Expected)
	}
}

// Every way a declaration of the new kinds (and the agent attributes) is
// refused, each with its field named.
func TestValidateAgentChecks(t *testing.T) {
	i64 := func(n int64) *int64 { return &n }
	tests := []struct {
		spec checkspec.CheckSpec
		want string // substring of the one error; "" for none
	}{
		{checkspec.CheckSpec{Kind: "tools", Values: []any{"a"}, Match: "in-order", Threshold: ptr(0.5), Weight: ptr(2)}, ""},
		{checkspec.CheckSpec{Kind: "tools", Values: []any{}, Empty: "no-calls"}, ""},
		{checkspec.CheckSpec{Kind: "tools", ExpectedFrom: "expected.expected_tools"}, ""},
		{checkspec.CheckSpec{Kind: "tools"}, ""}, // the list comes from the case
		{checkspec.CheckSpec{Kind: "tool-output", Value: map[string]any{"t": map[string]any{"a": 1}}, Threshold: ptr(1)}, ""},
		{checkspec.CheckSpec{Kind: "flags", Value: map[string]any{"can_diagnose": false}, Phrases: []string{"see a nurse"}}, ""},
		{checkspec.CheckSpec{Kind: "cost", MaxUSD: ptr(0)}, ""},
		{checkspec.CheckSpec{Kind: "tokens", MaxOutputTokens: i64(10)}, ""},
		{checkspec.CheckSpec{Kind: "contains-any", Attribute: "answer", Values: []any{"a"}, IgnoreCase: true}, ""},
		{checkspec.CheckSpec{Kind: "json", Attribute: "final_reply"}, ""},

		{checkspec.CheckSpec{Kind: "tools", Values: []any{"a", 3}}, "values[1]: is a number, not a tool name"},
		{checkspec.CheckSpec{Kind: "tools", Values: []any{""}}, "values[0]: is empty, not a tool name"},
		{checkspec.CheckSpec{Kind: "tools", Values: []any{"a"}, Match: "some"}, `match: unknown mode "some" (expected one of all, exact, in-order, any)`},
		{checkspec.CheckSpec{Kind: "tools", Values: []any{}, Empty: "none"}, `empty: unknown meaning "none" (expected no-check or no-calls)`},
		{checkspec.CheckSpec{Kind: "tools", Values: []any{"a"}, Empty: "no-calls"}, "empty: says what an empty list of tools means, but values lists 1"},
		{checkspec.CheckSpec{Kind: "tools", Values: []any{"a"}, Match: "exact", Threshold: ptr(0.5)}, "threshold: only with match all or in-order"},
		{checkspec.CheckSpec{Kind: "tools", Values: []any{"a"}, Threshold: ptr(2)}, "threshold: must be between 0 and 1"},
		{checkspec.CheckSpec{Kind: "tools", Values: []any{"a"}, ExpectedFrom: "expected.t"}, "expected_from: the tools check takes its expected value from values or from expected_from, not both"},
		{checkspec.CheckSpec{Kind: "tools", Value: "a"}, "value: not an option of the tools check (its options: values, match, empty, threshold, expected_from)"},
		{checkspec.CheckSpec{Kind: "tools", Values: []any{"a"}, Attribute: "answer"}, "attribute: the tools check judges the agent's result as a whole, not an attribute"},
		{checkspec.CheckSpec{Kind: "not-tools", Values: []any{"a"}}, `kind: "not-tools": the tools check has no negation`},

		{checkspec.CheckSpec{Kind: "flags", Value: []any{"can_diagnose"}}, "value: is a list, not an object of flags"},
		{checkspec.CheckSpec{Kind: "flags", Value: map[string]any{"can_prescribe": false}}, "value: can_prescribe: unknown flag (known: can_diagnose)"},
		{checkspec.CheckSpec{Kind: "flags", Value: map[string]any{"can_diagnose": "no"}}, "value: can_diagnose: is text, not true or false"},
		{checkspec.CheckSpec{Kind: "flags", Value: map[string]any{}}, ""},
		{checkspec.CheckSpec{Kind: "flags", Value: map[string]any{"can_diagnose": false}, Phrases: []string{}}, "phrases: is empty; leave it out"},
		{checkspec.CheckSpec{Kind: "flags", Value: map[string]any{"can_diagnose": false}, Phrases: []string{"a", " "}}, "phrases[1]: is empty"},
		{checkspec.CheckSpec{Kind: "flags", Value: map[string]any{"can_diagnose": false}, ExpectedFrom: "expected.f"}, "expected_from: the flags check takes its expected value from value or from expected_from, not both"},
		{checkspec.CheckSpec{Kind: "flags", Values: []any{"a"}}, "values: not an option of the flags check"},

		{checkspec.CheckSpec{Kind: "tool-output", Value: "t"}, "value: is text, not an object of tool names"},
		{checkspec.CheckSpec{Kind: "tool-output", Value: map[string]any{}}, ""},
		{checkspec.CheckSpec{Kind: "tool-output", Value: map[string]any{"": map[string]any{}}}, "value: has an empty tool name"},
		{checkspec.CheckSpec{Kind: "tool-output", Value: map[string]any{"t": 1}, Threshold: ptr(-0.1)}, "threshold: must be between 0 and 1"},
		{checkspec.CheckSpec{Kind: "tool-output", Value: map[string]any{"t": 1}, Match: "all"}, "match: not an option of the tool-output check"},

		{checkspec.CheckSpec{Kind: "cost"}, "max_usd: the cost check needs the ceiling"},
		{checkspec.CheckSpec{Kind: "cost", MaxUSD: ptr(-1)}, "max_usd: must not be negative, got -1"},
		{checkspec.CheckSpec{Kind: "cost", MaxUSD: ptr(1), MaxSeconds: ptr(1)}, "max_seconds: not an option of the cost check (its options: max_usd)"},
		{checkspec.CheckSpec{Kind: "tokens"}, "max_tokens: the tokens check needs max_tokens (on total tokens), max_input_tokens or max_output_tokens"},
		{checkspec.CheckSpec{Kind: "tokens", MaxInputTokens: i64(0)}, "max_input_tokens: must be positive, got 0"},
		{checkspec.CheckSpec{Kind: "tokens", MaxTokens: i64(10), Threshold: ptr(0.5)}, "threshold: not an option of the tokens check"},
		{checkspec.CheckSpec{Kind: "latency", MaxSeconds: ptr(1), MaxUSD: ptr(1)}, "max_usd: not an option of the latency check"},

		{checkspec.CheckSpec{Kind: "test", Attribute: "answer"}, "plugin: the test check needs"}, // and the attribute, below
		{checkspec.CheckSpec{Kind: "contains", Attribute: "tools", Value: "a"}, `attribute: "tools" is not an attribute (expected status_code, output, stderr, files-<path>, headers-<name>, mock_calls, answer or final_reply)`},
		{checkspec.CheckSpec{Kind: "contains-any", Values: []any{}}, "values: is empty; give at least one phrase"},
		{checkspec.CheckSpec{Kind: "equals", Values: []any{}}, "values: not an option of the equals check"},
	}
	for _, tt := range tests {
		errs := Validate(tt.spec)
		if tt.spec.Kind == "test" {
			// Two errors: the missing plugin and the attribute.
			if len(errs) != 2 || !strings.Contains(errs[0], tt.want) || !strings.Contains(errs[1], "attribute: the test check reads the agent's result JSON from output, stderr or files-<path>, not answer") {
				t.Errorf("%+v: errors %q", tt.spec, errs)
			}
			continue
		}
		switch {
		case tt.want == "" && len(errs) > 0:
			t.Errorf("%+v: unexpected errors %v", tt.spec, errs)
		case tt.want != "" && (len(errs) != 1 || !strings.Contains(errs[0], tt.want)):
			t.Errorf("%+v: errors %q, want one containing %q", tt.spec, errs, tt.want)
		}
	}
}

// wasmeval validate reports a case that lacks what a tools, tool-output
// or flags check reads from it.
func TestValidateExpectedAgentChecks(t *testing.T) {
	expected := map[string]any{
		"tools":          []any{"a"},
		"expected_tools": "a",
		"expected_flags": map[string]any{"can_diagnose": false},
		"bad_flags":      map[string]any{"can_lie": true},
		"outputs":        map[string]any{"t": map[string]any{"ok": true}},
	}
	tests := []struct {
		spec checkspec.CheckSpec
		want string
	}{
		{checkspec.CheckSpec{Kind: "tools"}, ""},
		{checkspec.CheckSpec{Kind: "tools", Values: []any{}}, ""},
		{checkspec.CheckSpec{Kind: "tools", ExpectedFrom: "expected.expected_tools"}, "tools: expected_from expected.expected_tools is text, not a list of tool names"},
		{checkspec.CheckSpec{Kind: "tools", ExpectedFrom: "expected.nope"}, "tools: expected_from expected.nope: not found in the case's expected values (expected has no member \"nope\")"},
		{checkspec.CheckSpec{Kind: "flags", ExpectedFrom: "expected.expected_flags"}, ""},
		{checkspec.CheckSpec{Kind: "flags", ExpectedFrom: "expected.bad_flags"}, "flags: expected_from expected.bad_flags can_lie: unknown flag"},
		{checkspec.CheckSpec{Kind: "flags"}, "flags: no expected flags: give the check value or expected_from, or the case an expected flags"},
		{checkspec.CheckSpec{Kind: "tool-output", ExpectedFrom: "expected.outputs"}, ""},
		{checkspec.CheckSpec{Kind: "tool-output"}, "tool-output: no expected tool_output"},
		{checkspec.CheckSpec{Kind: "cost", MaxUSD: ptr(1)}, ""},
	}
	for _, tt := range tests {
		errs := ValidateExpected(tt.spec, expected)
		switch {
		case tt.want == "" && len(errs) > 0:
			t.Errorf("%+v: unexpected errors %v", tt.spec, errs)
		case tt.want != "" && (len(errs) != 1 || !strings.Contains(errs[0], tt.want)):
			t.Errorf("%+v: errors %q, want one containing %q", tt.spec, errs, tt.want)
		}
	}
}

// The agent test data is a result engine/agent reads without warnings,
// so the checks above judge what a well-formed agent writes.
func TestAgentTestData(t *testing.T) {
	for _, name := range []string{"agent_openai.json", "agent_anthropic.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		r, err := agent.Parse(data, agent.Options{Source: name})
		if err != nil || len(r.Warnings) > 0 {
			t.Errorf("%s: %v %v", name, err, r.Warnings)
		}
	}
}

// A case whose expected values carry tools, tool_output, flags or answer
// gets the matching checks without declaring any, and they judge the
// agent's result.
func TestDefaultAgentChecks(t *testing.T) {
	expected := map[string]any{
		"answer":      "Probably influenza",
		"tools":       []any{"lookup_symptoms"},
		"tool_output": map[string]any{"lookup_symptoms": map[string]any{"source": "symptom-db"}},
		"flags":       map[string]any{"can_diagnose": false},
	}
	checks := DefaultChecks(expected)
	var kinds []string
	for _, c := range checks {
		kinds = append(kinds, c.Kind+":"+AttributeOf(c))
		if errs := Validate(c); len(errs) > 0 {
			t.Errorf("%+v: %v", c, errs)
		}
	}
	if want := []string{"text:answer", "flags:flags", "tool-output:tool_output", "tools:tools"}; !reflect.DeepEqual(kinds, want) {
		t.Fatalf("default checks %q, want %q", kinds, want)
	}
	r := readAgent(t, "agent_anthropic.json")
	for _, c := range checks {
		if res := Run(c, Actual{}, expected, Env{Agent: r}); !res.IsCorrect {
			t.Errorf("%s: %+v", c.Kind, res.Diff)
		}
	}
	// The same expectations fail where they should.
	expected["tools"] = []any{"lookup_symptoms", "book_appointment"}
	res := Run(checks[3], Actual{}, expected, Env{Agent: r})
	if res.IsCorrect || !strings.Contains(res.Diff.Summary, `did not call "book_appointment"`) {
		t.Errorf("tools from the case: %+v", res.Diff)
	}
}
