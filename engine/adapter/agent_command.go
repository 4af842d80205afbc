package adapter

import (
	"context"
	"fmt"
	"strings"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/workspace"
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
	// An environment variable cannot hold a NUL byte (starting the agent
	// would fail with "invalid argument"): such an instruction, like a
	// long one, is the request's only.
	if len(c.Task.Instruction) <= maxEnvInstruction && !strings.ContainsRune(c.Task.Instruction, 0) {
		run.Env[EnvInstruction] = c.Task.Instruction
	}
	for k, v := range c.Env {
		run.Env[k] = v
	}
	// The tracked files are read back after the post-setup, so the inner
	// run reads none.
	if why, err := prepareSandbox(ctx, sess, c); err != nil || why != "" {
		return setupFailed(a.Command, why), err
	}
	run.InputFiles, run.TrackedFiles = nil, nil
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
	if out.AdapterError {
		return out, nil
	}
	return finishAgentCase(ctx, sess, c, out, a.MaxFileBytes)
}

// finishAgentCase runs the task's post-setup and reads the case's
// tracked files back: what the checks judge is the sandbox after both.
func finishAgentCase(ctx context.Context, sess runtime.Session, c *cases.Case, out result.Execution, maxFile int64) (result.Execution, error) {
	if why, err := runSetup(ctx, sess, c.Task.PostSetup, c.Env, stepTimeout(c)); err != nil || why != "" {
		if err != nil {
			return out, err
		}
		out.AdapterError, out.Error = true, strings.Replace(why, "setup ", "post-setup ", 1)
		return out, nil
	}
	if len(c.TrackedFiles) > 0 {
		if maxFile <= 0 {
			maxFile = DefaultMaxFileBytes
		}
		files, err := workspace.ReadTracked(sess.Workdir(), c.TrackedFiles, maxFile)
		if err != nil {
			out.AdapterError, out.Error = true, "read tracked files: "+err.Error()
			return out, nil
		}
		out.Files = files
	}
	return out, nil
}

// setupFailed is the execution of a case whose setup failed: the agent
// never started.
func setupFailed(command []string, why string) result.Execution {
	return result.Execution{Command: command, AdapterError: true, StatusCode: -1, Error: why}
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
