package agent

import (
	"strconv"
	"strings"
)

func quote(s string) string { return strconv.Quote(s) }
func itoa(i int) string     { return strconv.Itoa(i) }

// The message keys read; others go to Message.Extra.
var messageKeys = map[string]bool{
	"role": true, "content": true, "name": true,
	"tool_calls": true, "tool_call_id": true, "function_call": true,
}

// conversation normalises the messages of list, found at p.
func (d *decoder) conversation(list []any, p path) (Conversation, []string, error) {
	conv := make(Conversation, 0, len(list))
	var warnings []string
	for i, v := range list {
		m, w, err := d.message(v, i, p.index(i))
		if err != nil {
			return nil, nil, err
		}
		conv = append(conv, m)
		warnings = append(warnings, w...)
	}
	warnings = append(warnings, conv.link()...)
	return conv, warnings, nil
}

// message normalises one message, whatever its dialect.
func (d *decoder) message(v any, i int, p path) (*Message, []string, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, nil, d.typeErr(p, "a message (an object with a role)", v)
	}
	m := &Message{Index: i, Dialect: DialectText}
	rv, ok := obj["role"]
	if !ok || rv == nil {
		return nil, nil, d.errf(p.key("role"), "missing; every message needs a role")
	}
	if m.Role, ok = rv.(string); !ok {
		return nil, nil, d.typeErr(p.key("role"), "a string", rv)
	}
	var err error
	if m.Name, err = d.optString(obj, "name", p); err != nil {
		return nil, nil, err
	}
	for k, v := range obj {
		if !messageKeys[k] {
			if m.Extra == nil {
				m.Extra = map[string]any{}
			}
			m.Extra[k] = v
		}
	}
	var warnings []string
	text, err := d.content(obj, m, p, &warnings)
	if err != nil {
		return nil, nil, err
	}
	w, err := d.openAI(obj, m, p, text)
	if err != nil {
		return nil, nil, err
	}
	warnings = append(warnings, w...)
	if m.Role != "tool" && m.Role != "function" {
		m.Text = text
	}
	return m, warnings, nil
}

// content reads a message's content — null, a string, or a list of
// content blocks or parts — into m and returns its text. Anthropic blocks
// (tool_use, tool_result, thinking) set m's dialect.
func (d *decoder) content(obj map[string]any, m *Message, p path, warnings *[]string) (string, error) {
	v := obj["content"]
	p = p.key("content")
	switch c := v.(type) {
	case nil:
		return "", nil
	case string:
		return c, nil
	case []any:
		var texts []string
		for j, b := range c {
			bp := p.index(j)
			if s, ok := b.(string); ok { // a bare string part: text
				texts = append(texts, s)
				continue
			}
			blk, ok := b.(map[string]any)
			if !ok {
				return "", d.typeErr(bp, "a content block (an object with a type)", b)
			}
			typ, err := d.blockType(blk, bp)
			if err != nil {
				return "", err
			}
			switch typ {
			case "text", "input_text", "output_text":
				s, err := d.optString(blk, "text", bp)
				if err != nil {
					return "", err
				}
				texts = append(texts, s)
			case "tool_use":
				call, w, err := d.toolUse(blk, m.Index, bp)
				if err != nil {
					return "", err
				}
				m.Dialect = DialectAnthropic
				m.ToolCalls = append(m.ToolCalls, call)
				*warnings = append(*warnings, w...)
			case "tool_result":
				res, err := d.toolResultBlock(blk, m.Index, bp)
				if err != nil {
					return "", err
				}
				m.Dialect = DialectAnthropic
				m.ToolResults = append(m.ToolResults, res)
			case "thinking":
				s, err := d.optString(blk, "thinking", bp)
				if err != nil {
					return "", err
				}
				m.Dialect = DialectAnthropic
				m.Thinking = joinText(m.Thinking, s)
			case "redacted_thinking":
				m.Dialect = DialectAnthropic
				m.OtherBlocks = append(m.OtherBlocks, blk)
			default:
				m.OtherBlocks = append(m.OtherBlocks, blk)
			}
		}
		return strings.Join(texts, "\n"), nil
	}
	return "", d.typeErr(p, "a string or a list of content blocks", v)
}

func (d *decoder) blockType(blk map[string]any, p path) (string, error) {
	tv, ok := blk["type"]
	if !ok || tv == nil {
		return "", d.errf(p.key("type"), "missing; a content block needs a type")
	}
	typ, ok := tv.(string)
	if !ok {
		return "", d.typeErr(p.key("type"), "a string", tv)
	}
	return typ, nil
}

func joinText(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}

// arguments normalises a call's arguments found at p: a JSON string
// (OpenAI) is parsed, anything else (an Anthropic input object) is taken
// as is. An empty string means no arguments ({}). Arguments that are not
// JSON are kept raw, flagged, and warned about.
func arguments(call *ToolCall, v any, p path) []string {
	switch a := v.(type) {
	case nil:
		call.Arguments, call.RawArguments = map[string]any{}, ""
	case string:
		call.RawArguments = a
		if strings.TrimSpace(a) == "" {
			call.Arguments = map[string]any{}
			return nil
		}
		parsed, err := parseJSON(a)
		if err != nil {
			call.ArgumentsError = err.Error()
			return []string{string(p) + ": not JSON (" + err.Error() + "); kept as text"}
		}
		call.Arguments = parsed
	default:
		call.Arguments, call.RawArguments = a, compact(a)
	}
	return nil
}
