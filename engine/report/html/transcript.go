package html

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/wasmeval/wasmeval/engine/agent"
	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/result"
)

// An agent case's record holds the agent's result JSON as its output
// (Execution.Agent). The page shows it as a transcript: the instruction,
// each message with its tool calls and, under each call, the result that
// answers it, then the answer, usage and the execution trace. Everything
// in it is the agent's own text, so it goes through html/template's
// escaping like every other value of the page, and it is bounded: a
// transcript holds at most maxTranscriptBytes of text, a value at most
// maxTranscriptValue, and the page at most MaxTranscripts transcripts;
// what is cut is said. The journal has the whole result.

// Limits of the transcripts.
const (
	MaxTranscripts        = 500
	maxTranscriptBytes    = 64 << 10
	maxTranscriptValue    = 4 << 10
	maxTranscriptMessages = 300
	maxTraceSteps         = 100
	rawPreviewBytes       = 2 << 10
)

type transcriptData struct {
	Key, Anchor string
	Instruction string
	// ParseError is why the output is not an agent result; Raw its first
	// bytes.
	ParseError, Raw string
	Status          string
	Iterations      int64
	Answer, Rule    string
	AnswerMessage   int
	Usage           string
	Elapsed         string
	Warnings        []string
	Messages        []messageData
	// MoreMessages and MoreTrace count what the limits left out.
	MoreMessages, MoreTrace int
	Trace                   []traceData
}

type messageData struct {
	Index                int
	Role, Name           string
	Text, Thinking       string
	Calls                []callData
	Results              []resultData
	OtherBlocks          int
	Cut                  bool
	Anchor, RoleClass    string
	NoTextNoCallsNoBlock bool
}

type callData struct {
	ID, Anchor, Name string
	Args             string
	// ArgsError says why the arguments are not JSON; Args is then their
	// raw text.
	ArgsError string
	Result    *resultData
}

type resultData struct {
	CallID, Name, Content string
	IsError               bool
	// CallAnchor links a result to its call; Shown says the result is
	// shown under that call, so its own message only points there.
	CallAnchor string
	Shown      bool
	// Unlinked: no call asks for this result.
	Unlinked bool
}

type traceData struct{ Action, Feedback string }

// budget hands out a transcript's text allowance.
type budget struct{ left int }

// take returns s cut to what is left of the budget and to one value's
// limit, and counts it.
func (b *budget) take(s string) string {
	limit := min(maxTranscriptValue, max(b.left, 0))
	out := report.Truncate(s, limit)
	if limit == 0 && s != "" {
		out = "[... cut: the transcript is over its size limit]"
	}
	b.left -= len(out)
	return out
}

func (b *budget) spent() bool { return b.left <= 0 }

