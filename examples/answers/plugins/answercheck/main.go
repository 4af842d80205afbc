//go:build wasip1

// Command answercheck is a test function plugin: it judges an agent run by
// the answer the agent gave. The answer is taken from task_result first,
// then from the conversation (newest first): the arguments of a
// task_complete tool call, an <answer>…</answer> tag, the last JSON block.
//
// Config: {"expected": "42", "match": "exact" | "contains" | "number",
// "tolerance": 0.01}.
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -buildvcs=false -o ../answercheck.wasm .
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	pdk "github.com/extism/go-pdk"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval"
)

func main() {}

//go:wasmexport describe
func describe() int32 {
	pdk.OutputJSON(abi.Describe{ABIVersion: abi.Version, Name: "answercheck", Version: "1.0.0", Transport: abi.TransportStdio,
		Kinds:        []string{abi.KindTest},
		ConfigSchema: json.RawMessage(`{"type":"object","required":["expected"],"properties":{"expected":{"type":"string"},"match":{"enum":["exact","contains","number"]},"tolerance":{"type":"number","minimum":0}}}`),
		Description:  "Passes an agent run when its final answer matches the expected one."})
	return 0
}

var (
	answerTag = regexp.MustCompile(`(?s)<answer>(.*?)</answer>`)
	jsonBlock = regexp.MustCompile("(?s)```(?:json)?\\s*(\\{.*?\\}|\\[.*?\\])\\s*```")
)

// extract finds the agent's answer and says where it came from.
func extract(run abi.AgentRun) (answer, source string, ok bool) {
	if s := scalar(run.TaskResult); s != "" {
		return s, "task_result", true
	}
	for i := len(run.Conversation) - 1; i >= 0; i-- {
		m := run.Conversation[i]
		for j := len(m.ToolCalls) - 1; j >= 0; j-- {
			if tc := m.ToolCalls[j]; tc.Name == "task_complete" {
				if s := scalar(tc.Arguments); s != "" {
					return s, "task_complete", true
				}
			}
		}
		if all := answerTag.FindAllStringSubmatch(m.Content, -1); len(all) > 0 {
			return strings.TrimSpace(all[len(all)-1][1]), "answer tag", true
		}
		if all := jsonBlock.FindAllStringSubmatch(m.Content, -1); len(all) > 0 {
			var v any
			if json.Unmarshal([]byte(all[len(all)-1][1]), &v) == nil {
				if s := scalar(v); s != "" {
					return s, "json block", true
				}
			}
		}
	}
	return "", "", false
}

// scalar renders a result as an answer: a string as is, an object by its
// "answer" (or "result") field, a number in its shortest form.
func scalar(v any) string {
	switch t := v.(type) {
	case string:
		return strings.TrimSpace(t)
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64)
	case map[string]any:
		for _, k := range []string{"answer", "result", "final_answer"} {
			if s := scalar(t[k]); s != "" {
				return s
			}
		}
	}
	return ""
}

//go:wasmexport test
func test() int32 {
	var in abi.TestInput
	if err := wasmeval.ReadInput(&in); err != nil {
		pdk.SetError(err)
		return 1
	}
	expected, _ := in.Config["expected"].(string)
	match, _ := in.Config["match"].(string)
	tol, _ := in.Config["tolerance"].(float64)
	answer, source, ok := extract(in.Result)
	details := map[string]any{"answer": answer, "source": source, "expected": expected}
	if !ok {
		wasmeval.WriteOutput(abi.TestOutput{Passed: false, Feedback: "no answer found in task_result or the conversation", Details: details})
		return 0
	}
	var passed bool
	switch match {
	case "contains":
		passed = strings.Contains(strings.ToLower(answer), strings.ToLower(expected))
	case "number":
		a, err1 := strconv.ParseFloat(strings.TrimSpace(answer), 64)
		e, err2 := strconv.ParseFloat(expected, 64)
		passed = err1 == nil && err2 == nil && math.Abs(a-e) <= tol
	default:
		passed = strings.EqualFold(strings.TrimSpace(answer), strings.TrimSpace(expected))
	}
	feedback := fmt.Sprintf("answer %q (from %s) matches %q", answer, source, expected)
	if !passed {
		feedback = fmt.Sprintf("answer %q (from %s) does not match %q", answer, source, expected)
	}
	wasmeval.WriteOutput(abi.TestOutput{Passed: passed, Feedback: feedback, Details: details})
	return 0
}
