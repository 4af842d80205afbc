// Package agent reads what an agent returns at the end of a task — its
// result JSON — and normalises it for the engine's agent front-ends, the
// built-in checks and test functions.
//
// A result carries the agent's answer (task_result), its whole message
// history (conversation), an execution trace, where it ran (sandbox) and,
// optionally, token usage and elapsed time. Parse checks every known key's
// type and names the JSON path of a mistake; unknown keys are kept aside.
//
// Conversations may be written as OpenAI chat messages (tool_calls whose
// arguments are a JSON string, role "tool" replies), as Anthropic content
// blocks (tool_use and tool_result), or as a mix of both, message by
// message. They are normalised to one model (Message, ToolCall, ToolResult)
// in which every tool result is linked to the call it answers, so a check
// can ask which tools were called, with what arguments, and what each
// returned.
//
// Answer states the one rule that finds the agent's answer in a result;
// checks and test functions share it. docs/agents.md describes the format
// for people who bring their own agent.
package agent
