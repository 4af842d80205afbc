//go:build linux

package local

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/workspace"
)

// SessionEnv is the variable the local runtime adds to every process it
// starts. Descendants inherit it, which lets the runtime find and kill
// processes that left the process group (setsid, double fork) when a case
// times out or the group ends.
const SessionEnv = "WASMEVAL_SESSION"

// session is one group's workspace.
type session struct {
	dir        string // session directory (holds work/)
	work       string
	submission string
	assets     map[string]string
	token      string
}

func (s *session) Workdir() string { return s.work }

// StaticPath exposes assets in place: the host path itself.
func (s *session) StaticPath(name string) (string, bool) {
	p, ok := s.assets[name]
	return p, ok
}

func newSession(dir, work string, spec runtime.SessionSpec) (runtime.Session, error) {
	return &session{dir: dir, work: work, submission: spec.Submission, assets: spec.StaticAssets, token: newToken()}, nil
}

// Reset kills whatever the previous case left running and restores a fresh
// copy of the submission.
func (s *session) Reset(ctx context.Context) error {
	killSession(s.token)
	if err := removeAll(s.work); err != nil {
		return fmt.Errorf("reset workspace: %w", err)
	}
	if err := workspace.Copy(s.work, s.submission); err != nil {
		return fmt.Errorf("reset workspace: %w", err)
	}
	return nil
}

// Close kills anything still running from this session and removes the
// workspace.
func (s *session) Close() error {
	killSession(s.token)
	return removeAll(s.dir)
}

// removeAll removes a tree even when a submission made parts of it
// read-only.
func removeAll(dir string) error {
	if err := os.RemoveAll(dir); err == nil {
		return nil
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}
