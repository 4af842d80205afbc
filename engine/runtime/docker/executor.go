package docker

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/runtime/docker/executor"
)

// executorBackstop is how long after a case's timeout the engine waits for
// the executor's answer before taking it for lost (the executor kills the
// case at the timeout itself; killing and reaping a fork bomb's thousands
// of processes takes a while on a loaded machine).
const executorBackstop = 2 * time.Minute

// executorStartLimit bounds the wait for a new container's executor to
// connect.
const executorStartLimit = 2 * time.Minute

// controlListener is the socket a container's executor connects to, in
// the session's control directory (mounted read-only into the container).
// Its path is bound through /proc/self/fd, which keeps it short whatever
// the session directory's length (socket paths are limited to 107 bytes).
func (s *session) controlListener() (*net.UnixListener, error) {
	dir := filepath.Join(s.dir, "ctl")
	if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
		return nil, fmt.Errorf("create the executor's control directory: %w", err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("open the executor's control directory: %w", err)
	}
	defer d.Close()
	sock := "/proc/self/fd/" + strconv.Itoa(int(d.Fd())) + "/" + controlSock
	os.Remove(filepath.Join(dir, controlSock))
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen for the executor: %w", err)
	}
	// The name it was bound by means another directory, or nothing, once
	// d is closed (another session may have its own control directory
	// open under the same descriptor number): acceptExecutor removes the
	// socket by its own path instead.
	l.SetUnlinkOnClose(false)
	// The container's user, whoever it is, must be able to connect.
	if err := os.Chmod(filepath.Join(dir, controlSock), 0o666); err != nil {
		l.Close()
		return nil, fmt.Errorf("listen for the executor: %w", err)
	}
	return l, nil
}

// executorMounts are the executor's binary (and libraries) and the
// control directory.
func (s *session) executorMounts() []mount.Mount {
	return append(append([]mount.Mount{}, s.rt.exe.mounts...),
		mount.Mount{Type: mount.TypeBind, Source: filepath.Join(s.dir, "ctl"), Target: controlDir, ReadOnly: true})
}

// acceptExecutor takes the first connection on l — the container's PID 1,
// the only process in it before the handshake — and closes l, which
// removes the socket: nothing started later in the container can connect.
func (s *session) acceptExecutor(ctx context.Context, l *net.UnixListener, id string) (*executor.Conn, error) {
	stop := func() {
		l.Close()
		os.Remove(filepath.Join(s.dir, "ctl", controlSock))
	}
	defer stop()
	deadline := time.Now().Add(executorStartLimit)
	for {
		l.SetDeadline(time.Now().Add(250 * time.Millisecond))
		c, err := l.Accept()
		if err == nil {
			stop()
			x, err := executor.Handshake(c, deadline)
			if err != nil {
				c.Close()
				return nil, err
			}
			return x, nil
		}
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			return nil, fmt.Errorf("docker executor: accept: %w", err)
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			return nil, fmt.Errorf("docker executor: the container's executor did not connect within %v", executorStartLimit)
		}
		in, err := s.cli.ContainerInspect(ctx, id)
		if err == nil && in.State != nil && !in.State.Running {
			return nil, fmt.Errorf("docker executor: the container exited (status %d) before its executor connected%s", in.State.ExitCode, s.logTail(ctx, id))
		}
	}
}

// logTail is the end of a container's output, for an executor that could
// not start.
func (s *session) logTail(ctx context.Context, id string) string {
	rc, err := s.cli.ContainerLogs(ctx, id, container.LogsOptions{ShowStdout: true, ShowStderr: true, Tail: "5"})
	if err != nil {
		return ""
	}
	defer rc.Close()
	var out, errb strings.Builder
	stdcopy.StdCopy(&out, &errb, rc)
	msg := strings.TrimSpace(out.String() + errb.String())
	if msg == "" {
		return ""
	}
	return ": " + msg
}

// executorConn is the current container's executor (nil on the exec path).
func (s *session) executorConn() *executor.Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exe
}

