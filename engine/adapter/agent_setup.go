package adapter

import (
	"context"
	"fmt"
	"time"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/workspace"
)

// SetupStepTimeout bounds one setup step's command: setup prepares a
// sandbox (copies, installs a fixture), it does not do the task. A task
// whose own timeout is shorter bounds each step by that instead.
const SetupStepTimeout = 5 * time.Minute

// stepTimeout is what bounds one setup or post-setup step of c.
func stepTimeout(c *cases.Case) time.Duration {
	if c.Timeout > 0 && c.Timeout < SetupStepTimeout {
		return c.Timeout
	}
	return SetupStepTimeout
}

// prepareSandbox readies the sandbox before the agent starts: the case's
// static asset references resolved, its input files written, then the
// task's setup performed. It says why it could not ("" when it could).
func prepareSandbox(ctx context.Context, sess runtime.Session, c *cases.Case) (string, error) {
	if err := cases.ResolveStatic(c, sess.StaticPath); err != nil {
		return err.Error(), nil
	}
	if err := workspace.WriteFiles(sess.Workdir(), c.InputFiles); err != nil {
		return "write input files: " + err.Error(), nil
	}
	return runSetup(ctx, sess, c.Task.Setup, c.Env, stepTimeout(c))
}

// runSetup performs a task's setup steps in the sandbox, in order: each
// step's files written, then its command run, within timeout. It says why the first
// step that fails failed ("" when all succeeded); the caller makes that
// the case's error, never a score.
func runSetup(ctx context.Context, sess runtime.Session, steps []cases.SetupStep, env map[string]string, timeout time.Duration) (string, error) {
	for _, st := range steps {
		if err := workspace.WriteFiles(sess.Workdir(), st.Files); err != nil {
			return fmt.Sprintf("setup %s: write files: %v", st.Name, err), nil
		}
		if len(st.Command) == 0 {
			continue
		}
		res, err := sess.Exec(ctx, runtime.ExecRequest{Argv: st.Command, Env: ProcessEnv(sess.Workdir(), env),
			Timeout: timeout, OutputCap: 64 << 10})
		if err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			return fmt.Sprintf("setup %s: run %q: %v", st.Name, st.Command[0], err), nil
		}
		switch {
		case res.TimedOut:
			return fmt.Sprintf("setup %s: %q did not finish within %s", st.Name, st.Command[0], timeout), nil
		case res.ExitCode != 0 || res.Signal != "":
			how := fmt.Sprintf("status %d", res.ExitCode)
			if res.Signal != "" {
				how = "signal " + res.Signal
			}
			return fmt.Sprintf("setup %s: %q exited with %s%s", st.Name, st.Command[0], how, stderrTail(string(res.Stderr))), nil
		}
	}
	return "", nil
}
