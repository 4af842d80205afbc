package wasmeval

import (
	"encoding/json"
	"strings"
)

// Where ExtractAnswer found an answer.
const (
	SourceTaskResult   = "task_result"
	SourceTaskComplete = "task_complete"
	SourceAnswerTag    = "answer tag"
	SourceJSONBlock    = "json block"
)

// ExtractAnswer finds the answer an agent gave: task_result first, then the
// conversation, newest message first — in each message the arguments of a
// task_complete tool call (newest first), then the last <answer>…</answer>
// tag, then the last fenced JSON block (```json … ``` or ``` … ```). Every
// SDK follows these same rules (docs/conformance.md).
func ExtractAnswer(run *AgentRun) (answer, source string, ok bool) {
	if s := AnswerText(run.TaskResult); s != "" {
		return s, SourceTaskResult, true
	}
	for i := len(run.Conversation) - 1; i >= 0; i-- {
		m := run.Conversation[i]
		for j := len(m.ToolCalls) - 1; j >= 0; j-- {
			if tc := m.ToolCalls[j]; tc.Name == "task_complete" {
				if s := AnswerText(tc.Arguments); s != "" {
					return s, SourceTaskComplete, true
				}
			}
		}
		if tag, found := lastAnswerTag(m.Content); found {
			return strings.TrimSpace(tag), SourceAnswerTag, true
		}
		if block, found := lastJSONBlock(m.Content); found {
			if v, err := ParseJSON([]byte(block)); err == nil {
				if s := AnswerText(v); s != "" {
					return s, SourceJSONBlock, true
				}
			}
		}
	}
	return "", "", false
}

// AnswerText renders a result as an answer: a string trimmed, a number as
// written, an object by its "answer", "result" or "final_answer" field;
// anything else gives "".
func AnswerText(v any) string {
	switch t := v.(type) {
	case string:
		return strings.TrimSpace(t)
	case json.Number:
		return string(t)
	case map[string]any:
		for _, k := range []string{"answer", "result", "final_answer"} {
			if s := AnswerText(t[k]); s != "" {
				return s
			}
		}
	}
	return ""
}

func lastAnswerTag(s string) (string, bool) {
	const open, close = "<answer>", "</answer>"
	var last string
	found := false
	for pos := 0; ; {
		i := strings.Index(s[pos:], open)
		if i < 0 {
			break
		}
		start := pos + i + len(open)
		j := strings.Index(s[start:], close)
		if j < 0 {
			break
		}
		last, found = s[start:start+j], true
		pos = start + j + len(close)
	}
	return last, found
}

func lastJSONBlock(s string) (string, bool) {
	const fence = "```"
	var last string
	found := false
	for pos := 0; ; {
		i := strings.Index(s[pos:], fence)
		if i < 0 {
			break
		}
		start := pos + i + len(fence)
		if strings.HasPrefix(s[start:], "json") {
			start += 4
		}
		j := strings.Index(s[start:], fence)
		if j < 0 {
			break
		}
		last, found = strings.TrimSpace(s[start:start+j]), true
		pos = start + j + len(fence)
	}
	return last, found
}