// runByExecutor runs a case through the container's executor: one request
// on the executor's socket instead of an exec (create, attach, inspect)
// through the Docker API. Results are those of the exec path: the same
// environment, start errors, exit statuses, caps, timeouts, OOM kills and
// container faults.
func (s *session) runByExecutor(ctx context.Context, req runtime.ExecRequest, x *executor.Conn) (runtime.ExecResult, error) {
	var res runtime.ExecResult
	outCap := req.OutputCap
	if outCap <= 0 {
		outCap = runtime.DefaultOutputCap
	}
	oomBefore := s.oom.count()
	mark := &caseMark{oom: oomBefore, ev: s.oom.events()}
	stdout, stderr := &runtime.CappedBuffer{Max: outCap}, &runtime.CappedBuffer{Max: outCap}
	start := time.Now()
	rep, err := x.Run(ctx, executor.Request{
		Argv: req.Argv, Env: s.environ(req.Env), Dir: s.rt.opts.Spec.Workdir,
		TimeoutMS: req.Timeout.Milliseconds(), OutputCap: outCap, SpareExecs: !s.quiet(),
	}, req.Stdin, stdout, stderr, executorBackstop)
	res.Elapsed = time.Since(start)
	res.Stdout, res.StdoutDropped = stdout.Buf.Bytes(), stdout.Dropped+rep.StdoutDropped
	res.Stderr, res.StderrDropped = stderr.Buf.Bytes(), stderr.Dropped+rep.StderrDropped
	if err != nil {
		// The executor is the container's PID 1: it is gone only with its
		// container (docker kill, stop, restart, rm -f, the memory limit
		// reached by the container as a whole), or it stopped answering.
		fate, byCase, lerr := s.lost(context.Background(), mark)
		var le *executor.LostError
		if errors.As(err, &le) && le.BeforeStart {
			fate = strings.Replace(fate, "during the case", "before the case could start", 1)
		}
		switch {
		case fate != "" && byCase && ctx.Err() == nil && (le == nil || !le.BeforeStart):
			_ = s.renew(fate)
			res.Stderr = append(res.Stderr, "\n[wasmeval: "+fate+"]\n"...)
			res.ExitCode, res.Signal = 128+int(syscall.SIGKILL), syscall.SIGKILL.String()
			return res, nil
		case fate != "":
			err = s.renew(fate)
		default:
			if lerr != nil {
				err = errors.Join(err, lerr)
			}
			err = s.renew(err.Error())
		}
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		return res, err
	}
	if ctx.Err() != nil {
		s.settleExecutor(rep)
		return res, ctx.Err()
	}
	if rep.Op == "error" {
		return res, errors.New(rep.Error)
	}
	s.settleExecutor(rep)
	res.TimedOut = rep.Timed
	res.ExitCode = rep.Code
	if rep.Code > 128 && rep.Code <= 128+64 {
		res.Signal = syscall.Signal(rep.Code - 128).String()
	}
	if rep.Code == 128+int(syscall.SIGKILL) && !rep.Timed && s.rt.opts.Spec.Memory > 0 {
		res.OOMKilled = s.oom.since(oomBefore)
	}
	return res, nil
}

// settleExecutor makes sure nothing of a finished case still runs. The
// executor has killed and reaped everything the case started before it
// answered; when no server or forwarder runs, the host's view of the
// container's pids cgroup must agree (its tasks are the executor's own
// threads, and nothing inside can hide from or forge that). Otherwise the
// executor sweeps again, and when that does not do, the container is
// replaced.
func (s *session) settleExecutor(rep executor.Reply) {
	x := s.executorConn()
	for try := 0; x != nil && try < 3; try++ {
		quiet := s.quiet()
		if rep.Left == 0 {
			if !quiet {
				return // the executor's scans, as the exec path's sweeps
			}
			if clean, ok := s.hostClean(); !ok || clean {
				return
			}
		}
		var err error
		if rep, err = x.Call(executor.Request{Op: "sweep", SpareExecs: !quiet}, cleanupTimeout); err != nil || rep.Op != "swept" {
			break
		}
	}
	s.replace()
}

// emptyByExecutor removes the workspace's contents from inside the
// container, as the container's user, through os.Root.
func (s *session) emptyByExecutor() error {
	x := s.executorConn()
	if x == nil {
		return errors.New("no executor")
	}
	rep, err := x.Call(executor.Request{Op: "empty", Dir: s.rt.opts.Spec.Workdir}, cleanupTimeout)
	if err != nil {
		return err
	}
	if rep.Error != "" {
		return errors.New(rep.Error)
	}
	return nil
}
