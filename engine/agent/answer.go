package agent

import (
	"regexp"
	"strings"
)

// AnswerRule names the rule that found an answer.
type AnswerRule string

// The answer rules, in the order Answer tries them.
const (
	// RuleTaskResult: task_result, when present and not empty.
	RuleTaskResult AnswerRule = "task_result"
	// RuleTaskComplete: the arguments of the last task_complete tool call —
	// their answer field, else their result field, else all of them.
	RuleTaskComplete AnswerRule = "task_complete"
	// RuleAnswerTag: the last <answer>…</answer> in the final reply.
	RuleAnswerTag AnswerRule = "answer_tag"
	// RuleJSONBlock: the last fenced ```json block in the final reply,
	// parsed.
	RuleJSONBlock AnswerRule = "json_block"
	// RuleFinalReply: the final reply's text.
	RuleFinalReply AnswerRule = "final_reply"
	// RuleNone: no rule found an answer.
	RuleNone AnswerRule = "none"
)

// TaskCompleteTool is the tool an agent calls to hand in its answer.
const TaskCompleteTool = "task_complete"

// Answer is the agent's answer and where it was found.
type Answer struct {
	// Value is the answer: any JSON value for task_result, task_complete
	// and json_block, a string for answer_tag and final_reply, nil for
	// none.
	Value any `json:"value"`
	// Rule is the rule that found it.
	Rule AnswerRule `json:"rule"`
	// Message is the index of the message it came from; -1 for
	// task_result and none.
	Message int `json:"message"`
}

var (
	answerTag = regexp.MustCompile(`(?s)<answer>(.*?)</answer>`)
	jsonFence = regexp.MustCompile("(?s)```(?:json|JSON)[ \t]*\r?\n(.*?)```")
)

// Answer finds the agent's answer. The rules, in order:
//
//  1. task_result, when present and not empty (not null, "", blank, {} or []);
//  2. else the arguments of the last task_complete tool call: their
//     "answer" field, else their "result" field, else the whole arguments
//     (the raw text when they are not JSON);
//  3. else the last <answer>…</answer> in the final reply, trimmed;
//  4. else the last fenced ```json block in the final reply, when it parses;
//  5. else the final reply's text, trimmed, when not empty.
//
// The final reply is the last assistant message with text (see
// Conversation.FinalReply).
func (r *Result) Answer() Answer {
	return FindAnswer(r.TaskResult, r.Conversation)
}

// FindAnswer applies Answer's rules to a task_result and a conversation.
func FindAnswer(taskResult any, conv Conversation) Answer {
	if !empty(taskResult) {
		return Answer{Value: taskResult, Rule: RuleTaskResult, Message: -1}
	}
	if call := conv.lastCall(TaskCompleteTool); call != nil {
		return Answer{Value: completionValue(call), Rule: RuleTaskComplete, Message: call.Message}
	}
	reply := conv.finalReplyMessage()
	if reply == nil {
		return Answer{Rule: RuleNone, Message: -1}
	}
	if ms := answerTag.FindAllStringSubmatch(reply.Text, -1); ms != nil {
		return Answer{Value: strings.TrimSpace(ms[len(ms)-1][1]), Rule: RuleAnswerTag, Message: reply.Index}
	}
	if ms := jsonFence.FindAllStringSubmatch(reply.Text, -1); ms != nil {
		// Only the last block counts; when it does not parse, the rule
		// finds nothing.
		if v, err := parseJSON(ms[len(ms)-1][1]); err == nil {
			return Answer{Value: v, Rule: RuleJSONBlock, Message: reply.Index}
		}
	}
	return Answer{Value: strings.TrimSpace(reply.Text), Rule: RuleFinalReply, Message: reply.Index}
}

// completionValue is the answer a task_complete call hands in.
func completionValue(call *ToolCall) any {
	if !call.ArgumentsValid() {
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

// empty reports whether v is no answer: null, a blank string, {} or [].
func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(x) == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}
