//go:build wasip1

// Command answer is the agent-tasks example's test function in Go: it
// passes an agent run whose answer — found by the engine's one rule
// (docs/agents.md, "The answer") — matches the expected one.
//
// Config:
//
//	expected  the answer (required)
//	match     "text" (default: ignoring case and surrounding space) or
//	          "number" (by value)
//	rule      the rule that must have found the answer, e.g. task_complete
//	          when the task asks the agent to hand it in with that tool
//	tools     tools the agent must have called on its way (e.g. list_files)
//
// Build: `task plugins`.
package main

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval/testfunction"
)

func main() {}

func init() { testfunction.Serve(judge) }

//go:wasmexport describe
func describe() int32 {
	return wasmeval.DescribePlugin(wasmeval.Describe{Name: "agent-answer", Version: "1.0.0",
		Kinds: []string{abi.KindTest},
		ConfigSchema: json.RawMessage(`{"type":"object","required":["expected"],"additionalProperties":false,"properties":{` +
			`"expected":{"type":"string"},"match":{"enum":["text","number"]},` +
			`"rule":{"enum":["task_result","task_complete","answer_tag","json_block","final_reply"]},` +
			`"tools":{"type":"array","items":{"type":"string"}}}}`),
		Description: "Passes an agent run whose answer matches the expected one."})
}

func str(m map[string]any, k string) string { s, _ := m[k].(string); return s }

func quote(s string) string { return string(wasmeval.AppendQuoted(nil, s)) }

func judge(in *wasmeval.TestInput) (*wasmeval.TestOutput, error) {
	run := &in.Result
	expected := str(in.Config, "expected")
	found := wasmeval.FindAnswer(run)
	answer := strings.TrimSpace(wasmeval.AnswerText(found.Value))
	called := map[string]bool{}
	var calls []any
	for _, m := range run.Conversation {
		for _, c := range m.ToolCalls {
			called[c.Name] = true
			calls = append(calls, c.Name)
		}
	}
	details := map[string]any{"answer": answer, "rule": found.Rule, "expected": expected, "tools_called": calls}
	out := &wasmeval.TestOutput{Details: details}
	if !found.Found() {
		out.Feedback = "the agent gave no answer"
		return out, nil
	}
	if want := str(in.Config, "rule"); want != "" && found.Rule != want {
		out.Feedback = "the answer " + quote(answer) + " came from " + found.Rule + ", but the task asks for it through " + want
		return out, nil
	}
	switch str(in.Config, "match") {
	case "number":
		a, ok1 := wasmeval.ParseNumber(answer)
		e, ok2 := wasmeval.ParseNumber(expected)
		out.Passed = ok1 && ok2 && math.Abs(a-e) < 1e-9
	default:
		out.Passed = wasmeval.NormalizeText(answer, true, true) == wasmeval.NormalizeText(expected, true, true)
	}
	verb := " does not match "
	if out.Passed {
		verb = " matches "
	}
	out.Feedback = "answer " + quote(answer) + " (from " + found.Rule + ")" + verb + quote(expected)
	// The right answer is not enough: the task says which tools to use.
	if tools, _ := in.Config["tools"].([]any); out.Passed && len(tools) > 0 {
		var missing []string
		for _, t := range tools {
			if name, _ := t.(string); !called[name] {
				missing = append(missing, quote(name))
			}
		}
		if len(missing) > 0 {
			out.Passed = false
			out.Feedback += ", but the agent never called " + strings.Join(missing, ", ")
		}
	}
	return out, nil
}
