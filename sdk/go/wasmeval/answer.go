package wasmeval

import (
	"encoding/json"
	"strings"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// The rules that find an agent's answer (docs/agents.md, "The answer"), in
// the order they are tried.
const (
	RuleTaskResult   = abi.RuleTaskResult
	RuleTaskComplete = abi.RuleTaskComplete
	RuleAnswerTag    = abi.RuleAnswerTag
	RuleJSONBlock    = abi.RuleJSONBlock
	RuleFinalReply   = abi.RuleFinalReply
	RuleNone         = abi.RuleNone
)

// FindAnswer is the agent's answer and the rule that found it, by the
// engine's one rule, so a test function judges the answer built-in checks
// see. The host sends it in the run (run.Answer); for a run from a host
// that does not, it is found from the run's fields by the same rule:
//
//  1. task_result, when present and not empty (null, a blank string, {}
//     and [] are empty; 0 and false are answers);
//  2. else the arguments of the last task_complete call in the
//     conversation: their "answer" field, else their "result" field, else
//     the whole arguments (their text when they are not JSON);
//  3. else the last <answer>…</answer> in the final reply — the last
//     assistant message with text — trimmed;
//  4. else the last fenced ```json block in the final reply, parsed (a
//     block that is not JSON: this rule finds nothing);
//  5. else the final reply, trimmed.
//
// Otherwise the rule is RuleNone and the value nil.
func FindAnswer(run *AgentRun) Answer {
	if run.Answer != nil {
		return *run.Answer
	}
	if !emptyAnswer(run.TaskResult) {
		return Answer{Value: run.TaskResult, Rule: RuleTaskResult}
	}
	if call := lastCall(run.Conversation, "task_complete"); call != nil {
		return Answer{Value: completionValue(call), Rule: RuleTaskComplete}
	}
	reply, ok := finalReply(run.Conversation)
	if !ok {
		return Answer{Rule: RuleNone}
	}
	if tag, ok := lastAnswerTag(reply); ok {
		return Answer{Value: strings.TrimSpace(tag), Rule: RuleAnswerTag}
	}
	if block, ok := lastJSONBlock(reply); ok {
		if v, err := ParseJSON([]byte(block)); err == nil {
			return Answer{Value: v, Rule: RuleJSONBlock}
		}
	}
	return Answer{Value: strings.TrimSpace(reply), Rule: RuleFinalReply}
}

// AnswerText is an answer's value as text: a string as it is, null as "",
// anything else its JSON text (canonical, numbers as written).
func AnswerText(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case json.Number:
		return string(t)
	}
	b, err := EncodeJSON(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// emptyAnswer reports whether a task_result is no answer: null, a blank
// string, {} or [].
func emptyAnswer(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(t) == ""
	case []any:
		return len(t) == 0
	case map[string]any:
		return len(t) == 0
	}
	return false
}

// lastCall is the last call of the named tool anywhere in the
// conversation.
func lastCall(conv []Message, name string) *ToolCall {
	for i := len(conv) - 1; i >= 0; i-- {
		calls := conv[i].ToolCalls
		for j := len(calls) - 1; j >= 0; j-- {
			if calls[j].Name == name {
				return &calls[j]
			}
		}
	}
	return nil
}

// completionValue is the answer a task_complete call hands in. Arguments
// that are not JSON are their text: flagged by arguments_error, or, from
// hosts before it, sent as a string in arguments (which the rule below
// then returns whole).
func completionValue(call *ToolCall) any {
	if call.ArgumentsError != "" {
		return call.RawArguments
	}
	if obj, ok := call.Arguments.(map[string]any); ok {
		for _, k := range []string{"answer", "result"} {
			if v, ok := obj[k]; ok && v != nil {
				return v
			}
		}
	}
	return call.Arguments
}

// finalReply is the text of the last assistant message whose text is not
// blank.
func finalReply(conv []Message) (string, bool) {
	for i := len(conv) - 1; i >= 0; i-- {
		if m := &conv[i]; m.Role == "assistant" && strings.TrimSpace(m.Content) != "" {
			return m.Content, true
		}
	}
	return "", false
}

// lastAnswerTag is the text of the last <answer>…</answer> in s: the tags
// do not nest, and each closes at the first </answer> after it.
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

// lastJSONBlock is the body of the last fenced JSON block in s: a fence
// ``` followed by json or JSON, spaces or tabs and a line break, up to the
// next ```. A fence that does not open such a block is skipped one byte
// at a time, as the engine's regular expression does.
func lastJSONBlock(s string) (string, bool) {
	const fence = "```"
	var last string
	found := false
	for pos := 0; ; {
		i := strings.Index(s[pos:], fence)
		if i < 0 {
			break
		}
		i += pos
		start, ok := jsonFenceBody(s, i+len(fence))
		if !ok {
			pos = i + 1
			continue
		}
		j := strings.Index(s[start:], fence)
		if j < 0 {
			break
		}
		last, found = s[start:start+j], true
		pos = start + j + len(fence)
	}
	return last, found
}

// jsonFenceBody reads a JSON fence's header at s[i:] (after the
// backticks) and returns where its body starts.
func jsonFenceBody(s string, i int) (int, bool) {
	if !strings.HasPrefix(s[i:], "json") && !strings.HasPrefix(s[i:], "JSON") {
		return 0, false
	}
	i += 4
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i < len(s) && s[i] == '\r' {
		i++
	}
	if i < len(s) && s[i] == '\n' {
		return i + 1, true
	}
	return 0, false
}
