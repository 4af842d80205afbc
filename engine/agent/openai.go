package agent

// openAI reads a message's OpenAI keys into m: tool_calls, the legacy
// function_call, and the tool_call_id and content of a role "tool" (or
// legacy "function") reply, whose text content is given.
func (d *decoder) openAI(obj map[string]any, m *Message, p path, text string) ([]string, error) {
	var warnings []string
	calls, err := d.optList(obj, "tool_calls", p)
	if err != nil {
		return nil, err
	}
	if calls != nil {
		m.Dialect = DialectOpenAI
	}
	for j, v := range calls {
		call, w, err := d.openAICall(v, m.Index, p.key("tool_calls").index(j))
		if err != nil {
			return nil, err
		}
		m.ToolCalls = append(m.ToolCalls, call)
		warnings = append(warnings, w...)
	}
	fc, err := d.optObject(obj, "function_call", p)
	if err != nil {
		return nil, err
	}
	if fc != nil {
		m.Dialect = DialectOpenAI
		call, w, err := d.function(fc, m.Index, p.key("function_call"))
		if err != nil {
			return nil, err
		}
		m.ToolCalls = append(m.ToolCalls, call)
		warnings = append(warnings, w...)
	}
	id, err := d.optString(obj, "tool_call_id", p)
	if err != nil {
		return nil, err
	}
	switch {
	case m.Role == "tool" || m.Role == "function":
		m.Dialect = DialectOpenAI
		m.ToolResults = append(m.ToolResults, newToolResult(id, m.Name, text, m.Index))
	case id != "":
		m.Dialect = DialectOpenAI
		warnings = append(warnings, string(p.key("tool_call_id"))+": on a message whose role is "+quote(m.Role)+", not \"tool\"; ignored")
	}
	return warnings, nil
}

// openAICall reads one entry of tool_calls: {id, type, function: {name,
// arguments}}, or the flat {id, name, arguments} that abi.ToolCall and
// some frameworks write.
func (d *decoder) openAICall(v any, msg int, p path) (*ToolCall, []string, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, nil, d.typeErr(p, "a tool call (an object)", v)
	}
	id, err := d.optString(obj, "id", p)
	if err != nil {
		return nil, nil, err
	}
	fn, err := d.optObject(obj, "function", p)
	if err != nil {
		return nil, nil, err
	}
	var call *ToolCall
	var w []string
	if fn != nil {
		call, w, err = d.function(fn, msg, p.key("function"))
	} else {
		call, w, err = d.function(obj, msg, p)
	}
	if err != nil {
		return nil, nil, err
	}
	call.ID = id
	return call, w, nil
}

// function reads {name, arguments} at p.
func (d *decoder) function(obj map[string]any, msg int, p path) (*ToolCall, []string, error) {
	nv, ok := obj["name"]
	if !ok || nv == nil {
		return nil, nil, d.errf(p.key("name"), "missing; a tool call needs a name")
	}
	name, ok := nv.(string)
	if !ok {
		return nil, nil, d.typeErr(p.key("name"), "a string", nv)
	}
	call := &ToolCall{Name: name, Message: msg}
	return call, arguments(call, obj["arguments"], p.key("arguments")), nil
}
