// Package setup applies an environment spec's runtime-independent parts to
// any runtime: the variables set for every process and the setup commands
// run once per group, in its workspace, before the group's first case.
// Setup output is kept apart from the cases' — in a log file per group —
// so it never shows up in a case's output.
package setup

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/wasmeval/wasmeval/engine/adapter"
	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/workspace"
)

// DefaultTimeout bounds one setup command.
const DefaultTimeout = 10 * time.Minute

// Runtime wraps another runtime.
type Runtime struct {
	Inner runtime.Runtime
	// Env is set for every process, over the request's own variables.
	Env map[string]string
	// Commands run through `sh -c` in every new session, in order.
	Commands []string
	// LogDir receives one <session label>.log per group with the setup
	// commands' output ("" discards it).
	LogDir string
	// Timeout bounds each command (default DefaultTimeout).
	Timeout time.Duration

	seq atomic.Int64
}

// Wrap returns inner unchanged when there is nothing to add.
func Wrap(inner runtime.Runtime, env map[string]string, commands []string, logDir string) runtime.Runtime {
	if len(env) == 0 && len(commands) == 0 {
		return inner
	}
	return &Runtime{Inner: inner, Env: env, Commands: commands, LogDir: logDir}
}

// Name implements runtime.Runtime.
func (r *Runtime) Name() string { return r.Inner.Name() }

// Open opens the inner session and runs the setup commands in it. A
// failing command fails the group before any of its cases runs.
func (r *Runtime) Open(ctx context.Context, spec runtime.SessionSpec) (runtime.Session, error) {
	inner, err := r.Inner.Open(ctx, spec)
	if err != nil {
		return nil, err
	}
	s := &session{Session: inner, env: r.Env}
	if len(r.Commands) == 0 {
		return s, nil
	}
	var log bytes.Buffer
	logPath := ""
	if r.LogDir != "" {
		logPath = filepath.Join(r.LogDir, fmt.Sprintf("%s-%d.log", workspace.SafeLabel(spec.Label), r.seq.Add(1)))
	}
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	failure := error(nil)
	for i, c := range r.Commands {
		fmt.Fprintf(&log, "$ %s\n", c)
		res, err := s.Exec(ctx, runtime.ExecRequest{
			Argv: []string{"sh", "-c", c}, Env: adapter.ProcessEnv(inner.Workdir(), nil), Timeout: timeout,
		})
		log.Write(res.Stdout)
		log.Write(res.Stderr)
		switch {
		case err != nil:
			failure = fmt.Errorf("setup command %d (%q): %w", i+1, c, err)
		case res.TimedOut:
			failure = fmt.Errorf("setup command %d (%q) timed out after %v", i+1, c, timeout)
		case res.ExitCode != 0:
			failure = fmt.Errorf("setup command %d (%q) failed with exit status %d: %s", i+1, c, res.ExitCode, tail(res.Stderr))
		}
		fmt.Fprintf(&log, "[exit status %d]\n", res.ExitCode)
		if failure != nil {
			break
		}
	}
	if logPath != "" {
		if err := os.MkdirAll(r.LogDir, 0o755); err == nil {
			os.WriteFile(logPath, log.Bytes(), 0o644)
		}
	}
	if failure != nil {
		inner.Close()
		if logPath != "" {
			failure = fmt.Errorf("%w (full output: %s)", failure, logPath)
		}
		return nil, failure
	}
	return s, nil
}

func tail(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 400 {
		s = "…" + s[len(s)-400:]
	}
	if s == "" {
		return "(no error output)"
	}
	return s
}

// session adds the spec's variables to every process.
type session struct {
	runtime.Session
	env map[string]string
}

func (s *session) merge(env map[string]string) map[string]string {
	if len(s.env) == 0 {
		return env
	}
	out := make(map[string]string, len(env)+len(s.env))
	for k, v := range env {
		out[k] = v
	}
	for k, v := range s.env {
		out[k] = v
	}
	return out
}

func (s *session) Exec(ctx context.Context, req runtime.ExecRequest) (runtime.ExecResult, error) {
	req.Env = s.merge(req.Env)
	return s.Session.Exec(ctx, req)
}

func (s *session) Start(ctx context.Context, req runtime.StartRequest) (runtime.Process, error) {
	req.Env = s.merge(req.Env)
	return s.Session.Start(ctx, req)
}
