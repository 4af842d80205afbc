//go:build linux

package local

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/runtime"
)

// waitDelay bounds how long Wait waits for output pipes after the process
// exited: a background grandchild holding them must not hang the case.
const waitDelay = 2 * time.Second

// Exec runs one process in the workspace, in its own process group, with
// exactly the given environment (plus runtime.SessionEnv).
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
	cmd := &exec.Cmd{
		Path: path, Args: req.Argv, Dir: s.work, Env: environ(req.Env, s.token),
		Stdout: stdout, Stderr: stderr,
		SysProcAttr: sysProcAttr(),
		WaitDelay:   waitDelay,
	}
	if len(req.Stdin) > 0 {
		cmd.Stdin = bytes.NewReader(req.Stdin)
	} // else /dev/null: the same empty input, without a pipe and a copier
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return res, fmt.Errorf("start %s: %w", req.Argv[0], err)
	}
	pid := cmd.Process.Pid
	if err := limitMemory(pid, s.memory); err != nil {
		killTree(pid, s.token)
		cmd.Wait()
		return res, err
	}
	// Wait for the process itself to exit, not for its output pipes: a
	// background child that inherited stdout must neither stretch the
	// case's time nor make it look timed out. The exit status is collected
	// only later (cmd.Wait), so the pid cannot be reused while the group is
	// being killed.
	exited := make(chan struct{})
	go func() {
		waitExit(pid)
		close(exited)
	}()

	var timeout <-chan time.Time
	if req.Timeout > 0 {
		t := time.NewTimer(req.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	canceled := false
	select {
	case <-exited:
	case <-timeout:
		res.TimedOut = true
		killTree(pid, s.token)
		<-exited
	case <-ctx.Done():
		canceled = true
		killTree(pid, s.token)
		<-exited
	}
	res.Elapsed = time.Since(start)
	// Background children still in the group must not outlive the case
	// (and are what may still hold the output pipes open).
	syscall.Kill(-pid, syscall.SIGKILL)
	waitErr := cmd.Wait()

	res.Stdout, res.StdoutDropped = stdout.Buf.Bytes(), stdout.Dropped
	res.Stderr, res.StderrDropped = stderr.Buf.Bytes(), stderr.Dropped
	if canceled {
		return res, ctx.Err()
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) && !errors.Is(waitErr, exec.ErrWaitDelay) {
		return res, fmt.Errorf("wait for %s: %w", req.Argv[0], waitErr)
	}
	st := exitState(cmd.ProcessState)
	res.ExitCode, res.Signal = st.ExitCode, st.Signal
	return res, nil
}

// exitState reads the exit code, or the signal that killed the process
// (exit code 128+n, as a shell reports it).
func exitState(ps *os.ProcessState) runtime.ExitState {
	ws, _ := ps.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return runtime.ExitState{ExitCode: 128 + int(ws.Signal()), Signal: ws.Signal().String()}
	}
	return runtime.ExitState{ExitCode: ws.ExitStatus()}
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
