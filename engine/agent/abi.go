package agent

import "github.com/wasmeval/wasmeval/plugins/abi"

// AgentRun renders the result as the `result` of a test function's input.
// abi.Message has no tool call ids nor tool results, so the rendering
// loses some of the normalised model:
//
//   - a tool call becomes {name, arguments}: the parsed arguments, or the
//     raw text when they are not JSON; its id is dropped;
//   - every tool result becomes a message of role "tool" whose name is the
//     tool's name and whose content is the result's text, placed where the
//     result was (before the rest of an Anthropic user message's text);
//   - a message's text becomes its content; thinking and other blocks are
//     dropped.
//
// docs/agents.md proposes the ABI change that would keep all of it.
func (r *Result) AgentRun() abi.AgentRun {
	run := abi.AgentRun{
		TaskResult:  r.TaskResult,
		Status:      r.Status,
		Instruction: r.Instruction,
		Iterations:  int(r.Iterations),
		Sandbox:     r.Sandbox,
	}
	run.Conversation = make([]abi.Message, 0, len(r.Conversation))
	for _, m := range r.Conversation {
		for _, res := range m.ToolResults {
			run.Conversation = append(run.Conversation, abi.Message{Role: "tool", Name: res.Name, Content: res.Content})
		}
		if len(m.ToolResults) > 0 && m.Text == "" && len(m.ToolCalls) == 0 {
			continue
		}
		am := abi.Message{Role: m.Role, Content: m.Text, Name: m.Name}
		for _, c := range m.ToolCalls {
			var args any = c.Arguments
			if !c.ArgumentsValid() {
				args = c.RawArguments
			}
			am.ToolCalls = append(am.ToolCalls, abi.ToolCall{Name: c.Name, Arguments: args})
		}
		run.Conversation = append(run.Conversation, am)
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
