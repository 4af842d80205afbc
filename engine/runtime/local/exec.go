//go:build linux

package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/runtime"
)

// waitDelay bounds how long Wait waits for output pipes after the launcher
// exited: a process that escaped it must not hang the case.
const waitDelay = 2 * time.Second

// Exec runs one process in the workspace under the session's launcher (see
// launcher_linux.go), with exactly the given environment (plus
// runtime.SessionEnv).
func (s *session) Exec(ctx context.Context, req runtime.ExecRequest) (runtime.ExecResult, error) {
	var res runtime.ExecResult
	if len(req.Argv) == 0 {
		return res, errors.New("empty command")
	}
	path, err := s.lookPath(req.Argv[0], req.Env["PATH"])
	if err != nil {
		return res, err
	}
	outCap := req.OutputCap
	if outCap <= 0 {
		outCap = runtime.DefaultOutputCap
	}
	stdout, stderr := &runtime.CappedBuffer{Max: outCap}, &runtime.CappedBuffer{Max: outCap}
	l, err := s.caseLauncher()
	if err != nil {
		return res, err
	}
	start := time.Now()
	p, err := l.runProgram(s.program(path, req.Argv, environ(req.Env, s.token)), req.Stdin, stdout, stderr)
	if err != nil {
		return res, err
	}
	// The program is over once it has exited and everything it left
	// running is killed, so a background child holding stdout neither
	// stretches the case nor makes it look timed out.
	var timeout <-chan time.Time
	if req.Timeout > 0 {
		t := time.NewTimer(req.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	canceled := false
	select {
	case <-p.exited:
	case <-timeout:
		res.TimedOut = true
		p.kill()
		<-p.exited
	case <-ctx.Done():
		canceled = true
		p.kill()
		<-p.exited
	}
	res.Elapsed = time.Since(start)
	res.Stdout, res.StdoutDropped = stdout.Buf.Bytes(), stdout.Dropped
	res.Stderr, res.StderrDropped = stderr.Buf.Bytes(), stderr.Dropped
	if canceled {
		return res, ctx.Err()
	}
	st, err := p.exitState()
	if err != nil {
		return res, err
	}
	res.ExitCode, res.Signal = st.ExitCode, st.Signal
	return res, nil
}

// signalName names a signal as the shell does (e.g. "killed"); 0 is none.
func signalName(sig int) string {
	if sig == 0 {
		return ""
	}
	return syscall.Signal(sig).String()
}

// environ renders the environment sorted, so the process sees the same
// environment whatever the map order, plus the marker token.
func environ(env map[string]string, token string) []string {
	out := make([]string, 0, len(env)+1)
	for k, v := range env {
		if k != runtime.SessionEnv {
			out = append(out, k+"="+v)
		}
	}
	sort.Strings(out)
	return append(out, runtime.SessionEnv+"="+token)
}

// lookPath resolves a program, caching PATH lookups for the session: every
// case of a group usually starts the same interpreter.
func (s *session) lookPath(name, pathEnv string) (string, error) {
	if strings.Contains(name, "/") { // relative to the workspace, which changes
		return lookPath(name, pathEnv, s.work)
	}
	key := name + "\x00" + pathEnv
	if p, ok := s.paths[key]; ok {
		return p, nil
	}
	p, err := lookPath(name, pathEnv, s.work)
	if err == nil {
		if s.paths == nil {
			s.paths = map[string]string{}
		}
		s.paths[key] = p
	}
	return p, err
}

// lookPath resolves the program like a shell would, but with the PATH the
// process will get rather than the engine's own.
func lookPath(name, pathEnv, dir string) (string, error) {
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if err := executable(p); err != nil {
			return "", fmt.Errorf("start %s: %w", name, err)
		}
		return p, nil
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" {
			d = "."
		}
		p := filepath.Join(d, name)
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if executable(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("start %s: not found in PATH (%s)", name, pathEnv)
}

func executable(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return diag.UnwrapPathError(err)
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return errors.New("not an executable file")
	}
	return nil
}
