// Package runtime says where a submission's processes run. The local runtime
// (package local) runs them as host processes in a per-group workspace copy;
// other runtimes (Docker) implement the same two interfaces so every adapter
// runs on every runtime unchanged.
package runtime

import (
	"context"
	"io"
	"time"
)

// SessionEnv is the variable runtimes add to every process a case starts.
// Descendants inherit it, which lets a runtime find and kill processes that
// left the process group (setsid, double fork, orphans) when a case times
// out or the group ends.
const SessionEnv = "WASMEVAL_SESSION"

// DefaultOutputCap bounds each output stream when a request sets no cap.
const DefaultOutputCap = 16 << 20

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
	// Private lists host directories the submission's processes must not
	// read: the problem directory (expected outputs) and the run directory
	// (the journal). A container runtime never mounts them; the local
	// runtime covers them where it runs cases in namespaces.
	Private []string
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
	// Endpoint picks the address a server started in this session listens
	// on, and the address the engine reaches it at. Each call may return a
	// different port.
	Endpoint(ctx context.Context) (Endpoint, error)
	// Start launches a long-running process (a submission's server) and
	// returns once it has started, without waiting for it to exit. It is
	// stopped by Process.Stop, or at the latest by Close. Timeouts of Exec
	// calls in the same session never touch it.
	Start(ctx context.Context, req StartRequest) (Process, error)
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
	// OOMKilled is set when the kernel killed the process for exceeding
	// the memory limit (runtimes that enforce one).
	OOMKilled bool
}

// Endpoint is where a server in a session listens and how the engine reaches
// it. On the local runtime both are the loopback interface; in a container
// the server binds inside the container and the engine dials the container.
type Endpoint struct {
	// Host and Port are what the server binds: substituted into its command
	// as {{host}} and {{port}}.
	Host string
	Port int
	// Dial is the host:port the engine connects to.
	Dial string
}

// StartRequest is a long-running process to start inside a session.
type StartRequest struct {
	Argv []string
	// Env is the complete environment for the process.
	Env map[string]string
	// Stdout and Stderr receive the process's output as it is written; the
	// caller decides what to keep (the API adapter keeps logs as artifacts
	// and a tail for error messages). Nil discards. Writes come from one
	// goroutine per stream.
	Stdout, Stderr io.Writer
}

// Process is a running long-lived process.
type Process interface {
	// Exited is closed when the process has exited (by itself or by Stop).
	Exited() <-chan struct{}
	// State reports how the process ended; valid once Exited is closed.
	State() ExitState
	// Stop kills the process and everything it started, and waits for it.
	// Stopping an exited process is a no-op.
	Stop() error
}

// ExitState is how a process ended.
type ExitState struct {
	ExitCode int
	// Signal is set when the process was killed by a signal.
	Signal string
}
