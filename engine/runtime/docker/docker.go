// Package docker runs submissions in containers through the Docker Engine
// API. Each group gets one long-lived container with its workspace
// bind-mounted read-write and the problem's static assets read-only under
// /static/<name>. The container's PID 1 is the executor (package
// executor: this binary, re-executed), which runs every case on request
// over a socket at a few milliseconds each; where it cannot be used,
// every case is an exec into the warm container instead (see
// RATIONALE.md).
//
// The workspace, the static assets, the executor and a static busybox
// (the in-container helper: the exec path's case wrapper, the
// process-tree killer and the port forwarder) are bind mounts, so the
// engine must run on the Docker host itself.
package docker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/docker/docker/client"

	"github.com/wasmeval/wasmeval/engine/envspec"
)

// Labels put on everything the runtime creates, so a crashed run's
// leftovers can be found and removed (wasmeval env clean).
const (
	LabelManaged = "io.wasmeval.managed"
	LabelRun     = "io.wasmeval.run"
	LabelSession = "io.wasmeval.session"
	LabelPID     = "io.wasmeval.pid"
	LabelHost    = "io.wasmeval.host"
)

// Container paths the runtime reserves.
const (
	helperPath = "/.wasmeval/busybox"
	staticRoot = "/static"
)

// cleanupTimeout bounds removing a container once its group is over,
// including after Ctrl-C (when the run's context is already canceled).
const cleanupTimeout = 30 * time.Second

// Options configures the Docker runtime.
type Options struct {
	// Spec is the environment (image, limits, network, mounts). Required.
	Spec *envspec.Spec
	// BaseDir holds the per-group workspaces on the host (default: the OS
	// temp dir). It must be visible to the Docker daemon at the same path.
	BaseDir string
	// Client talks to the engine; nil connects from the environment
	// (DOCKER_HOST etc.) with API version negotiation.
	Client *client.Client
	// ExecPerCase runs every case through an exec into the group's
	// container instead of the container's executor (also set by
	// WASMEVAL_DOCKER_CASES=exec).
	ExecPerCase bool
}

// Runtime is the Docker runtime for one run.
type Runtime struct {
	opts   Options
	cli    *client.Client
	ownCli bool
	runID  string
	helper string
	// imageID is the image's content digest (sha256:…), for the manifest.
	imageID string
	// imagePath is the image's own PATH, used when the request's PATH is
	// the engine host's (which means nothing in the container).
	imagePath string
	// exe is how this binary serves as each container's executor; nil
	// when cases run through an exec each, and note then says why.
	exe  *executorBin
	note string
}

// New connects to the engine and checks, before any case runs, that it
// answers, that the image exists and that the in-container helper is
// available.
func New(ctx context.Context, opts Options) (*Runtime, error) {
	if opts.Spec == nil || opts.Spec.Runtime != envspec.Docker {
		return nil, errors.New("docker runtime: an environment spec with runtime: docker is required")
	}
	if opts.BaseDir == "" {
		opts.BaseDir = os.TempDir()
	}
	r := &Runtime{opts: opts, cli: opts.Client, runID: newID()}
	if r.cli == nil {
		cli, err := Connect()
		if err != nil {
			return nil, err
		}
		r.cli, r.ownCli = cli, true
	}
	fail := func(err error) (*Runtime, error) {
		r.closeClient()
		return nil, err
	}
	if _, err := Ping(ctx, r.cli); err != nil {
		return fail(err)
	}
	img, err := r.cli.ImageInspect(ctx, opts.Spec.Image)
	if err != nil {
		return fail(imageError(opts.Spec, err))
	}
	r.imageID = img.ID
	if img.Config != nil {
		for _, e := range img.Config.Env {
			if len(e) > 5 && e[:5] == "PATH=" {
				r.imagePath = e[5:]
			}
		}
	}
	if r.imagePath == "" {
		r.imagePath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	}
	if r.helper, err = FindBusybox(); err != nil {
		return fail(err)
	}
	switch {
	case opts.ExecPerCase || os.Getenv(ExecPerCaseEnv) == "exec":
	default:
		v, err := r.cli.ServerVersion(ctx)
		if err != nil {
			return fail(fmt.Errorf("docker engine at %s: version: %w", r.cli.DaemonHost(), err))
		}
		if r.exe, err = findExecutor(v.Arch); err != nil {
			r.note = "docker runtime: every case runs through an exec into its container (about 50 ms each): " + err.Error()
		}
	}
	return r, nil
}

// Note is what a user should know about how this runtime runs cases: set
// when the in-container executor cannot be used, and cases run through an
// exec each instead.
func (r *Runtime) Note() string { return r.note }

// UsesExecutor reports whether cases run through each container's
// executor (else through an exec each).
func (r *Runtime) UsesExecutor() bool { return r.exe != nil }

// Name implements runtime.Runtime.
func (r *Runtime) Name() string { return "docker" }

// Images maps the spec's image reference to the content digest the engine
// resolved it to: what the run's manifest records, so a result can be
// traced to the exact image even when a tag is later rebuilt.
func (r *Runtime) Images() map[string]string {
	return map[string]string{r.opts.Spec.Image: r.imageID}
}

// RunID is the value of LabelRun on this run's containers.
func (r *Runtime) RunID() string { return r.runID }

// Close removes anything of this run still left (containers of sessions
// that were never closed) and disconnects.
func (r *Runtime) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	_, err := removeLabelled(ctx, r.cli, LabelRun+"="+r.runID)
	r.closeClient()
	return err
}

func (r *Runtime) closeClient() {
	if r.ownCli {
		r.cli.Close()
	}
}

func (r *Runtime) labels(session string) map[string]string {
	host, _ := os.Hostname()
	return map[string]string{
		LabelManaged: "true",
		LabelRun:     r.runID,
		LabelSession: session,
		LabelPID:     strconv.Itoa(os.Getpid()),
		LabelHost:    host,
	}
}

// Connect opens a client from the environment (DOCKER_HOST, DOCKER_CERT_PATH…)
// that negotiates the API version with the engine.
func Connect() (*client.Client, error) {
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, fmt.Errorf("docker: configure client: %w", err)
	}
	return cli, nil
}

func imageError(spec *envspec.Spec, err error) error {
	if client.IsErrNotFound(err) {
		return fmt.Errorf("%s: image: %q does not exist in the Docker engine (images are never pulled: build or load it first, e.g. docker load / docker import)", spec.File, spec.Image)
	}
	return fmt.Errorf("%s: image %q: %w", spec.File, spec.Image, err)
}

func newID() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// newToken is a process-tree marker. Fixed length, so no marker is a
// prefix of another and a plain substring search finds exactly its own.
func newToken() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}
