// Package runtime says where a submission's processes run. The local runtime
// (package local) runs them as host processes in a per-group workspace copy;
// other runtimes (Docker) implement the same two interfaces so every adapter
// runs on every runtime unchanged.
package runtime

import (
	"context"
	"time"
)

// Runtime opens one Session per group.
type Runtime interface {
	// Open prepares a fresh workspace holding a copy of the submission.
	Open(ctx context.Context, spec SessionSpec) (Session, error)
	// Name identifies the runtime in reports ("local", "docker").
	Name() string
}

// SessionSpec describes the workspace a group gets.
type SessionSpec struct {
	// Submission is the directory copied into the workspace.
	Submission string
	// Label names the session (checkpoint/group) for directories and logs.
	Label string
	// StaticAssets maps asset name → host path (file or directory).
	StaticAssets map[string]string
}

// Session is a group's workspace and the place its processes run. A Session
// is used by one goroutine at a time.
type Session interface {
	// Workdir is the workspace path on the host; tracked files are read back
	// from here and input files written here.
	Workdir() string
	// StaticPath is the path at which a static asset is visible to the
	// submission's processes.
	StaticPath(name string) (string, bool)
	// Reset restores the workspace to a fresh copy of the submission.
	Reset(ctx context.Context) error
	// Exec runs one command to completion (or timeout).
	Exec(ctx context.Context, req ExecRequest) (ExecResult, error)
	// Close removes the workspace and anything still running.
	Close() error
}

// ExecRequest is one process to run inside a session.
type ExecRequest struct {
	Argv []string
	// Env is the complete environment for the process (the runtime adds
	// nothing but what it documents, e.g. HOME).
	Env   map[string]string
	Stdin []byte
	// Timeout bounds the wall time; the whole process tree is killed at it.
	Timeout time.Duration
	// OutputCap bounds bytes kept per stream; the rest is drained and
	// counted, never buffered.
	OutputCap int64
}

// ExecResult is what a finished process left behind.
type ExecResult struct {
	ExitCode int
	Stdout   []byte
	Stderr   []byte
	// StdoutDropped and StderrDropped count bytes discarded past OutputCap.
	StdoutDropped int64
	StderrDropped int64
	Elapsed       time.Duration
	TimedOut      bool
	// Signal is set when the process was killed by a signal (e.g. "killed").
	Signal string
}
