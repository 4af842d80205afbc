package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/wasmeval/wasmeval/engine/envspec"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/runtime/docker"
	"github.com/wasmeval/wasmeval/engine/runtime/docker/images"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
	"github.com/wasmeval/wasmeval/engine/runtime/setup"
	"github.com/wasmeval/wasmeval/engine/workspace"
)

// envFlags select where a run's processes run.
type envFlags struct {
	env        string
	runtime    string
	mountRoots []string
	// shippedMounts are, on a worker of a distributed run, the copies of
	// the spec's mount sources the coordinator sent, by the mount's
	// index (envspec.LoadShipped).
	shippedMounts map[int]string
}

func (f *envFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.env, "env", "", "environment spec (YAML): runtime, image, limits, network, mounts, setup, command (default: the problem's `environment`)")
	fl.StringVar(&f.runtime, "runtime", "", "local or docker (default: the environment spec's, else local)")
	fl.StringArrayVar(&f.mountRoots, "mount-root", nil, "host directory outside the problem that an environment spec may mount from and the problem's paths may name (repeatable)")
}

// environment is the runtime a run uses and what the spec adds to it.
type environment struct {
	rt      runtime.Runtime
	command string // the spec's command template ("" keeps the problem's)
	// commandFrom says where command was written, for messages.
	commandFrom string
	// images maps the image references the runtime uses to their
	// digests, for the run's manifest.
	images map[string]string
	// isolation is how the local runtime contains processes, and
	// warning what a user should know about it.
	isolation, warning string
	close              func()
}

// openEnvironment loads the spec (from --env or the problem) and opens
// the runtime it selects. Every problem with the spec, the engine or the
// image is reported here, before any case runs.
func (f *envFlags) open(ctx context.Context, p *problem.Problem, workDir, outDir string) (*environment, error) {
	file := f.env
	if file == "" {
		file = p.Environment
	}
	var spec *envspec.Spec
	if file != "" {
		var err error
		if spec, err = envspec.LoadShipped(file, f.shippedMounts, append([]string{p.Dir}, f.mountRoots...)...); err != nil {
			return nil, usageErr(fmt.Errorf("invalid environment spec:\n%w", err))
		}
	}
	kind := f.runtime
	if kind == "" {
		kind = envspec.Local
		if spec != nil {
			kind = spec.Runtime
		}
	}
	env := &environment{close: func() {}}
	switch kind {
	case envspec.Local:
		opts := local.Options{BaseDir: workDir}
		if spec != nil {
			opts.MemoryBytes = spec.Memory // per process on the host (RLIMIT_DATA)
		}
		rt := local.New(opts)
		iso, err := rt.Isolation()
		if err != nil {
			return nil, usageErr(err)
		}
		env.rt, env.isolation = rt, string(iso)
		if iso != local.IsolationNamespaces {
			env.warning = fmt.Sprintf("local runtime: no namespaces here (%v): cases run with process isolation only, and can see and signal this user's processes and read the problem directory; use the Docker runtime for untrusted submissions", local.NamespaceError())
		}
	case envspec.Docker:
		if spec == nil || spec.Runtime != envspec.Docker {
			return nil, usageErr(errors.New("--runtime docker needs an environment spec with an image (--env FILE, or the problem's environment)"))
		}
		rt, err := docker.New(ctx, docker.Options{Spec: spec, BaseDir: workDir})
		if err != nil {
			return nil, usageErr(err)
		}
		env.rt, env.close = rt, func() { rt.Close() }
		env.images = rt.Images()
		env.warning = rt.Note() // set when cases cannot run through the in-container executor
	default:
		return nil, usageErr(fmt.Errorf("--runtime: expected local or docker, got %q", kind))
	}
	if spec != nil {
		env.command, env.commandFrom = spec.Command, file+": command"
		env.rt = setup.Wrap(env.rt, spec.Env, spec.Setup, filepath.Join(outDir, "setup"))
	}
	return env, nil
}

func newEnvCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "env",
		Short: "Check and maintain the environments submissions run in (Docker)",
	}
	cmd.AddCommand(newEnvCheckCmd(), newEnvCleanCmd(), newEnvImageCmd())
	return cmd
}

