package adapter

import (
	"context"
	"fmt"
	"os"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/workspace"
)

// DefaultMaxFileBytes caps each tracked file read back after a case.
const DefaultMaxFileBytes = 8 << 20

// CLI runs the submission's command once per case: the entry command plus
// the case's arguments, with its stdin and environment, in the group's
// workspace.
type CLI struct {
	// Command is the resolved entry command (see EntryCommand).
	Command []string
	// OutputCap bounds bytes kept per stream; excess is counted and marked.
	OutputCap int64
	// MaxFileBytes caps each tracked file.
	MaxFileBytes int64
}

// Run implements Adapter.
func (a *CLI) Run(ctx context.Context, sess runtime.Session, c *cases.Case) (result.Execution, error) {
	argv := append(append([]string{}, a.Command...), c.Arguments...)
	out := result.Execution{Command: argv}
	fail := func(format string, args ...any) (result.Execution, error) {
		out.AdapterError = true
		out.StatusCode = -1
		out.Error = fmt.Sprintf(format, args...)
		return out, nil
	}
	if err := cases.ResolveStatic(c, sess.StaticPath); err != nil {
		return fail("%v", err)
	}
	argv = append(append([]string{}, a.Command...), c.Arguments...)
	out.Command = argv
	if err := workspace.WriteFiles(sess.Workdir(), c.InputFiles); err != nil {
		return fail("write input files: %v", err)
	}
	var stdin []byte
	if c.Stdin != nil {
		stdin = []byte(*c.Stdin)
	}
	res, err := sess.Exec(ctx, runtime.ExecRequest{
		Argv:      argv,
		Env:       ProcessEnv(sess.Workdir(), c.Env),
		Stdin:     stdin,
		Timeout:   c.Timeout,
		OutputCap: a.OutputCap,
	})
	if err != nil {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		return fail("run %q: %v", argv[0], err)
	}
	out.StatusCode = res.ExitCode
	out.Output = capped(res.Stdout, res.StdoutDropped)
	out.Stderr = capped(res.Stderr, res.StderrDropped)
	out.OutputDropped, out.StderrDropped = res.StdoutDropped, res.StderrDropped
	out.Elapsed = res.Elapsed.Seconds()
	out.TimedOut = res.TimedOut
	out.Signal = res.Signal
	out.OOMKilled = res.OOMKilled
	if len(c.TrackedFiles) > 0 {
		max := a.MaxFileBytes
		if max <= 0 {
			max = DefaultMaxFileBytes
		}
		files, err := workspace.ReadTracked(sess.Workdir(), c.TrackedFiles, max)
		if err != nil {
			return fail("read tracked files: %v", err)
		}
		out.Files = files
	}
	return out, nil
}

// TruncationMarker is appended to an output stream cut at the cap.
const TruncationMarker = "\n[wasmeval: output truncated, %d more bytes dropped]"

// capped keeps the bytes as they are, UTF-8 or not: checks compare them
// with the expected bytes, so binary output identical to a binary expected
// file passes. Only where they are written as JSON (the journal, plugin
// envelopes) do invalid bytes become U+FFFD, one per byte, the same for
// the expected value, which therefore still reads the same.
func capped(b []byte, dropped int64) string {
	s := string(b)
	if dropped > 0 {
		s += fmt.Sprintf(TruncationMarker, dropped)
	}
	return s
}

// ProcessEnv builds the complete environment of a submission process: a
// small, fixed base (so results do not depend on the caller's shell) and
// then the problem's, checkpoint's and case's variables.
//
// Base: PATH from the host, HOME and TMPDIR set to the workspace, LANG and
// LC_ALL C.UTF-8, PYTHONDONTWRITEBYTECODE=1 (so Python does not litter the
// workspace with caches that tracked-file globs would pick up).
func ProcessEnv(workdir string, env map[string]string) map[string]string {
	out := map[string]string{
		"PATH":                    hostPath(),
		"HOME":                    workdir,
		"TMPDIR":                  workdir,
		"LANG":                    "C.UTF-8",
		"LC_ALL":                  "C.UTF-8",
		"PYTHONDONTWRITEBYTECODE": "1",
	}
	for k, v := range env {
		out[k] = v
	}
	return out
}

func hostPath() string {
	if p := os.Getenv("PATH"); p != "" {
		return p
	}
	return "/usr/local/bin:/usr/bin:/bin"
}
