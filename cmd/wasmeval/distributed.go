package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/wasmeval/wasmeval/engine/distribute"
	"github.com/wasmeval/wasmeval/engine/envspec"
	"github.com/wasmeval/wasmeval/engine/manifest"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/run"
	"github.com/wasmeval/wasmeval/plugins/abi"
)

// queueFlags make `run` the coordinator of a distributed run: its groups
// go to workers through a NATS JetStream server (--queue), or to local
// worker processes through an embedded one (--workers).
type queueFlags struct {
	url        string
	creds      string
	workers    int
	slots      int
	maxPending int
	maxDeliver int
	ackWait    time.Duration
}

func (q *queueFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&q.url, "queue", "", "coordinate a distributed run: hand the groups to `wasmeval worker` processes through the NATS JetStream server at nats://HOST:PORT (several, comma-separated, for a cluster; user:password@ or TOKEN@ when it asks)")
	fl.StringVar(&q.creds, "queue-creds", "", "with --queue: authenticate with this NATS credentials `FILE` (a user JWT and its seed)")
	fl.IntVar(&q.workers, "workers", 0, "run the groups in N local worker processes, through an embedded NATS server (one machine, a crash of one worker loses nothing)")
	fl.IntVar(&q.slots, "slots", 1, "with --workers: groups each local worker runs at once; the queue then hands out at most --workers × --slots groups at a time")
	fl.IntVar(&q.maxPending, "max-pending", 0, "with --queue: at most this many groups handed out and not yet finished, over all the workers serving the queue (give their slots together); default "+strconv.Itoa(distribute.DefaultConfig.MaxAckPending))
	fl.IntVar(&q.maxDeliver, "max-deliver", distribute.DefaultConfig.MaxDeliver, "with --queue or --workers: how many times a group is handed out before its cases are recorded as errors of the harness")
	fl.DurationVar(&q.ackWait, "ack-wait", distribute.DefaultConfig.AckWait, "with --queue or --workers: how long a worker may go silent before its group is handed to another")
}

func (q *queueFlags) on() bool { return q.url != "" || q.workers > 0 }

// check refuses the flags that go with --queue or --workers given
// without them (they would do nothing).
func (q *queueFlags) check(changed func(string) bool) error {
	if q.on() {
		return nil
	}
	for _, name := range []string{"slots", "max-pending"} {
		if changed(name) {
			return fmt.Errorf("run: --%s goes with --queue or --workers (a distributed run)", name)
		}
	}
	return nil
}

// config is the work queue's behaviour. Its unacknowledged limit
// (MaxAckPending) is the slots of the workers together when this run
// knows them (--workers N --slots S), else --max-pending: workers on
// other machines each ask for no more groups than they have free slots,
// which bounds the groups in flight whatever the limit, and the limit
// caps them over all workers (the server's default otherwise).
func (q *queueFlags) config() distribute.Config {
	pending := q.maxPending
	if q.workers > 0 {
		pending = q.workers * q.slots
	}
	return distribute.Config{AckWait: q.ackWait, MaxDeliver: q.maxDeliver, MaxAckPending: pending}
}

// distributed is a coordinator and what it started.
type distributed struct {
	coord *distribute.Coordinator
	close func()
}

