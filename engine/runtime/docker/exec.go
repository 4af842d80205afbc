package docker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/wasmeval/wasmeval/engine/runtime"
)

// drainDelay bounds how long output is awaited after a timed-out tree was
// killed.
const drainDelay = 2 * time.Second

// wrapper starts a case's command and, once it exits, kills whatever it
// left behind (so background children holding the output cannot keep the
// case open). It first writes its own PID as the first line of stdout,
// before anything of the case runs (see rootPID). The command is resolved
// against PATH here, with an explicit path: busybox's shell would
// otherwise prefer its own applets (sh, ls, sleep…) over the image's
// programs. Counting /proc entries costs no fork, so the sweep for
// leftovers runs only when the case left more processes than there were
// when it started; it runs in the wrapper's own shell (no fork either),
// with the wrapper's tree and every orphan doomed. This sweep is only the
// fast way to close the case's output: a case running as the wrapper's
// user can kill or stop the wrapper, so the engine settles every case
// from outside as well (see settle).
const wrapper = `W=$1; K=$2; [ -n "$3" ] && unset $3; c=$4; shift 4
echo $$
cnt() { n=$#; }
case $c in
*/*) p=$c ;;
*) p=; IFS=:; for d in $PATH; do [ -z "$d" ] && d=.; if [ -f "$d/$c" ] && [ -x "$d/$c" ]; then p=$d/$c; break; fi; done; unset IFS
   if [ -z "$p" ]; then echo "$W: start $c: not found in PATH ($PATH)" >&2; exit 127; fi ;;
esac
if [ ! -e "$p" ]; then echo "$W: start $c: no such file or directory" >&2; exit 127; fi
if [ -d "$p" ] || [ ! -x "$p" ]; then echo "$W: start $c: not an executable file" >&2; exit 126; fi
cnt /proc/[0-9]*; n0=$n
"$p" "$@"
rc=$?
cnt /proc/[0-9]*
if [ $n -gt $n0 ]; then eval "$K"; wk_sweep $$ >/dev/null 2>&1; fi
exit $rc
`

// wrapperArgs is the exec command line of a wrapped process.
func wrapperArgs(name, startMark string, env map[string]string, argv []string) []string {
	return append([]string{helperPath, "sh", "-c", wrapper, name, startMark, killer, unsetList(env)}, argv...)
}

