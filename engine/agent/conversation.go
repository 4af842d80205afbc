package agent

// Conversation is an agent's message history, normalised: one Message per
// message of the input, in order, whatever dialect each was written in.
type Conversation []*Message

// Dialect is how one message was written.
type Dialect string

const (
	// DialectText: a role and a string (or only text parts), nothing
	// else — the same in every dialect.
	DialectText Dialect = "text"
	// DialectOpenAI: OpenAI chat messages — tool_calls, function_call,
	// role "tool" or "function" replies.
	DialectOpenAI Dialect = "openai"
	// DialectAnthropic: Anthropic content blocks — tool_use, tool_result,
	// thinking.
	DialectAnthropic Dialect = "anthropic"
)

// Message is one normalised message.
type Message struct {
	// Index is the message's position in the conversation, from 0.
	Index int `json:"index"`
	// Role is as written: "system", "user", "assistant", "tool", …
	Role    string  `json:"role"`
	Dialect Dialect `json:"dialect"`
	// Name is OpenAI's optional participant or function name.
	Name string `json:"name,omitempty"`
	// Text is the message's text: its string content, or its text parts
	// or blocks joined with "\n". For a tool reply (role "tool" or
	// "function") the content is the ToolResult's instead and Text is "".
	Text string `json:"text"`
	// Thinking is the text of Anthropic thinking blocks, joined with "\n".
	Thinking string `json:"thinking,omitempty"`
	// ToolCalls are the calls this message makes, in order.
	ToolCalls []*ToolCall `json:"tool_calls,omitempty"`
	// ToolResults are the tool results this message carries: one for an
	// OpenAI tool message, any number for an Anthropic user message.
	ToolResults []*ToolResult `json:"tool_results,omitempty"`
	// OtherBlocks are content blocks or parts of other types (images,
	// documents, refusals, …), untouched.
	OtherBlocks []any `json:"other_blocks,omitempty"`
	// Extra holds the message's other keys, untouched.
	Extra map[string]any `json:"extra,omitempty"`
}

// ToolCall is one call of a tool.
type ToolCall struct {
	// ID is the call's id ("call_…", "toolu_…"); "" when the dialect has
	// none (OpenAI's legacy function_call).
	ID   string `json:"id,omitempty"`
	Name string `json:"name"`
	// Arguments are the parsed arguments: usually an object
	// (map[string]any). nil when they are not JSON — see ArgumentsError.
	Arguments any `json:"arguments"`
	// RawArguments is the arguments' text: OpenAI's string as written, or
	// compact JSON for arguments that came as an object.
	RawArguments string `json:"raw_arguments"`
	// ArgumentsError says why RawArguments is not JSON; "" when it is.
	ArgumentsError string `json:"arguments_error,omitempty"`
	// Message is the index of the message making the call.
	Message int `json:"message"`
	// Result is the result that answers this call; nil when none does.
	Result *ToolResult `json:"-"`
}

// ArgumentsValid reports whether the arguments parsed as JSON.
func (c *ToolCall) ArgumentsValid() bool { return c.ArgumentsError == "" }

// ToolResult is what a tool returned.
type ToolResult struct {
	// ToolCallID is the id of the call answered (OpenAI tool_call_id,
	// Anthropic tool_use_id).
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Name is the tool's name: the linked call's, else the message's own
	// name (OpenAI), else "".
	Name string `json:"name,omitempty"`
	// Content is the result's text (text blocks joined with "\n").
	Content string `json:"content"`
	// JSON is Content parsed, when Content is one JSON value (IsJSON).
	JSON   any  `json:"json,omitempty"`
	IsJSON bool `json:"is_json"`
	// IsError is Anthropic's is_error.
	IsError bool `json:"is_error,omitempty"`
	// Message is the index of the message carrying the result.
	Message int `json:"message"`
	// Call is the call this result answers; nil when none is found.
	Call *ToolCall `json:"-"`
}

// Value is the result as a check wants it: the parsed JSON when the
// content is JSON, else the content string.
func (t *ToolResult) Value() any {
	if t.IsJSON {
		return t.JSON
	}
	return t.Content
}

func newToolResult(id, name, content string, msg int) *ToolResult {
	t := &ToolResult{ToolCallID: id, Name: name, Content: content, Message: msg}
	if v, err := parseJSON(content); err == nil {
		t.JSON, t.IsJSON = v, true
	}
	return t
}

// link connects each tool result to the call it answers: by id, the
// earliest unanswered earlier call with that id; without an id (OpenAI's
// legacy role "function"), the earliest unanswered earlier call without an
// id of that name. It returns warnings for results that answer nothing or
// answer a call again. It takes time linear in the number of calls and
// results.
func (c Conversation) link() []string {
	var warnings []string
	byID := map[string]*callQueue{}
	byName := map[string]*callQueue{} // calls without an id
	for _, m := range c {
		for j, res := range m.ToolResults {
			where := resultPath(m, j)
			var q *callQueue
			if res.ToolCallID != "" {
				q = byID[res.ToolCallID]
			} else if res.Name != "" {
				q = byName[res.Name]
			}
			match, answered := q.take()
			switch {
			case match != nil:
				match.Result, res.Call = res, match
				res.Name = match.Name
			case answered != nil:
				res.Call = answered
				res.Name = answered.Name
				warnings = append(warnings, where+": a second result for tool call "+quote(res.ToolCallID)+"; the first one stays linked")
			case res.ToolCallID != "":
				warnings = append(warnings, where+": no earlier tool call has id "+quote(res.ToolCallID))
			case res.Name != "":
				warnings = append(warnings, where+": no earlier unanswered call of tool "+quote(res.Name))
			default:
				warnings = append(warnings, where+": a tool result with neither a call id nor a tool name")
			}
		}
		for _, call := range m.ToolCalls {
			key, index := call.ID, byID
			if key == "" {
				key, index = call.Name, byName
			}
			q := index[key]
			if q == nil {
				q = &callQueue{}
				index[key] = q
			}
			q.calls = append(q.calls, call)
		}
	}
	return warnings
}

// callQueue holds the calls sharing a key in order; those before next are
// answered.
type callQueue struct {
	calls []*ToolCall
	next  int
}

// take returns the earliest unanswered call, or else the last answered
// one.
func (q *callQueue) take() (match, answered *ToolCall) {
	if q == nil {
		return nil, nil
	}
	if q.next < len(q.calls) {
		q.next++
		return q.calls[q.next-1], nil
	}
	if len(q.calls) > 0 {
		return nil, q.calls[len(q.calls)-1]
	}
	return nil, nil
}

// resultPath is the JSON path of a message's j-th result, for warnings.
func resultPath(m *Message, j int) string {
	p := path("conversation").index(m.Index)
	if m.Dialect == DialectAnthropic {
		return string(p.key("content")) + "[tool_result " + itoa(j) + "]"
	}
	return string(p)
}