// transcriptOf builds a case's transcript from its output.
func transcriptOf(r *result.CaseRecord, key string) transcriptData {
	td := transcriptData{Key: key, Anchor: transcriptAnchor(key)}
	b := &budget{left: maxTranscriptBytes}
	instruction := ""
	if r.Case != nil {
		instruction = r.Case.Instruction
	}
	res, err := agent.Parse([]byte(r.Result.Output), agent.Options{Source: "output"})
	if err != nil {
		td.Instruction = b.take(instruction)
		td.ParseError = err.Error()
		if r.Result.OutputDropped > 0 {
			td.ParseError += fmt.Sprintf(" (the output was cut at the output cap: %d bytes dropped)", r.Result.OutputDropped)
		}
		td.Raw = printable(report.Truncate(r.Result.Output, rawPreviewBytes))
		return td
	}
	if instruction == "" {
		instruction = res.Instruction
	}
	td.Instruction = b.take(instruction)
	td.Status, td.Iterations = res.Status, res.Iterations
	ans := res.Answer()
	td.Rule, td.AnswerMessage = string(ans.Rule), ans.Message
	if ans.Rule != agent.RuleNone {
		td.Answer = b.take(pretty(ans.Value))
	}
	if u := res.Usage; u != nil {
		td.Usage = fmt.Sprintf("%d input + %d output = %d tokens", u.InputTokens, u.OutputTokens, u.TotalTokens)
		if u.Cost != nil {
			td.Usage += fmt.Sprintf(", $%.4f", *u.Cost)
		}
	}
	if res.ElapsedSeconds != nil {
		td.Elapsed = fmt.Sprintf("%.2fs (agent)", *res.ElapsedSeconds)
	}
	if r.Result.Elapsed > 0 {
		if td.Elapsed != "" {
			td.Elapsed += ", "
		}
		td.Elapsed += fmt.Sprintf("%.2fs (run)", r.Result.Elapsed)
	}
	for i, w := range res.Warnings {
		if i == 20 {
			td.Warnings = append(td.Warnings, fmt.Sprintf("… %d more warnings", len(res.Warnings)-i))
			break
		}
		td.Warnings = append(td.Warnings, b.take(w))
	}
	// Calls get anchors first, so a result can link to its call and a
	// call can show its result.
	anchors := map[*agent.ToolCall]string{}
	n := 0
	for _, m := range res.Conversation {
		for _, c := range m.ToolCalls {
			anchors[c] = fmt.Sprintf("%s-call-%d", td.Anchor, n)
			n++
		}
	}
	shown := map[*agent.ToolResult]bool{}
	for i, m := range res.Conversation {
		if i >= maxTranscriptMessages || b.spent() {
			td.MoreMessages = len(res.Conversation) - i
			break
		}
		md := messageData{Index: m.Index, Role: m.Role, Name: m.Name, Text: b.take(m.Text), Thinking: b.take(m.Thinking),
			OtherBlocks: len(m.OtherBlocks), Anchor: fmt.Sprintf("%s-msg-%d", td.Anchor, m.Index), RoleClass: roleClass(m.Role)}
		for _, c := range m.ToolCalls {
			cd := callData{ID: c.ID, Anchor: anchors[c], Name: c.Name}
			if c.ArgumentsValid() {
				cd.Args = b.take(pretty(c.Arguments))
			} else {
				cd.Args, cd.ArgsError = b.take(c.RawArguments), c.ArgumentsError
			}
			if c.Result != nil {
				rd := resultOf(c.Result, b)
				cd.Result = &rd
				shown[c.Result] = true
			}
			md.Calls = append(md.Calls, cd)
		}
		for _, tr := range m.ToolResults {
			rd := resultData{CallID: tr.ToolCallID, Name: tr.Name, IsError: tr.IsError}
			switch {
			case tr.Call != nil && shown[tr]:
				// Shown under its call, above.
				rd.CallAnchor, rd.Shown = anchors[tr.Call], true
			case tr.Call != nil:
				// A second result for a call, or one whose call was cut:
				// shown here, linked to the call.
				rd = resultOf(tr, b)
				rd.CallAnchor = anchors[tr.Call]
			default:
				rd = resultOf(tr, b)
				rd.Unlinked = true
			}
			md.Results = append(md.Results, rd)
		}
		md.NoTextNoCallsNoBlock = md.Text == "" && md.Thinking == "" && len(md.Calls) == 0 && len(md.Results) == 0 && md.OtherBlocks == 0
		td.Messages = append(td.Messages, md)
	}
	for i, st := range res.ExecutionTrace {
		if i >= maxTraceSteps || b.spent() {
			td.MoreTrace = len(res.ExecutionTrace) - i
			break
		}
		td.Trace = append(td.Trace, traceData{Action: b.take(pretty(st.Action)), Feedback: b.take(pretty(st.Feedback))})
	}
	return td
}

func resultOf(tr *agent.ToolResult, b *budget) resultData {
	content := tr.Content
	if tr.IsJSON {
		content = pretty(tr.JSON)
	}
	return resultData{CallID: tr.ToolCallID, Name: tr.Name, Content: b.take(content), IsError: tr.IsError}
}

// pretty shows a value as text: a string as it is, anything else as
// indented JSON (numbers as the agent wrote them).
func pretty(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if v == nil {
		return "null"
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// The page escapes markup itself; JSON's \u003c would hide it.
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// printable makes the start of an output that is not JSON safe to show:
// invalid UTF-8 and control characters (but newlines and tabs) become
// U+FFFD.
func printable(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || !unicode.IsControl(r) {
			return r
		}
		return '\uFFFD'
	}, s)
}

// roleClass is a CSS class for a role: the usual roles by name, any
// other as "other" (the role text itself is shown, escaped).
func roleClass(role string) string {
	switch role {
	case "system", "user", "assistant", "tool", "function":
		return "role-" + role
	}
	return "role-other"
}

func transcriptAnchor(key string) string { return "tr-" + anchor(key) }
