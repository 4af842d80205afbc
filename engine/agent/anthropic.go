package agent

import "strings"

// toolUse reads an Anthropic {"type": "tool_use", "id", "name", "input"}
// block. input is normally an object; a string is parsed as OpenAI
// arguments are.
func (d *decoder) toolUse(blk map[string]any, msg int, p path) (*ToolCall, []string, error) {
	id, err := d.optString(blk, "id", p)
	if err != nil {
		return nil, nil, err
	}
	nv, ok := blk["name"]
	if !ok || nv == nil {
		return nil, nil, d.errf(p.key("name"), "missing; a tool_use block needs a name")
	}
	name, ok := nv.(string)
	if !ok {
		return nil, nil, d.typeErr(p.key("name"), "a string", nv)
	}
	call := &ToolCall{ID: id, Name: name, Message: msg}
	return call, arguments(call, blk["input"], p.key("input")), nil
}

// toolResultBlock reads an Anthropic {"type": "tool_result",
// "tool_use_id", "content", "is_error"} block; content is a string, a list
// of blocks (text blocks are kept, others such as images dropped) or
// absent.
func (d *decoder) toolResultBlock(blk map[string]any, msg int, p path) (*ToolResult, error) {
	id, err := d.optString(blk, "tool_use_id", p)
	if err != nil {
		return nil, err
	}
	isErr, err := d.optBool(blk, "is_error", p)
	if err != nil {
		return nil, err
	}
	var text string
	cp := p.key("content")
	switch c := blk["content"].(type) {
	case nil:
	case string:
		text = c
	case []any:
		var texts []string
		for j, b := range c {
			bp := cp.index(j)
			if s, ok := b.(string); ok {
				texts = append(texts, s)
				continue
			}
			inner, ok := b.(map[string]any)
			if !ok {
				return nil, d.typeErr(bp, "a content block (an object with a type)", b)
			}
			typ, err := d.blockType(inner, bp)
			if err != nil {
				return nil, err
			}
			if typ == "text" {
				s, err := d.optString(inner, "text", bp)
				if err != nil {
					return nil, err
				}
				texts = append(texts, s)
			}
		}
		text = strings.Join(texts, "\n")
	default:
		return nil, d.typeErr(cp, "a string or a list of content blocks", c)
	}
	res := newToolResult(id, "", text, msg)
	res.IsError = isErr
	return res, nil
}
