// Package local runs submissions as host processes, each group in its own
// copy of the submission. It is the default runtime: nothing to install and
// fastest to start. Each process of a case runs under a launcher that
// contains it — in PID and mount namespaces where the kernel allows it,
// else as a child subreaper — but it shares the host's filesystem, network
// and user with the engine: use the Docker runtime for untrusted code (see
// RATIONALE.md and docs/running.md).
package local

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/workspace"
)

// Options configures the local runtime.
type Options struct {
	// BaseDir holds the per-group workspaces (default: the OS temp dir).
	// A BaseDir given is this runtime's own: with namespaces, each
	// group's processes see only their own session directory in it, not
	// another group's workspace.
	BaseDir string
	// MemoryBytes caps the memory each process of a case may allocate
	// (its data segment and private writable mappings, RLIMIT_DATA); its
	// children inherit the cap. 0 means no cap. Unlike a container's, the
	// cap is per process, not for the group's processes together.
	MemoryBytes int64
	// Isolation picks how processes are contained (default: namespaces
	// where available, else process isolation).
	Isolation Isolation
}

// Isolation says how the local runtime contains a case's processes.
type Isolation string

const (
	// IsolationAuto uses namespaces where the kernel allows them, and
	// process isolation elsewhere.
	IsolationAuto Isolation = ""
	// IsolationNamespaces runs each process of a case as the first
	// process of a new PID and mount namespace: the case sees only its
	// own processes, cannot signal the engine, has the problem and run
	// directories covered, and everything it started dies with it.
	IsolationNamespaces Isolation = "namespaces"
	// IsolationProcess runs each process under a launcher that is a
	// child subreaper: everything the program starts, whatever its
	// session, group or environment, is killed when it ends. The program
	// can still see and signal other processes of the same user.
	IsolationProcess Isolation = "process"
)

// Runtime is the local runtime.
type Runtime struct {
	opts      Options
	ownBase   bool // BaseDir was given: the sessions' own (see Options)
	isoOnce   sync.Once
	isolation Isolation
	isoErr    error
}

// New returns a local runtime.
func New(opts Options) *Runtime {
	own := opts.BaseDir != ""
	if !own {
		opts.BaseDir = os.TempDir()
	}
	return &Runtime{opts: opts, ownBase: own}
}

// Name implements runtime.Runtime.
func (r *Runtime) Name() string { return "local" }

// Isolation reports how this runtime contains processes: the one asked
// for, or for IsolationAuto what this machine allows.
func (r *Runtime) Isolation() (Isolation, error) {
	r.isoOnce.Do(func() { r.isolation, r.isoErr = resolveIsolation(r.opts.Isolation) })
	return r.isolation, r.isoErr
}

// Open copies the submission into a fresh workspace.
func (r *Runtime) Open(ctx context.Context, spec runtime.SessionSpec) (runtime.Session, error) {
	iso, err := r.Isolation()
	if err != nil {
		return nil, err
	}
	dir, err := workspace.NewSessionDir(r.opts.BaseDir, spec.Label, spec.Submission)
	if err != nil {
		return nil, err
	}
	work := filepath.Join(dir, "work")
	if err := workspace.Copy(work, spec.Submission); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("copy submission into workspace: %w", err)
	}
	siblings := ""
	if r.ownBase {
		siblings = r.opts.BaseDir
	}
	return newSession(dir, work, siblings, spec, r.opts.MemoryBytes, iso == IsolationNamespaces)
}

func newToken() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}