func newEnvCheckCmd() *cobra.Command {
	var file string
	var roots []string
	cmd := &cobra.Command{
		Use:   "check [--env FILE]",
		Short: "Say whether the Docker engine is reachable, its version, and whether the spec's image exists",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			image := ""
			if file != "" {
				spec, err := envspec.Load(file, roots...)
				if err != nil {
					return usageErr(fmt.Errorf("invalid environment spec:\n%w", err))
				}
				fmt.Fprintf(w, "spec:    %s (runtime %s)\n", file, spec.Runtime)
				if spec.Runtime == envspec.Local {
					fmt.Fprintln(w, "runtime: local — no engine needed")
					return nil
				}
				image = spec.Image
			}
			cli, err := docker.Connect()
			if err != nil {
				return usageErr(err)
			}
			defer cli.Close()
			c, err := docker.RunCheck(cmd.Context(), cli, image)
			fmt.Fprintf(w, "engine:  %s\n", c.Host)
			if c.Version != "" {
				fmt.Fprintf(w, "version: %s\n", c.Version)
			}
			if c.ImageFound {
				fmt.Fprintf(w, "image:   %s (present)\n", c.Image)
			}
			if c.Helper != "" {
				fmt.Fprintf(w, "helper:  %s (static busybox)\n", c.Helper)
			}
			if c.Executor != "" {
				fmt.Fprintf(w, "cases:   %s\n", c.Executor)
			}
			if err != nil {
				return &exitError{code: exitFail, err: err}
			}
			fmt.Fprintln(w, "ok")
			return nil
		},
	}
	cmd.Flags().StringVar(&file, "env", "", "environment spec whose image to look for")
	cmd.Flags().StringArrayVar(&roots, "mount-root", nil, "extra allowed mount root (repeatable)")
	return cmd
}

func newEnvCleanCmd() *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "clean",
		Short: "Remove work directories, containers and networks left by runs that crashed",
		Long: `Remove what runs that are no longer alive left behind: their work
directories in the temporary directory (a run removes its own when it ends,
but not when it is killed), and the containers and networks wasmeval created
for them (found by their io.wasmeval.* labels). With --all, those of runs
still in progress are removed too.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dirs, dirErr := workspace.CleanRunDirs(all)
			for _, d := range dirs {
				fmt.Fprintf(cmd.OutOrStdout(), "removed work directory %s\n", d)
			}
			if dirErr != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "wasmeval env clean:", dirErr)
			}
			cli, err := docker.Connect()
			if err != nil {
				return usageErr(err)
			}
			defer cli.Close()
			if _, err := docker.Ping(cmd.Context(), cli); err != nil {
				return &exitError{code: exitFail, err: err}
			}
			removed, err := docker.CleanLeftovers(cmd.Context(), cli, all)
			sort.Slice(removed, func(i, j int) bool { return removed[i].Name < removed[j].Name })
			for _, r := range removed {
				fmt.Fprintf(cmd.OutOrStdout(), "removed %s %s (run %s)\n", r.Kind, r.Name, r.Run)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d removed\n", len(dirs)+len(removed))
			if err = errors.Join(dirErr, err); err != nil {
				return &exitError{code: exitFail, err: err}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "also remove what runs still in progress use")
	return cmd
}

func newEnvImageCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "image busybox|python",
		Short: "Build a small image from files on this host (no registry) and print its tag",
		Long: `Build a small image through the engine's import API from files already on
this host and print its tag: busybox (a static busybox and its applets) or
python (the host's python3, its standard library and shared libraries, plus
busybox). Built only when the tag for the current inputs is missing.`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"busybox", "python"},
		RunE: func(cmd *cobra.Command, args []string) error {
			build, ok := images.Builders[args[0]]
			if !ok {
				return usageErr(fmt.Errorf("env image: unknown image %q (have: busybox, python)", args[0]))
			}
			cli, err := docker.Connect()
			if err != nil {
				return usageErr(err)
			}
			defer cli.Close()
			if _, err := docker.Ping(cmd.Context(), cli); err != nil {
				return &exitError{code: exitFail, err: err}
			}
			tag, err := build(cmd.Context(), cli)
			if err != nil {
				return &exitError{code: exitFail, err: err}
			}
			fmt.Fprintln(cmd.OutOrStdout(), tag)
			return nil
		},
	}
}
