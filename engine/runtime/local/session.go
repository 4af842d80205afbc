//go:build linux

package local

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"

	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/workspace"
)

// session is one group's workspace.
type session struct {
	dir        string // session directory (holds work/)
	work       string
	submission string
	assets     map[string]string
	token      string
	paths      map[string]string // lookPath cache
	started    int               // processes launched by Start
	procs      []*process
	upstreams  []net.Listener // opened by Upstream; closed by Close
	memory     int64          // Options.MemoryBytes
	// ns says processes run in namespaces; then static assets are seen
	// read-only at staticPaths (bound from binds) and hide is covered.
	ns          bool
	binds       []bindMount
	hide        []string
	siblings    string // covered but for the session directory (launchSetup.Siblings)
	staticPaths map[string]string
	// cases runs the group's cases, one after another; started on first
	// use, and again if it died.
	cases *launcherProc

	// An isolated group resets before every case. The next fresh copy is
	// prepared in the background while a case runs, and the used one is
	// removed in the background, so a reset on the critical path is two
	// renames instead of a delete and a copy.
	resets int
	spare  string
	ready  chan spareResult // result of preparing spare; nil when none is pending
	bg     sync.WaitGroup
	// watch tracks changes to the workspace since its fresh copy; nil when
	// inotify is unavailable (then every reset copies).
	watch *changeWatch
}

// spareResult is a prepared spare copy and the watch on it.
type spareResult struct {
	err   error
	watch *changeWatch
}

func (s *session) Workdir() string { return s.work }

// StaticPath is where a static asset is seen: with namespaces a read-only
// bind inside the session directory (the problem directory holding it is
// covered), else the host path itself.
func (s *session) StaticPath(name string) (string, bool) {
	if s.ns {
		p, ok := s.staticPaths[name]
		return p, ok
	}
	p, ok := s.assets[name]
	return p, ok
}

func newSession(dir, work, siblings string, spec runtime.SessionSpec, memory int64, ns bool) (runtime.Session, error) {
	s := &session{dir: dir, work: work, submission: spec.Submission, assets: spec.StaticAssets, token: newToken(), memory: memory, ns: ns}
	if ns {
		if err := s.prepareMounts(spec, siblings); err != nil {
			workspace.RemoveAll(dir)
			return nil, err
		}
	}
	s.watch, _ = newChangeWatch(work)
	return s, nil
}

// Reset restores a fresh copy of the submission. Processes of earlier cases
// are already gone: each case's process group is killed when it ends, and
// the rarer ones that left the group are found by Close (scanning for them
// costs more than a trivial case, so it is done once per group).
func (s *session) Reset(ctx context.Context) error {
	if s.watch != nil && !s.watch.changed() {
		return nil // nothing touched the fresh copy: it is still fresh
	}
	s.resets++
	trash := filepath.Join(s.dir, fmt.Sprintf("used-%d", s.resets))
	if err := os.Rename(s.work, trash); err != nil {
		return fmt.Errorf("reset workspace: %w", err)
	}
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		workspace.RemoveAll(trash)
	}()
	s.watch.close()
	s.watch = nil
	var spare spareResult
	if s.ready != nil {
		spare = <-s.ready
		s.ready = nil
	} else {
		spare.err = errors.New("no spare copy yet")
	}
	if spare.err == nil {
		if err := os.Rename(s.spare, s.work); err != nil {
			spare.watch.close()
			return fmt.Errorf("reset workspace: %w", err)
		}
		// The spare was watched since it was copied; its own rename is
		// the one event to forget.
		s.watch = spare.watch
		if s.watch != nil {
			s.watch.changed()
		}
	} else {
		spare.watch.close()
		if err := s.freshCopy(filepath.Base(s.work)); err != nil {
			return fmt.Errorf("reset workspace: %w", err)
		}
		s.watch, _ = newChangeWatch(s.work)
	}
	s.prepareSpare()
	return nil
}

// freshCopy copies the submission into a new directory of the session
// directory, through an os.Root on it: a name that a program planted there
// meanwhile (a symlink leading elsewhere) is an error, never written
// through. (With namespaces programs cannot write there at all.)
func (s *session) freshCopy(name string) error {
	parent, err := os.OpenRoot(s.dir)
	if err != nil {
		return err
	}
	defer parent.Close()
	if err := parent.Mkdir(name, 0o755); err != nil {
		return fmt.Errorf("copy submission into %s: %w", name, err)
	}
	dst, err := parent.OpenRoot(name)
	if err != nil {
		return fmt.Errorf("copy submission into %s: %w", name, err)
	}
	defer dst.Close()
	return workspace.CopyInto(dst, s.submission, -1, -1)
}

// prepareSpare starts copying the submission for the next reset.
func (s *session) prepareSpare() {
	name := fmt.Sprintf("spare-%d", s.resets)
	s.spare = filepath.Join(s.dir, name)
	ready := make(chan spareResult, 1)
	s.ready = ready
	spare := s.spare
	go func() {
		var r spareResult
		if r.err = s.freshCopy(name); r.err == nil {
			// Watched from the moment it is complete, so a later reset can
			// trust it without walking it again.
			r.watch, _ = newChangeWatch(spare)
		}
		ready <- r
	}()
}

// setup is how the session's launchers contain what they run.
func (s *session) setup() launchSetup {
	if !s.ns {
		return launchSetup{}
	}
	return launchSetup{Namespaces: true, Binds: s.binds, Hide: s.hide, Guard: s.dir, Siblings: s.siblings}
}

// caseLauncher is the launcher the session's cases run under.
func (s *session) caseLauncher() (*launcherProc, error) {
	if s.cases != nil && s.cases.alive() {
		return s.cases, nil
	}
	l, err := startLauncher(s.setup(), s.dir, s.token)
	if err != nil {
		return nil, err
	}
	s.cases = l
	return l, nil
}

// program is what a launcher is asked to run for this session.
func (s *session) program(path string, argv, env []string) programSpec {
	return programSpec{Path: path, Argv: argv, Env: env, Dir: s.work, Workspace: s.resets, MemoryBytes: s.memory}
}

// Close kills anything still running from this session and removes the
// workspace.
func (s *session) Close() error {
	s.stopAll()
	s.closeUpstreams()
	if s.cases != nil {
		s.cases.close()
		s.cases = nil
	}
	if s.ready != nil {
		r := <-s.ready
		r.watch.close()
		s.ready = nil
	}
	s.watch.close()
	s.bg.Wait()
	return workspace.RemoveAll(s.dir)
}
