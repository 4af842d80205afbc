// Package local runs submissions as host processes, each group in its own
// copy of the submission. It is the default runtime: nothing to install,
// fastest to start, and isolation by process group and workspace rather
// than by container (use the Docker runtime for untrusted code).
package local

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/workspace"
)

// Options configures the local runtime.
type Options struct {
	// BaseDir holds the per-group workspaces (default: the OS temp dir).
	BaseDir string
	// MemoryBytes caps the memory each process of a case may allocate
	// (its data segment and private writable mappings, RLIMIT_DATA); its
	// children inherit the cap. 0 means no cap. Unlike a container's, the
	// cap is per process, not for the group's processes together.
	MemoryBytes int64
}

// Runtime is the local runtime.
type Runtime struct {
	opts Options
}

// New returns a local runtime.
func New(opts Options) *Runtime {
	if opts.BaseDir == "" {
		opts.BaseDir = os.TempDir()
	}
	return &Runtime{opts: opts}
}

// Name implements runtime.Runtime.
func (r *Runtime) Name() string { return "local" }

// Open copies the submission into a fresh workspace.
func (r *Runtime) Open(ctx context.Context, spec runtime.SessionSpec) (runtime.Session, error) {
	dir, err := workspace.NewSessionDir(r.opts.BaseDir, spec.Label, spec.Submission)
	if err != nil {
		return nil, err
	}
	work := filepath.Join(dir, "work")
	if err := workspace.Copy(work, spec.Submission); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("copy submission into workspace: %w", err)
	}
	return newSession(dir, work, spec, r.opts.MemoryBytes)
}

func newToken() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}
