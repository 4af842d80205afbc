package docker

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/wasmeval/wasmeval/engine/workspace"
)

// The workspace is a host directory the container writes as its user —
// often root — while the engine, on the host and often root too, empties
// and refills it. Every host-side access below goes through an os.Root on
// it: a symlink the submission plants (from a leftover process, or a
// server that lives through the reset) is never followed out of it, so
// the engine cannot be made to write, chmod or chown anything on the
// host. workspace.WriteFiles and workspace.ReadTracked, which the
// adapters call on Workdir, work the same way.

// makeWorkdir creates the empty workspace, before any container sees it.
// Anyone may write it (the container's user may differ from the
// engine's); the session directory around it is the engine's alone.
func (s *session) makeWorkdir() error {
	if err := os.Mkdir(s.work, 0o700); err != nil {
		return fmt.Errorf("create workspace: %w", err)
	}
	if err := os.Chmod(s.work, 0o777); err != nil {
		return fmt.Errorf("create workspace: %w", err)
	}
	if uid, gid, ok := numericUser(s.rt.opts.Spec.User); ok {
		if err := os.Lchown(s.work, uid, gid); err != nil {
			return fmt.Errorf("create workspace: %w", err)
		}
	}
	return nil
}

// fill copies the submission into the (empty) workspace, owned by the
// spec's numeric user when one is set so the container can write to it.
// A name that exists already was planted while the copy ran, and fails
// the copy rather than being written through.
func (s *session) fill() error {
	r, err := os.OpenRoot(s.work)
	if err != nil {
		return fmt.Errorf("open workspace: %w", err)
	}
	defer r.Close()
	uid, gid := -1, -1
	if u, g, ok := numericUser(s.rt.opts.Spec.User); ok {
		uid, gid = u, g
	}
	if err := workspace.CopyInto(r, s.submission, uid, gid); err != nil {
		return fmt.Errorf("copy submission into workspace: %w", err)
	}
	return nil
}

// Reset restores the workspace in place: the directory itself is the
// container's bind mount, so it is emptied and refilled, never replaced.
// Processes of earlier cases are already gone (each case is settled when
// it ends); a server's are not, and cannot lead the refill out of the
// workspace either.
func (s *session) Reset(ctx context.Context) error {
	if err := s.empty(ctx); err != nil {
		return fmt.Errorf("reset workspace: %w", err)
	}
	if err := s.fill(); err != nil {
		return fmt.Errorf("reset workspace: %w", err)
	}
	return nil
}

// empty removes the workspace's contents. Files a container user made
// unremovable for the engine's user are removed from inside the container.
func (s *session) empty(ctx context.Context) error {
	r, err := os.OpenRoot(s.work)
	if err != nil {
		return fmt.Errorf("open workspace: %w", err)
	}
	defer r.Close()
	d, err := r.Open(".")
	if err != nil {
		return err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return fmt.Errorf("list workspace: %w", err)
	}
	var failed bool
	for _, name := range names {
		if r.RemoveAll(name) != nil {
			failed = true
		}
	}
	if !failed {
		return nil
	}
	if s.executorConn() != nil && s.emptyByExecutor() == nil {
		return nil
	}
	res, err := s.helperExec(ctx, []string{"sh", "-c", `cd "$1" && rm -rf ./* ./.[!.]* ./..?*`, "rm", s.rt.opts.Spec.Workdir}, "0")
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("clear workspace in the container: %s", strings.TrimSpace(string(res.Stderr)))
	}
	return nil
}
