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

// killer kills every process whose environment holds $1 (the marker),
// except the pid $2. It runs without the marker itself, so neither it nor
// the processes of its own scan match. It stops them all before killing
// any, so a fork bomb cannot refill the slots it frees, and forks as
// little as possible (a few processes per round; a round whose scan could
// not run is retried): under a spent pids limit every fork may fail.
// A process forked after the scan listed /proc by a parent that then
// exited is not in that scan, so only two clean scans in a row count.
// strings splits each environ file at its NULs (grep alone would stop at
// the first), so each variable is matched whole; a scan counts only when
// strings itself ran, which its own environment (/proc/self) proves.
// Before it reports, it waits (boundedly, without forking) until the
// container's init has reaped the killed processes: a zombie still holds
// its slot under the pids limit, and the next case could not fork.
const killer = `M=` + runtime.SessionEnv + `=$1; X=$2; e=0; export WASMEVAL_SCAN=done
reaped() { w=0; while [ $w -lt 300 ]; do z=
  for f in /proc/[0-9]*/stat; do read -r s < "$f" 2>/dev/null || continue; case $s in *") Z "*) z=1; break ;; esac; done
  [ -z "$z" ] && return 0; w=$((w+1)); done; }
for r in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
  l=$(strings -n 1 -f /proc/self/environ /proc/[0-9]*/environ 2>/dev/null | grep -F -e ": $M" -e ": WASMEVAL_SCAN=done")
  case $l in *"/proc/self/environ: WASMEVAL_SCAN=done"*) ;; *) continue ;; esac
  p=; for f in $l; do case $f in /proc/*) q=${f#/proc/}; q=${q%/environ:} ;; "$M") [ "$q" = "$X" ] || p="$p $q" ;; esac; done
  if [ -z "$p" ]; then e=$((e+1)); [ $e -ge 2 ] && reaped; [ $e -ge 2 ] && echo killed && exit 0; continue; fi
  e=0; kill -STOP $p 2>/dev/null; kill -9 $p 2>/dev/null
done
exit 1
`

// wrapper starts a case's command and, once it exits, kills whatever it
// left behind (so background children holding the output cannot keep the
// case open). The command is resolved against PATH here, with an explicit
// path: busybox's shell would otherwise prefer its own applets (sh, ls,
// sleep…) over the image's programs. Counting /proc entries costs no
// fork, so the scan for leftovers runs only when the case left more
// processes than there were when it started.
const wrapper = `T=$1; W=$2; K=$3; [ -n "$4" ] && unset $4; c=$5; shift 5
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
[ $n -gt $n0 ] && ` + helperPath + ` env -u ` + runtime.SessionEnv + ` ` + helperPath + ` sh -c "$K" wasmeval-kill "$T" $$ >/dev/null
exit $rc
`

// wrapperArgs is the exec command line of a wrapped process.
func wrapperArgs(name, token, startMark string, env map[string]string, argv []string) []string {
	return append([]string{helperPath, "sh", "-c", wrapper, name, token, startMark, killer, unsetList(env)}, argv...)
}

// Exec runs one command in the group's container through an exec, with
// exactly the given environment (host-specific values translated) and
// runtime.SessionEnv.
func (s *session) Exec(ctx context.Context, req runtime.ExecRequest) (runtime.ExecResult, error) {
	var res runtime.ExecResult
	if len(req.Argv) == 0 {
		return res, errors.New("empty command")
	}
	if s.broken != nil {
		return res, s.broken
	}
	outCap := req.OutputCap
	if outCap <= 0 {
		outCap = runtime.DefaultOutputCap
	}
	token := newToken()
	startMark := "wasmeval-" + token
	env := s.environ(req.Env, token)
	cmd := wrapperArgs("wasmeval-case", token, startMark, req.Env, req.Argv)
	oomBefore := s.oom.count()

	start := time.Now()
	ex, err := s.cli.ContainerExecCreate(ctx, s.container(), container.ExecOptions{
		Cmd: cmd, Env: env, WorkingDir: s.rt.opts.Spec.Workdir,
		AttachStdin: len(req.Stdin) > 0, AttachStdout: true, AttachStderr: true,
	})
	if err != nil {
		return res, fmt.Errorf("create exec: %w", err)
	}
	att, err := s.cli.ContainerExecAttach(ctx, ex.ID, container.ExecAttachOptions{})
	if err != nil {
		return res, fmt.Errorf("attach exec: %w", err)
	}
	defer att.Close()
	if len(req.Stdin) > 0 {
		go func() {
			att.Conn.Write(req.Stdin)
			att.CloseWrite()
		}()
	}
	stdout, stderr := &runtime.CappedBuffer{Max: outCap}, &runtime.CappedBuffer{Max: outCap}
	done := make(chan error, 1)
	go func() {
		_, err := stdcopy.StdCopy(stdout, stderr, att.Reader)
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
		s.killMarked(token)
		s.drain(done, att.Close)
	case <-ctx.Done():
		canceled = true
		s.killMarked(token)
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
	if err != nil && res.TimedOut && client.IsErrNotFound(err) {
		// The container was replaced to stop the tree: the exec went
		// with it, killed.
		code, err = 128+int(syscall.SIGKILL), nil
	}
	if err != nil {
		return res, err
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

// killMarked kills every process carrying the token, from a separate exec
// run as root so a case cannot outlive its timeout by changing user. When
// that cannot be done — a fork bomb has spent the pids limit, so not even
// the killer starts — the container itself is replaced: removing it kills
// everything in it, and the workspace lives on the host.
func (s *session) killMarked(token string) {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	// Under a spent pids limit the killer may not start, or its scans may
	// not fork; processes of a churning bomb exit all the time, so a retry
	// soon finds room, and each round leaves more of the tree stopped.
	for try := 0; try < 20; try++ {
		res, err := s.helperExec(ctx, []string{"sh", "-c", killer, "wasmeval-kill", token, ""}, "0")
		if err == nil && res.ExitCode == 0 && strings.TrimSpace(string(res.Stdout)) == "killed" {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 4*cleanupTimeout)
	defer cancel()
	if err := s.recycle(ctx); err != nil {
		s.broken = fmt.Errorf("replace the container after a process tree could not be killed: %w", err)
	}
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
func (s *session) environ(env map[string]string, token string) []string {
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
	delete(merged, runtime.SessionEnv)
	for k, v := range merged {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return append(out, runtime.SessionEnv+"="+token)
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