// coordinator connects to the queue (starting the embedded server and the
// worker processes for --workers) and makes the run's executor.
func (q *queueFlags) coordinator(ctx context.Context, f runFlags, p *problem.Problem, checked []run.GroupCheck, problemPath, submission, runtimeName, runID, outDir string, log io.Writer) (*distributed, error) {
	if q.url != "" && q.workers > 0 {
		return nil, usageErr(errors.New("run: give --queue (workers elsewhere) or --workers (local ones), not both"))
	}
	if q.creds != "" && q.url == "" {
		return nil, usageErr(errors.New("run: --queue-creds goes with --queue (the server of --workers asks for none)"))
	}
	if q.workers < 0 || q.maxDeliver < 1 || q.ackWait < time.Second {
		return nil, usageErr(fmt.Errorf("run: --workers must be positive, --max-deliver at least 1 and --ack-wait at least 1s"))
	}
	switch {
	case q.slots < 1:
		return nil, usageErr(fmt.Errorf("run: --slots must be at least 1, got %d", q.slots))
	case q.maxPending < 0:
		return nil, usageErr(fmt.Errorf("run: --max-pending must be at least 1, got %d", q.maxPending))
	case q.workers > 0 && q.maxPending > 0:
		return nil, usageErr(errors.New("run: --max-pending goes with --queue; with --workers the limit is --workers × --slots"))
	case q.url != "" && q.slots != 1:
		return nil, usageErr(errors.New("run: --slots is each local worker's (--workers); workers on other machines take theirs from `wasmeval worker --slots`, and --max-pending caps them together"))
	}
	if f.results != "" {
		return nil, usageErr(errors.New("run: --results is scored in this process; --queue and --workers run submissions"))
	}
	d := &distributed{close: func() {}}
	url := q.url
	if q.workers > 0 {
		store, err := os.MkdirTemp("", "wasmeval-nats-")
		if err != nil {
			return nil, err
		}
		srv, err := distribute.StartEmbedded(store)
		if err != nil {
			os.RemoveAll(store)
			return nil, err
		}
		url = srv.URL()
		stopWorkers, err := startWorkers(q.workers, q.slots, url, runtimeName, filepath.Join(outDir, "workers.log"), f)
		if err != nil {
			srv.Stop()
			os.RemoveAll(store)
			return nil, err
		}
		d.close = func() {
			stopWorkers()
			srv.Stop()
			os.RemoveAll(store)
		}
	}
	nc, js, err := distribute.Connect(ctx, url, "wasmeval coordinator "+runID, distribute.WithCreds(q.creds))
	if err != nil {
		d.close()
		return nil, usageErr(fmt.Errorf("run: %w", err))
	}
	closeRest := d.close
	d.close = func() { nc.Close(); closeRest() }
	problemDir, err := filepath.Abs(problemPath)
	if st, serr := os.Stat(problemDir); err != nil || serr != nil || !st.IsDir() {
		d.close()
		return nil, usageErr(fmt.Errorf("run: --queue and --workers ship a problem directory; %s is not one", problemPath))
	}
	// Everything a group needs travels with its job: the problem, the
	// submission, the plugins found outside the problem, the environment
	// spec and the seed, so a worker runs it as this machine would.
	envSpec := f.env.env
	if envSpec == "" {
		envSpec = p.Environment
	}
	if envSpec != "" {
		if envSpec, err = filepath.Abs(envSpec); err != nil {
			d.close()
			return nil, err
		}
	}
	mounts, err := mountSources(envSpec, p.Dir, f.env.mountRoots)
	if err != nil {
		d.close()
		return nil, usageErr(fmt.Errorf("run: %w", err))
	}
	// The plugins the cases bind are known once their loaders ran
	// (validation loaded every case): those from outside the problem
	// travel too.
	var caseRefs []*problem.PluginRef
	for _, g := range checked {
		caseRefs = append(caseRefs, g.Plugins...)
	}
	plugins, err := distribute.PluginsOutside(p, caseRefs...)
	if err != nil {
		d.close()
		return nil, usageErr(fmt.Errorf("run: %w", err))
	}
	// What the problem and its cases read from outside the problem,
	// under a --mount-root (validation loaded every case), travels too:
	// a worker reads the same bytes at the paths the problem names.
	paths, err := distribute.PathsOutside(p)
	if err != nil {
		d.close()
		return nil, usageErr(fmt.Errorf("run: %w", err))
	}
	d.coord = &distribute.Coordinator{Conn: nc, JS: js, Config: q.config(), RunID: runID, Version: version, ABI: abi.Version,
		ProblemDir: problemDir, Submission: submission, Plugins: plugins, EnvSpec: envSpec, Mounts: mounts, Paths: paths,
		Needs: distribute.HostCapability(runtimeName), Log: log,
		Settings: distribute.Settings{Command: f.command, RetryErrors: f.retryErrors, RetryBackoff: f.retryWait.Seconds(), Browser: f.browser, NoCache: f.cache.off,
			Seed: f.seed.value()}}
	return d, nil
}

// mountSources lists the sources of the environment spec's mounts, each
// to be sent with the jobs: a path of this machine means nothing on a
// worker, inside the problem or not. A writable mount is refused: each
// worker would write to its own copy, not to the directory the spec
// names, which is not the run the spec asks for.
func mountSources(envSpec, problemDir string, mountRoots []string) ([]distribute.MountFile, error) {
	if envSpec == "" {
		return nil, nil
	}
	spec, err := envspec.Load(envSpec, append([]string{problemDir}, mountRoots...)...)
	if err != nil {
		return nil, fmt.Errorf("invalid environment spec:\n%w", err)
	}
	var out []distribute.MountFile
	for i, m := range spec.Mounts {
		if m.Writable {
			return nil, fmt.Errorf("environment spec %s: mounts[%d] (%s at %s) is writable: a distributed run's workers would each write to a copy of it, not to %s; make it read-only, or run on one machine without --queue and --workers",
				envSpec, i, m.Source, m.Target, m.Source)
		}
		st, err := os.Stat(m.Source)
		if err != nil {
			return nil, fmt.Errorf("environment spec %s: mounts[%d].source: %w", envSpec, i, err)
		}
		out = append(out, distribute.MountFile{Index: i, Path: m.Source, Dir: st.IsDir()})
	}
	return out, nil
}

// record lists in the manifest the workers that ran each group.
func (d *distributed) record(m *manifest.Manifest) {
	if d == nil {
		return
	}
	m.Workers = d.coord.Workers()
}

// startWorkers starts n `wasmeval worker` processes of this binary on
// url with slots slots each, their output appended to logPath, and
// returns what stops them.
func startWorkers(n, slots int, url, runtimeName, logPath string, f runFlags) (func(), error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("--workers: find this program: %w", err)
	}
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("--workers: %w", err)
	}
	var cmds []*exec.Cmd
	stop := func() {
		for _, c := range cmds {
			_ = c.Process.Signal(syscall.SIGTERM)
		}
		for _, c := range cmds {
			_ = c.Wait()
		}
		logf.Close()
	}
	for i := 1; i <= n; i++ {
		args := []string{"worker", "--queue", url, "--slots", strconv.Itoa(slots), "--runtime", runtimeName, "--name", "local-" + strconv.Itoa(i)}
		for _, dir := range f.plugins.dirs {
			args = append(args, "--plugin-dir", dir)
		}
		c := exec.Command(self, args...)
		c.Stdout, c.Stderr = logf, logf
		if err := c.Start(); err != nil {
			stop()
			return nil, fmt.Errorf("--workers: start worker %d: %w", i, err)
		}
		cmds = append(cmds, c)
	}
	return stop, nil
}
