//go:build wasip1

// Command wordtest is a test-function plugin written with the Go SDK: an
// agent's run passes when its answer (task_result, or else the last
// assistant message of its conversation) contains the word its config
// names. An answer of "unsure" leaves the run unscored.
package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval/testfunction"
)

func main() {}

func init() { testfunction.Serve(judge) }

//go:wasmexport describe
func describe() int32 {
	return wasmeval.DescribePlugin(wasmeval.Describe{Name: "wordtest", Version: "1.0.0", Kinds: []string{abi.KindTest},
		ConfigSchema: json.RawMessage(`{"type": "object", "properties": {"word": {"type": "string", "minLength": 1}},
			"required": ["word"], "additionalProperties": false}`)})
}

func judge(in *wasmeval.TestInput) (*wasmeval.TestOutput, error) {
	word, _ := in.Config["word"].(string)
	answer, from := "", "task_result"
	switch t := in.Result.TaskResult.(type) {
	case string:
		answer = t
	case nil:
	default:
		b, _ := json.Marshal(t)
		answer = string(b)
	}
	if answer == "" {
		from = "the last assistant message"
		for i := len(in.Result.Conversation) - 1; i >= 0; i-- {
			if m := in.Result.Conversation[i]; m.Role == "assistant" && m.Content != "" {
				answer = m.Content
				break
			}
		}
	}
	details := map[string]any{"answer": answer, "from": from, "messages": len(in.Result.Conversation)}
	if strings.TrimSpace(answer) == "unsure" {
		return &wasmeval.TestOutput{Unscored: "the agent declined to answer", Details: details}, nil
	}
	if strings.Contains(strings.ToLower(answer), strings.ToLower(word)) {
		return &wasmeval.TestOutput{Passed: true, Feedback: fmt.Sprintf("%s mentions %q", from, word), Details: details}, nil
	}
	return &wasmeval.TestOutput{Feedback: fmt.Sprintf("%s does not mention %q: %q", from, word, answer), Details: details}, nil
}
