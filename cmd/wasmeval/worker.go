package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/spf13/cobra"

	"github.com/wasmeval/wasmeval/engine/distribute"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/run"
	"github.com/wasmeval/wasmeval/engine/workspace"
	"github.com/wasmeval/wasmeval/plugins/abi"
)

type workerFlags struct {
	queue    string
	creds    string
	slots    int
	name     string
	cache    string
	runtimes []string
	plugins  pluginFlags
	cacheF   cacheFlags
	env      envFlags
}

func newWorkerCmd() *cobra.Command {
	var f workerFlags
	cmd := &cobra.Command{
		Use:   "worker --queue nats://HOST:PORT",
		Short: "Run the groups of distributed runs handed out through a NATS JetStream server",
		Long: `Pull group jobs of distributed runs (wasmeval run --queue) from the NATS
JetStream server at --queue and run them, at most --slots at once, on the
runtimes given with --runtime. Each case's record goes back to the run's
coordinator as it finishes. A job of another wasmeval version or plugin
ABI is refused, as is a problem or submission whose digest differs.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runWorker(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.queue, "queue", "", "the NATS JetStream server, nats://HOST:PORT (several, comma-separated, for a cluster; user:password@ or TOKEN@ when it asks)")
	fl.StringVar(&f.creds, "queue-creds", "", "authenticate with this NATS credentials `FILE` (a user JWT and its seed)")
	fl.IntVar(&f.slots, "slots", 1, "groups run at once")
	host, _ := os.Hostname()
	fl.StringVar(&f.name, "name", fmt.Sprintf("%s-%d", host, os.Getpid()), "the worker's name in run manifests")
	fl.StringVar(&f.cache, "cache", "", "where fetched problems and submissions are kept (default: the user cache dir)")
	fl.StringArrayVar(&f.runtimes, "runtime", []string{"local"}, "runtime offered (local, docker; repeatable): the worker takes the groups that need one of them")
	f.plugins.register(fl)
	f.cacheF.register(fl)
	fl.StringArrayVar(&f.env.mountRoots, "mount-root", nil, "host directory outside the problem that an environment spec may mount from and the problem's paths may name, where the coordinator did not send them (repeatable)")
	return cmd
}

func runWorker(cmd *cobra.Command, f workerFlags) error {
	if f.queue == "" {
		return usageErr(fmt.Errorf("worker: --queue nats://HOST:PORT is required"))
	}
	if f.slots < 1 {
		return usageErr(fmt.Errorf("worker: --slots must be at least 1, got %d", f.slots))
	}
	var caps []distribute.Capability
	for _, rt := range f.runtimes {
		if rt != "local" && rt != "docker" {
			return usageErr(fmt.Errorf("worker: --runtime %q: want local or docker", rt))
		}
		caps = append(caps, distribute.HostCapability(rt))
	}
	cache := f.cache
	if cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return usageErr(fmt.Errorf("worker: no user cache dir (%v): give --cache DIR", err))
		}
		cache = filepath.Join(dir, "wasmeval", "worker")
	}
	ctx := cmd.Context()
	nc, js, err := distribute.Connect(ctx, f.queue, "wasmeval worker "+f.name, distribute.WithCreds(f.creds))
	if err != nil {
		return usageErr(fmt.Errorf("worker: %w", err))
	}
	defer nc.Close()
	plugins, err := f.plugins.newHost(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer plugins.Close()
	work, err := workspace.NewRunDir()
	if err != nil {
		return fmt.Errorf("create work directory: %w", err)
	}
	defer os.RemoveAll(work)
	var closersMu sync.Mutex
	var closers []func()
	defer func() {
		for _, c := range closers {
			c()
		}
	}()
	w := &distribute.Worker{Conn: nc, JS: js, Name: f.name, Slots: f.slots, Capabilities: caps, Version: version, ABI: abi.Version,
		CacheDir: cache, Log: cmd.ErrOrStderr(),
		// A job's problem is loaded and its runtime opened once per
		// problem, submission and settings.
		Prepare: func(ctx context.Context, job *distribute.Job, a *distribute.Fetched) (distribute.GroupRunner, error) {
			// The plugins the coordinator found outside the problem come
			// first, so each binding resolves to the file it resolved to
			// there; the worker's own directories are searched after.
			dirs := f.plugins.dirs
			if a.PluginDir != "" {
				dirs = append([]string{a.PluginDir}, dirs...)
			}
			src, err := loadSource(a.ProblemDir, sourceOptions{pluginDirs: dirs, mountRoots: f.env.mountRoots, refs: a.Refs, shipped: a.Shipped, paths: a.Paths,
				functions: functionsOf(ctx, plugins), setup: setupOf(ctx, plugins)})
			if err != nil {
				return nil, fmt.Errorf("the problem does not load on this worker: %w", err)
			}
			// As run --seed applies it: loader plugins and every case's
			// environment see it.
			seed := seedFlag{v: job.Settings.Seed}
			seed.apply(src.problem)
			env := f.env
			env.env = a.EnvSpec
			env.shippedMounts = a.Mounts
			env.runtime = job.Needs.Runtime
			scratch, err := os.MkdirTemp(work, "job-")
			if err != nil {
				return nil, err
			}
			opened, err := env.open(ctx, src.problem, scratch, scratch)
			if err != nil {
				return nil, fmt.Errorf("runtime %s: %w", job.Needs.Runtime, err)
			}
			closersMu.Lock()
			closers = append(closers, opened.close)
			closersMu.Unlock()
			command := job.Settings.Command
			if command == "" {
				command = opened.command
			}
			cacheFlags := f.cacheF
			cacheFlags.off = cacheFlags.off || job.Settings.NoCache
			return run.NewGroups(ctx, run.Options{Problem: src.problem, Submission: a.SubmissionDir, OutDir: scratch,
				Command: command, Runtime: opened.rt, Loader: src.loader, Plugins: plugins, Browser: job.Settings.Browser,
				RetryErrors: job.Settings.RetryErrors, RetryBackoff: problem.Seconds(job.Settings.RetryBackoff),
				VerdictCache: cacheFlags.open(cmd.ErrOrStderr())})
		}}
	w.Ready = func() {
		fmt.Fprintf(cmd.ErrOrStderr(), "worker %s: serving %v on %s with %d slot(s)\n", f.name, f.runtimes, distribute.Redacted(f.queue), f.slots)
	}
	return w.Serve(ctx)
}
