package docker

import (
	"context"
	"fmt"
	"net"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/client"

	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/runtime/docker/executor"
	"github.com/wasmeval/wasmeval/engine/workspace"
)

// session is one group's container and workspace.
type session struct {
	rt         *Runtime
	cli        *client.Client
	id         string // container ID
	name       string // the current container's name
	startedAt  string // when the current container started (a restart changes it)
	dir        string // host session directory (holds work/)
	work       string // host workspace, mounted at the spec's workdir
	submission string
	static     map[string]string // asset name → container path
	label      string
	assets     map[string]string
	oom        *oomWatch

	mu sync.Mutex
	// broken is set when the container could not be replaced after a
	// failed kill; every later exec fails with it.
	broken error
	count  *taskCounter // the container's tasks, seen from the host (nil: not visible)
	// noHostCount makes every container settle from inside, as when the
	// host's cgroups are not visible (tests of that path set it).
	noHostCount bool
	procs       []*process
	fwds        []*forwarder
	ups         []*upstream // services of the engine's the container reaches
	closed      bool
	// exe is the current container's executor, and execPID its host PID
	// (the container's init); nil and 0 on the exec path.
	exe     *executor.Conn
	execPID int
}

// Open copies the submission into a fresh host workspace and starts the
// group's container.
func (r *Runtime) Open(ctx context.Context, spec runtime.SessionSpec) (runtime.Session, error) {
	dir, err := workspace.NewSessionDir(r.opts.BaseDir, spec.Label, spec.Submission)
	if err != nil {
		return nil, err
	}
	label := workspace.SafeLabel(spec.Label)
	s := &session{rt: r, cli: r.cli, dir: dir, work: filepath.Join(dir, "work"), submission: spec.Submission,
		static: map[string]string{}, label: label, assets: spec.StaticAssets}
	if err := s.makeWorkdir(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := s.fill(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := s.create(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func numericUser(u string) (uid, gid int, ok bool) {
	if u == "" {
		return 0, 0, false
	}
	name, group, _ := strings.Cut(u, ":")
	uid, err := strconv.Atoi(name)
	if err != nil {
		return 0, 0, false
	}
	gid = uid
	if group != "" {
		if gid, err = strconv.Atoi(group); err != nil {
			return 0, 0, false
		}
	}
	return uid, gid, true
}

func (s *session) create(ctx context.Context) error {
	spec, label, assets := s.rt.opts.Spec, s.label, s.assets
	mounts := []mount.Mount{
		{Type: mount.TypeBind, Source: s.work, Target: spec.Workdir},
		{Type: mount.TypeBind, Source: s.rt.helper, Target: helperPath, ReadOnly: true},
	}
	for name, host := range assets {
		abs, err := filepath.Abs(host)
		if err != nil {
			return err
		}
		st, err := os.Stat(abs)
		if err != nil {
			return fmt.Errorf("static asset %s: %w", name, err)
		}
		// A file keeps its name (some programs look at the extension).
		target := path.Join(staticRoot, name)
		if !st.IsDir() {
			target = path.Join(target, filepath.Base(abs))
		}
		mounts = append(mounts, mount.Mount{Type: mount.TypeBind, Source: abs, Target: target, ReadOnly: true})
		s.static[name] = target
	}
	for _, m := range spec.Mounts {
		mounts = append(mounts, mount.Mount{Type: mount.TypeBind, Source: m.Source, Target: m.Target, ReadOnly: !m.Writable})
	}
	env := []string{}
	for k, v := range spec.Env {
		env = append(env, k+"="+v)
	}
	// tini as PID 1 reaps orphans, so processes killed at a timeout do
	// not linger as zombies counting against the pids limit; the
	// executor, where there is one, is PID 1 and does that itself.
	init := s.rt.exe == nil
	entry := []string{helperPath, "sleep", "2147483647"}
	var ctl *net.UnixListener
	if s.rt.exe != nil {
		var err error
		if ctl, err = s.controlListener(); err != nil {
			return err
		}
		defer func() {
			ctl.Close()
			os.Remove(filepath.Join(s.dir, "ctl", controlSock))
		}()
		mounts = append(mounts, s.executorMounts()...)
		entry = append(append([]string{}, s.rt.exe.entry...), controlDir+"/"+controlSock)
	}
	pids := spec.Pids
	hc := &container.HostConfig{
		Mounts:      mounts,
		NetworkMode: container.NetworkMode(spec.Network),
		Init:        &init,
		SecurityOpt: []string{"no-new-privileges"},
		Resources: container.Resources{
			NanoCPUs:  spec.NanoCPUs,
			Memory:    spec.Memory,
			PidsLimit: &pids,
		},
	}
	if spec.Memory > 0 {
		hc.Resources.MemorySwap = spec.Memory // no swap on top of the limit
	}
	name := fmt.Sprintf("wasmeval-%s-%s-%s", s.rt.runID, trimLabel(label), newID())
	resp, err := s.cli.ContainerCreate(ctx, &container.Config{
		Image:      spec.Image,
		Entrypoint: entry,
		Cmd:        nil,
		WorkingDir: spec.Workdir,
		User:       spec.User,
		Env:        env,
		Labels:     s.rt.labels(label),
		// No stdin, no tty: cases get their own streams through exec.
	}, hc, nil, nil, name)
	if err != nil {
		return fmt.Errorf("create container from %s: %w", spec.Image, err)
	}
	s.mu.Lock()
	s.id, s.name = resp.ID, name
	s.mu.Unlock()
	s.oom = watchOOM(s.cli, resp.ID)
	if err := s.cli.ContainerStart(ctx, resp.ID, container.StartOptions{}); err != nil {
		return fmt.Errorf("start container from %s: %w", spec.Image, err)
	}
	var x *executor.Conn
	if ctl != nil {
		if x, err = s.acceptExecutor(ctx, ctl, resp.ID); err != nil {
			return err
		}
		// A replaced container reaches the group's upstreams at the
		// addresses the group was given, before anything runs in it.
		if err := s.reforward(x); err != nil {
			x.Close()
			return err
		}
	}
	in, err := s.cli.ContainerInspect(ctx, resp.ID)
	if err != nil {
		return fmt.Errorf("inspect container: %w", err)
	}
	var count *taskCounter
	s.mu.Lock()
	fromInside := s.noHostCount
	s.mu.Unlock()
	if in.State != nil && !fromInside {
		// Not visible (the engine runs in another PID or cgroup namespace
		// than the daemon): every case is then settled by a sweep.
		count, _ = hostTaskCounter(in.State.Pid, resp.ID)
	}
	s.mu.Lock()
	s.count = count
	s.exe, s.execPID = x, 0
	if in.State != nil {
		s.startedAt = in.State.StartedAt
		if x != nil {
			s.execPID = in.State.Pid
		}
	}
	s.mu.Unlock()
	return nil
}

// recycle replaces the container with a fresh one on the same workspace;
// everything running in the old one dies with it.
func (s *session) recycle(ctx context.Context) error {
	s.oom.close()
	s.mu.Lock()
	if s.exe != nil {
		s.exe.Close()
		s.exe, s.execPID = nil, 0
	}
	s.mu.Unlock()
	// Someone else may be removing it already (the daemon then refuses a
	// second removal until the first is done).
	for {
		err := s.cli.ContainerRemove(ctx, s.id, container.RemoveOptions{Force: true, RemoveVolumes: true})
		if err == nil || client.IsErrNotFound(err) {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("remove container: %w", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
	s.mu.Lock()
	s.id, s.count, s.startedAt = "", nil, ""
	s.mu.Unlock()
	return s.create(ctx)
}

// container is the current container's ID (it changes when a container
// is replaced; forwarders read it from their own goroutines).
func (s *session) container() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id
}

func trimLabel(l string) string {
	if len(l) > 40 {
		return l[:40]
	}
	return l
}

func (s *session) Workdir() string { return s.work }

// StaticPath is the asset's path inside the container.
func (s *session) StaticPath(name string) (string, bool) {
	p, ok := s.static[name]
	return p, ok
}

// Close stops every process, removes the container and the workspace. It
// works on a context of its own: after Ctrl-C the run's is canceled, and
// the container must go all the same.
func (s *session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	fwds, procs := s.fwds, s.procs
	s.mu.Unlock()
	for _, f := range fwds {
		f.close()
	}
	s.closeUpstreams()
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	var err error
	if id := s.container(); id != "" {
		// Emptied while the container still runs: files its user made
		// that the engine's user cannot delete are removed from inside.
		s.empty(ctx)
		if rmErr := s.cli.ContainerRemove(ctx, id, container.RemoveOptions{Force: true, RemoveVolumes: true}); rmErr != nil && !client.IsErrNotFound(rmErr) {
			err = fmt.Errorf("remove container: %w", rmErr)
		}
	}
	for _, p := range procs {
		<-p.exited // the container is gone, so are its processes
	}
	if x := s.executorConn(); x != nil {
		x.Close()
	}
	s.oom.close()
	if rmErr := workspace.RemoveAll(s.dir); rmErr != nil && err == nil {
		err = fmt.Errorf("remove workspace: %w", rmErr)
	}
	return err
}
