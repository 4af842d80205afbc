package agent

import "github.com/wasmeval/wasmeval/plugins/abi"

// AgentRun renders the result as the `result` of a test function's input
// (docs/agents.md, "Test functions"). Each normalised message becomes one
// abi.Message:
//
//   - its text becomes content; thinking and other blocks are dropped;
//   - a tool call keeps its id, name, parsed arguments, raw text and, when
//     the text is not JSON, the parse error (arguments is then the raw
//     text, as hosts before raw_arguments sent it);
//   - the tool results it carries become tool_results, each with the id
//     of the call it answers, the tool's name, its text, its parsed JSON
//     and is_error. An OpenAI role "tool" message also keeps its
//     tool_call_id, and the tool's name and result as its name and
//     content, which is how test functions written before tool_results
//     read it.
//
// Answer is FindAnswer's, so every test function judges the answer
// built-in checks see.
func (r *Result) AgentRun() abi.AgentRun {
	run := abi.AgentRun{
		TaskResult:  r.TaskResult,
		Status:      r.Status,
		Instruction: r.Instruction,
		Iterations:  int(r.Iterations),
		Sandbox:     r.Sandbox,
		TaskName:    r.TaskName,
	}
	a := r.Answer()
	run.Answer = &abi.Answer{Value: a.Value, Rule: string(a.Rule)}
	if u := r.Usage; u != nil {
		run.Usage = &abi.Usage{InputTokens: int(u.InputTokens), OutputTokens: int(u.OutputTokens), TotalTokens: int(u.TotalTokens)}
		if u.Cost != nil {
			run.Usage.Cost = *u.Cost
		}
	}
	if r.ElapsedSeconds != nil {
		run.ElapsedSeconds = *r.ElapsedSeconds
	}
	run.Conversation = make([]abi.Message, 0, len(r.Conversation))
	for _, m := range r.Conversation {
		run.Conversation = append(run.Conversation, abiMessage(m))
	}
	run.ExecutionTrace = make([]any, 0, len(r.ExecutionTrace))
	for _, st := range r.ExecutionTrace {
		step := map[string]any{"action": st.Action, "feedback": st.Feedback}
		for k, v := range st.Extra {
			step[k] = v
		}
		run.ExecutionTrace = append(run.ExecutionTrace, step)
	}
	return run
}

// abiMessage renders one normalised message.
func abiMessage(m *Message) abi.Message {
	am := abi.Message{Role: m.Role, Content: m.Text, Name: m.Name}
	for _, c := range m.ToolCalls {
		call := abi.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments, RawArguments: c.RawArguments, ArgumentsError: c.ArgumentsError}
		if !c.ArgumentsValid() {
			call.Arguments = c.RawArguments
		}
		am.ToolCalls = append(am.ToolCalls, call)
	}
	for _, res := range m.ToolResults {
		tr := abi.ToolResult{ToolCallID: res.ToolCallID, Name: res.Name, Content: res.Content, IsError: res.IsError}
		if res.IsJSON {
			tr.JSON = res.JSON
		}
		am.ToolResults = append(am.ToolResults, tr)
	}
	if (m.Role == "tool" || m.Role == "function") && len(m.ToolResults) == 1 {
		// The normalised model moves a tool reply's content to its result;
		// the message keeps it too, with the tool's name (the linked
		// call's, when the message had none of its own).
		res := m.ToolResults[0]
		am.Content, am.ToolCallID = res.Content, res.ToolCallID
		if res.Name != "" {
			am.Name = res.Name
		}
	}
	return am
}
