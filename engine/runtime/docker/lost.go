package docker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
)

// lostWait bounds how long the engine tries to learn whether a container
// whose case was killed still runs, while the daemon says it does but no
// process can start in it (a spent pids limit, or a container the daemon
// has not yet seen die).
const lostWait = cleanupTimeout

// caseMark is what the container's event counts were when a case started.
type caseMark struct {
	oom int
	ev  eventCount
}

// causeWait bounds the wait for a stopped container's die event, which
// says whether the daemon was asked to kill it.
const causeWait = 10 * time.Second

// lost tells whether the group's container is still the one the case ran
// in, still running. It returns what became of it when it is not: it
// stopped, was removed, or was restarted. err is set only when the daemon
// could not be asked. With since (the event counts when the case
// started), it says who stopped it as far as the daemon's events tell.
//
// The daemon learns that a container died a little after the execs in it
// are reported finished, so "running" is not taken on its word: a new
// exec must start in the container. Once a container's init is dying,
// the kernel lets no new process into its PID namespace, so an exec that
// starts after the case's ended proves that what killed the case did not
// kill the container (and one that cannot start, while the daemon still
// says the container runs, is retried until the daemon knows better).
//
// byCase says that the daemon's events tell of neither a kill through the
// Docker API nor the memory limit: the case's own processes ended it (see
// causeInside).
func (s *session) lost(ctx context.Context, since *caseMark) (fate string, byCase bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, lostWait)
	defer cancel()
	id := s.container()
	s.mu.Lock()
	name, started := s.name, s.startedAt
	s.mu.Unlock()
	alive := false
	for {
		in, err := s.cli.ContainerInspect(ctx, id)
		if client.IsErrNotFound(err) {
			fate := "the container " + name + " was removed during the case"
			if c := s.stopCause(since, ""); c != "" {
				fate += " (" + c + ")"
			}
			return fate, false, nil
		}
		if err != nil {
			if ctx.Err() != nil && alive {
				return "", false, nil
			}
			return "", false, fmt.Errorf("inspect the container: %w", err)
		}
		cause := func(fallback string) string {
			c := s.stopCause(since, fallback)
			byCase = c == causeInside
			return c
		}
		if f := describeStop(in, started, cause); f != "" {
			return f, byCase, nil
		}
		if alive {
			return "", false, nil
		}
		// The probe is the killer: it returns 0, 1 or 2 once it ran, and
		// it sweeps up what the case left, which would otherwise hold up
		// a new exec's end (by two seconds, on Docker 20.10).
		res, err := s.helperExec(ctx, []string{"sh", "-c", sweepScript, "wasmeval-kill"}, "0")
		if err == nil && res.ExitCode <= 2 {
			// Inspected once more: a restart would have let the exec
			// into a new container.
			alive = true
			continue
		}
		select {
		case <-ctx.Done():
			// The daemon still says it runs, and nothing can start in it:
			// settling the case replaces it if it stays so.
			return "", false, nil
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// stopCause says how the container was stopped since the case started,
// from the daemon's events, or is fallback when they cannot tell.
func (s *session) stopCause(since *caseMark, fallback string) string {
	if since != nil {
		if c := s.oom.stopCause(since.ev, since.oom, causeWait); c != "" {
			return c
		}
	}
	return fallback
}

// describeStop says what happened to a container that is no longer the
// running one the group started at started, or "" when it is; cause
// adds who stopped it (see stopCause).
func describeStop(in container.InspectResponse, started string, cause func(fallback string) string) string {
	name := strings.TrimPrefix(in.Name, "/")
	st := in.State
	switch {
	case st == nil:
		return ""
	case st.Running && !st.Restarting && st.StartedAt == started:
		return ""
	case st.Running || st.Restarting:
		return fmt.Sprintf("the container %s was restarted during the case (everything running in it was killed)", name)
	}
	how := fmt.Sprintf("exit status %d", st.ExitCode)
	if st.ExitCode > 128 && st.ExitCode <= 128+64 {
		how += ": its main process was killed by " + signalName(syscall.Signal(st.ExitCode-128))
	}
	fallback := ""
	if st.OOMKilled {
		fallback = "with its memory limit reached"
	}
	if c := cause(fallback); c != "" {
		how += ", " + c
	}
	if st.Error != "" {
		how += "; " + st.Error
	}
	if t := st.FinishedAt; t != "" && !strings.HasPrefix(t, "0001-") {
		how += "; at " + t
	}
	return fmt.Sprintf("the container %s stopped during the case (%s)", name, how)
}

// signalName is SIGKILL for signal 9.
func signalName(sig syscall.Signal) string {
	names := map[syscall.Signal]string{syscall.SIGKILL: "SIGKILL", syscall.SIGTERM: "SIGTERM", syscall.SIGINT: "SIGINT",
		syscall.SIGHUP: "SIGHUP", syscall.SIGQUIT: "SIGQUIT", syscall.SIGABRT: "SIGABRT", syscall.SIGSEGV: "SIGSEGV"}
	if n, ok := names[sig]; ok {
		return n
	}
	return fmt.Sprintf("signal %d", int(sig))
}

// renew replaces a container that stopped or was restarted under a case
// with a fresh one, and restores the workspace: whatever state the group
// had built (its servers, files half-written when everything was killed)
// is lost, so the group goes on from the submission as it was given.
// When that cannot be done, every later exec fails saying why.
func (s *session) renew(fate string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 4*cleanupTimeout)
	defer cancel()
	err := s.recycle(ctx)
	if err == nil {
		err = s.Reset(ctx)
	}
	if err != nil {
		err = fmt.Errorf("%s, and no new container could replace it: %w", fate, err)
		s.mu.Lock()
		s.broken = err
		s.mu.Unlock()
		return err
	}
	return errors.New(fate + "; the group goes on in a new container, with the workspace restored")
}

// orLost is err, or what became of the container when an exec could not
// even be created in it (it had stopped between two cases): the container
// is then replaced, so the case after this one can run.
func (s *session) orLost(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return err
	}
	fate, _, lerr := s.lost(ctx, nil)
	if fate == "" {
		if lerr != nil {
			return errors.Join(err, lerr)
		}
		return err
	}
	fate = strings.Replace(fate, "during the case", "before the case could start", 1)
	return s.renew(fate)
}
