package adapter

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wasmeval/wasmeval/engine/agent"
	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/result"
)

// The agent adapters give an AI agent one case's task and take back its
// result JSON (docs/agents.md, "Running an agent"). The agent is the
// submission: a command run once per case (AgentCommand) or a server
// started once per group (AgentServer); Recorded reads results another
// framework wrote, running nothing. All three leave the result JSON as
// the case's output, marked Execution.Agent, once it reads as a result;
// anything else (a crash, a timeout, output that is not a result) is the
// case's error, not a wrong answer.

// AgentProtocol names the request's version, so an agent can refuse one
// it does not know.
const AgentProtocol = "wasmeval.agent/1"

// DefaultAgentResultBytes caps the result an agent may return (the same
// cap engine/agent reads with).
const DefaultAgentResultBytes = agent.DefaultMaxBytes

// AgentRequest is what the agent receives for one case.
type AgentRequest struct {
	Protocol    string         `json:"protocol"`
	TaskName    string         `json:"task_name"`
	Instruction string         `json:"instruction"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	// TimeoutS is how long the agent has, in seconds (0: no limit).
	TimeoutS float64 `json:"timeout_s,omitempty"`
}

// Environment variables a command agent gets besides the request on
// stdin, for agents written as shell scripts.
const (
	EnvTaskName    = "WASMEVAL_TASK_NAME"
	EnvInstruction = "WASMEVAL_INSTRUCTION"
	// EnvSandbox is the agent's sandbox: its working directory, as the
	// agent sees it (the container's path on the Docker runtime).
	EnvSandbox = "WASMEVAL_SANDBOX"
)

// maxEnvInstruction is the longest instruction also passed in
// EnvInstruction: Linux refuses to start a process with one variable
// over 128 KiB, and the request on stdin always has it whole.
const maxEnvInstruction = 64 << 10

// agentRequest renders c's task as the request JSON.
func agentRequest(c *cases.Case) ([]byte, error) {
	t := c.Task
	if t == nil {
		return nil, fmt.Errorf("case %s has no instruction; the agent adapter gives each case's `instruction` to the agent", c.ID)
	}
	name := t.Name
	if name == "" {
		name = c.ID
	}
	return json.Marshal(AgentRequest{Protocol: AgentProtocol, TaskName: name, Instruction: t.Instruction,
		Metadata: t.Metadata, TimeoutS: c.Timeout.Seconds()})
}

// takeResult decides what an agent's output is: a result (the case is
// judged), or the case's error saying why not — the agent's exit, a
// timeout, or output that is not a result, quoting its first bytes. It
// runs after the inner adapter filled out, and returns the parsed result
// when there is one.
func takeResult(out *result.Execution, what string) *agent.Result {
	if out.AdapterError || out.TimedOut {
		return nil
	}
	if out.OutputDropped > 0 {
		out.AdapterError = true
		out.Error = joinErr(out.Error, fmt.Sprintf("%s: the result is over the size limit of %d bytes (%d more were dropped)",
			what, DefaultAgentResultBytes, out.OutputDropped))
		return nil
	}
	r, err := agent.Parse([]byte(out.Output), agent.Options{Source: what})
	if err == nil {
		out.Agent = true
		return r
	}
	out.AdapterError = true
	msg := err.Error()
	if strings.TrimSpace(out.Output) == "" {
		msg = what + ": the agent returned no result"
	}
	out.Error = joinErr(out.Error, msg)
	return nil
}
