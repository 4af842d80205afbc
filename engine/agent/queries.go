package agent

import "strings"

// ToolCalls lists every tool call in the conversation, in order.
func (c Conversation) ToolCalls() []*ToolCall {
	var calls []*ToolCall
	for _, m := range c {
		calls = append(calls, m.ToolCalls...)
	}
	return calls
}

// ToolResults lists every tool result in the conversation, in order.
func (c Conversation) ToolResults() []*ToolResult {
	var results []*ToolResult
	for _, m := range c {
		results = append(results, m.ToolResults...)
	}
	return results
}

// ToolNames lists the names of the tools called, in call order, once per
// call.
func (c Conversation) ToolNames() []string {
	var names []string
	for _, call := range c.ToolCalls() {
		names = append(names, call.Name)
	}
	return names
}

// ToolCount is how often one tool was called.
type ToolCount struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// ToolCounts counts the calls of each tool, in order of each tool's first
// call.
func (c Conversation) ToolCounts() []ToolCount {
	var counts []ToolCount
	at := map[string]int{}
	for _, call := range c.ToolCalls() {
		i, ok := at[call.Name]
		if !ok {
			i = len(counts)
			at[call.Name] = i
			counts = append(counts, ToolCount{Name: call.Name})
		}
		counts[i].Count++
	}
	return counts
}

// CallsTo lists the calls of the named tool, in order.
func (c Conversation) CallsTo(name string) []*ToolCall {
	var calls []*ToolCall
	for _, call := range c.ToolCalls() {
		if call.Name == name {
			calls = append(calls, call)
		}
	}
	return calls
}

// Called reports whether the named tool was called at all.
func (c Conversation) Called(name string) bool { return c.lastCall(name) != nil }

// ToolOutputs lists what the named tool returned, call by call in call
// order, skipping calls without a result: each output is the result's
// parsed JSON when its content is JSON, else its content string.
func (c Conversation) ToolOutputs(name string) []any {
	var out []any
	for _, call := range c.CallsTo(name) {
		if call.Result != nil {
			out = append(out, call.Result.Value())
		}
	}
	return out
}

// Exchange is a tool call and the result that answers it (nil when none
// does).
type Exchange struct {
	Call   *ToolCall   `json:"call"`
	Result *ToolResult `json:"result"`
}

// Exchanges pairs every call with its result, in call order.
func (c Conversation) Exchanges() []Exchange {
	calls := c.ToolCalls()
	ex := make([]Exchange, len(calls))
	for i, call := range calls {
		ex[i] = Exchange{Call: call, Result: call.Result}
	}
	return ex
}

// UnlinkedResults lists the tool results that answer no call.
func (c Conversation) UnlinkedResults() []*ToolResult {
	var out []*ToolResult
	for _, r := range c.ToolResults() {
		if r.Call == nil {
			out = append(out, r)
		}
	}
	return out
}

// FinalReply is the text of the last assistant message with text
// (whitespace only does not count), trimmed; "" when there is none.
func (c Conversation) FinalReply() string {
	if m := c.finalReplyMessage(); m != nil {
		return strings.TrimSpace(m.Text)
	}
	return ""
}

func (c Conversation) finalReplyMessage() *Message {
	for i := len(c) - 1; i >= 0; i-- {
		if c[i].Role == "assistant" && strings.TrimSpace(c[i].Text) != "" {
			return c[i]
		}
	}
	return nil
}

func (c Conversation) lastCall(name string) *ToolCall {
	for i := len(c) - 1; i >= 0; i-- {
		calls := c[i].ToolCalls
		for j := len(calls) - 1; j >= 0; j-- {
			if calls[j].Name == name {
				return calls[j]
			}
		}
	}
	return nil
}
