package adapter

import (
	"context"
	"fmt"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/runtime"
)

// AgentCommand runs the agent's command once per case in the case's
// workspace, its sandbox: the request JSON on stdin, the result JSON
// expected on stdout (logs belong on stderr). A result is judged
// whatever the exit status (recorded as the status code); a command that
// exits without one, is killed, or times out is the case's error.
type AgentCommand struct {
	// Command is the resolved entry command (see EntryCommand).
	Command []string
	// MaxFileBytes caps each tracked file.
	MaxFileBytes int64
}

// Run implements Adapter.
func (a *AgentCommand) Run(ctx context.Context, sess runtime.Session, c *cases.Case) (result.Execution, error) {
	req, err := agentRequest(c)
	if err != nil {
		return result.Execution{Command: a.Command, AdapterError: true, StatusCode: -1, Error: err.Error()}, nil
	}
	run := *c
	stdin := string(req)
	run.Stdin = &stdin
	run.Env = map[string]string{EnvTaskName: c.Task.Name, EnvSandbox: sess.Workdir()}
	if run.Env[EnvTaskName] == "" {
		run.Env[EnvTaskName] = c.ID
	}
	if len(c.Task.Instruction) <= maxEnvInstruction {
		run.Env[EnvInstruction] = c.Task.Instruction
	}
	for k, v := range c.Env {
		run.Env[k] = v
	}
	cli := CLI{Command: a.Command, OutputCap: DefaultAgentResultBytes, MaxFileBytes: a.MaxFileBytes}
	out, err := cli.Run(ctx, sess, &run)
	if err != nil {
		return out, err
	}
	if out.AdapterError || out.TimedOut {
		return out, nil
	}
	takeResult(&out, "the agent's stdout")
	if out.AdapterError && (out.StatusCode != 0 || out.Signal != "") {
		out.Error = fmt.Sprintf("the agent exited with %s; %s%s", exitWords(out), out.Error, stderrTail(out.Stderr))
	}
	return out, nil
}

// exitWords says how a process ended.
func exitWords(out result.Execution) string {
	if out.Signal != "" {
		return "signal " + out.Signal
	}
	return fmt.Sprintf("status %d", out.StatusCode)
}

// stderrTail quotes the end of stderr, where a crash's message is.
func stderrTail(stderr string) string {
	const max = 400
	if stderr == "" {
		return ""
	}
	if len(stderr) > max {
		stderr = "…" + stderr[len(stderr)-max:]
	}
	return fmt.Sprintf("; its stderr ends: %q", stderr)
}