// Exec runs one command in the group's container, with exactly the given
// environment (host-specific values translated): through the container's
// executor where there is one (executor.go), else through an exec. When
// it is over, nothing it started runs any more (see settle).
func (s *session) Exec(ctx context.Context, req runtime.ExecRequest) (runtime.ExecResult, error) {
	var res runtime.ExecResult
	if len(req.Argv) == 0 {
		return res, errors.New("empty command")
	}
	if err := s.brokenErr(); err != nil {
		return res, err
	}
	if x := s.executorConn(); x != nil {
		return s.runByExecutor(ctx, req, x)
	}
	outCap := req.OutputCap
	if outCap <= 0 {
		outCap = runtime.DefaultOutputCap
	}
	startMark := "wasmeval-" + newToken()
	cmd := wrapperArgs("wasmeval-case", startMark, req.Env, req.Argv)
	oomBefore := s.oom.count()
	mark := &caseMark{oom: oomBefore, ev: s.oom.events()}

	start := time.Now()
	ex, err := s.cli.ContainerExecCreate(ctx, s.container(), container.ExecOptions{
		Cmd: cmd, Env: s.environ(req.Env), WorkingDir: s.rt.opts.Spec.Workdir,
		AttachStdin: len(req.Stdin) > 0, AttachStdout: true, AttachStderr: true,
	})
	if err != nil {
		return res, s.orLost(ctx, fmt.Errorf("create exec: %w", err))
	}
	att, err := s.cli.ContainerExecAttach(ctx, ex.ID, container.ExecAttachOptions{})
	if err != nil {
		return res, s.orLost(ctx, fmt.Errorf("attach exec: %w", err))
	}
	defer att.Close()
	if len(req.Stdin) > 0 {
		go func() {
			att.Conn.Write(req.Stdin)
			att.CloseWrite()
		}()
	}
	stdout, stderr := &runtime.CappedBuffer{Max: outCap}, &runtime.CappedBuffer{Max: outCap}
	root := newRootPID(stdout)
	done := make(chan error, 1)
	go func() {
		_, err := stdcopy.StdCopy(root, stderr, att.Reader)
		root.finish()
		done <- err
	}()

	var timeout <-chan time.Time
	if req.Timeout > 0 {
		t := time.NewTimer(req.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	canceled := false
	select {
	case <-done:
	case <-timeout:
		res.TimedOut = true
		s.killTree(root)
		s.drain(done, att.Close)
	case <-ctx.Done():
		canceled = true
		s.killTree(root)
		s.drain(done, att.Close)
	}
	res.Elapsed = time.Since(start)
	res.Stdout, res.StdoutDropped = stdout.Buf.Bytes(), stdout.Dropped
	res.Stderr, res.StderrDropped = stderr.Buf.Bytes(), stderr.Dropped
	if canceled {
		return res, ctx.Err()
	}
	ictx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	code, err := s.exitCode(ictx, ex.ID)
	if err != nil && res.TimedOut {
		// The container was replaced to stop the tree, and the exec went
		// with it; or the tree is still not dead, and replacing the
		// container is what is left.
		if !client.IsErrNotFound(err) {
			s.replace()
		}
		code, err = 128+int(syscall.SIGKILL), nil
	}
	// A case killed with everything else in its container (docker kill,
	// the container's init dying, a restart), an exec the daemon could not
	// start or could not account for: what the case did says nothing about
	// the submission. Its own tree killed by SIGKILL, by the memory limit
	// or by itself, leaves the container running.
	started := root.known() != 0
	if !res.TimedOut && (err != nil || code == 128+int(syscall.SIGKILL) || !started) {
		fate, byCase, lerr := s.lost(context.Background(), mark)
		switch {
		case fate != "" && started && byCase:
			// The case's processes run as the container's main process
			// does, so a case can end its own container. Counting that
			// as an error of the harness would let a submission turn
			// any wrong answer into one: it is the case's doing, an
			// answer like a tree that killed itself. The group goes on
			// in a new container.
			_ = s.renew(fate)
			res.Stderr = append(res.Stderr, "\n[wasmeval: "+fate+"]\n"...)
			code, err = 128+int(syscall.SIGKILL), nil
		case fate != "":
			return res, s.renew(fate)
		}
		if lerr != nil && err == nil {
			err = lerr
		}
	}
	// Whatever the case left — children that shed every marker, a tree
	// whose wrapper it killed — is gone before the next step reads or
	// resets the workspace.
	s.settle()
	if err != nil {
		return res, err
	}
	if !started && !res.TimedOut {
		// The wrapper writes its PID before anything else: the daemon
		// refused to start the exec, and said why on its stdout.
		msg := strings.TrimSpace(string(res.Stdout))
		if msg == "" {
			msg = fmt.Sprintf("exit status %d, no output", code)
		}
		return res, fmt.Errorf("the container could not start the case's process: %s", msg)
	}
	if (code == 126 || code == 127) && bytes.HasPrefix(res.Stderr, []byte(startMark+": ")) {
		msg := strings.TrimSpace(string(res.Stderr[len(startMark)+2:]))
		return res, errors.New(msg)
	}
	res.ExitCode = code
	if code > 128 && code <= 128+64 {
		res.Signal = syscall.Signal(code - 128).String()
	}
	if code == 128+int(syscall.SIGKILL) && !res.TimedOut && s.rt.opts.Spec.Memory > 0 {
		res.OOMKilled = s.oom.since(oomBefore)
	}
	return res, nil
}

// exitCode waits (briefly) for the exec to be reported finished.
func (s *session) exitCode(ctx context.Context, id string) (int, error) {
	for {
		in, err := s.cli.ContainerExecInspect(ctx, id)
		if err != nil {
			return 0, fmt.Errorf("inspect exec: %w", err)
		}
		if !in.Running {
			return in.ExitCode, nil
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("exec did not finish: %w", ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// drain waits for the output of a killed tree to end, and gives up on it
// (closing the connection) if an escaped process still holds it.
func (s *session) drain(done <-chan error, closeConn func()) {
	select {
	case <-done:
	case <-time.After(drainDelay):
		closeConn()
		<-done
	}
}

// killTree kills the tree of an exec whose wrapper reported root, and
// every orphan. Without the wrapper's PID (it never started, or the
// container is overwhelmed) there is no tree to aim at, and the container
// is replaced.
func (s *session) killTree(root *rootPID) {
	pid := root.wait(cleanupTimeout)
	if pid == 0 {
		s.replace()
		return
	}
	s.sweep([]int{pid})
}

// helperExec runs a busybox applet in the container and waits for it.
func (s *session) helperExec(ctx context.Context, argv []string, user string) (runtime.ExecResult, error) {
	var res runtime.ExecResult
	ex, err := s.cli.ContainerExecCreate(ctx, s.container(), container.ExecOptions{
		Cmd: append([]string{helperPath}, argv...), User: user,
		AttachStdout: true, AttachStderr: true,
	})
	if err != nil {
		return res, fmt.Errorf("create exec: %w", err)
	}
	att, err := s.cli.ContainerExecAttach(ctx, ex.ID, container.ExecAttachOptions{})
	if err != nil {
		return res, fmt.Errorf("attach exec: %w", err)
	}
	defer att.Close()
	var out, errb bytes.Buffer
	stdcopy.StdCopy(&out, &errb, att.Reader)
	res.Stdout, res.Stderr = out.Bytes(), errb.Bytes()
	res.ExitCode, err = s.exitCode(ctx, ex.ID)
	return res, err
}

// environ renders the request's environment for the container. Values the
// engine computed for the host — HOME and TMPDIR pointing at the host
// workspace, the host's PATH — are translated: the workspace to the
// container's workdir, and the host PATH dropped in favour of the spec's
// or the image's. The spec's env is applied last.
func (s *session) environ(env map[string]string) []string {
	spec := s.rt.opts.Spec
	hostPath := os.Getenv("PATH")
	out := make([]string, 0, len(env)+len(spec.Env)+1)
	merged := map[string]string{}
	for k, v := range env {
		switch {
		case k == "PATH" && (v == hostPath || v == ""):
			v = s.rt.imagePath
		case v == s.work:
			v = spec.Workdir
		case strings.HasPrefix(v, s.work+"/"):
			v = spec.Workdir + v[len(s.work):]
		}
		merged[k] = v
	}
	for k, v := range spec.Env {
		merged[k] = v
	}
	if _, ok := merged["PATH"]; !ok {
		merged["PATH"] = s.rt.imagePath
	}
	for k, v := range merged {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// unsetList names the variables the container or the wrapper shell would
// add (Docker's HOSTNAME, the shell's PWD and SHLVL) that the request did
// not ask for: the process gets exactly the requested environment.
func unsetList(env map[string]string) string {
	var out []string
	for _, k := range []string{"HOSTNAME", "PWD", "OLDPWD", "SHLVL"} {
		if _, ok := env[k]; !ok {
			out = append(out, k)
		}
	}
	return strings.Join(out, " ")
}
