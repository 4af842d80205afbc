package main

import (
	"context"
	"io"
	"strings"

	"fmt"
	"github.com/wasmeval/wasmeval/engine/adapter"
	"github.com/wasmeval/wasmeval/engine/diag"
	"os"
	"path/filepath"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/checkspec"
	"github.com/wasmeval/wasmeval/engine/frontend/evalcases"
	"github.com/wasmeval/wasmeval/engine/frontend/tasks"
	"github.com/wasmeval/wasmeval/engine/frontend/taskspecs"
	"github.com/wasmeval/wasmeval/engine/plugincall"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/run"
	"github.com/wasmeval/wasmeval/engine/workspace/confine"
	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// Formats of what `run` and `validate` evaluate; each front-end maps its
// format onto the engine's one model of checkpoints, groups and cases.
const (
	formatProblem = "checkpointed problem"
	formatTasks   = "agent tasks"
	formatDataset = "eval-case dataset"
	formatSpecs   = "task specs"
)

// source is what a command evaluates: the problem the front-end built and
// the loader of its cases.
type source struct {
	problem *problem.Problem
	format  string
	// loader resolves the group's loader names: the front-end's own, then
	// the built-in ones.
	loader func(name string) (cases.Loader, bool)
	// taskNames are the agent tasks' names, for matching recorded results.
	taskNames []string
	// history is where an eval-case dataset's runs are kept, "" for
	// other formats.
	history string
	// afterRun writes what the format adds to a finished run directory
	// (task specs: summary.json per task); nil for none.
	afterRun func(runDir string) error
}

type sourceOptions struct {
	pluginDirs, mountRoots []string
	// refs resolves plugins bound by reference through the lock file
	// next to the problem.
	refs problem.RefResolver
	// shipped are the plugins a distributed run's coordinator sent with
	// a job, by sha256 (a worker's; see problem.Options.ShippedPlugins).
	shipped map[string]string
	// paths are where the paths the problem named outside its directory
	// on a distributed run's coordinator lead on a worker: the copies it
	// was sent (see problem.Options.Shipped). Nil elsewhere.
	paths *confine.Shipped
	// results scores the results recorded in this directory (agent
	// formats only), an absolute path (run makes it one).
	results string
	// tags and apps filter task specs.
	tags, apps []string
	// functions reads the functions an evaluator plugin declares.
	functions func(ref *checkspec.PluginRef) ([]string, error)
	// setup calls a setup plugin's function (task specs).
	setup func(ref *checkspec.PluginRef, function string, args map[string]any, id, instruction, dir, name string) ([]cases.SetupStep, error)
}

// setupOf calls setup plugins through the run's plugin host: the
// actions a function returns, as the steps the sandbox performs.
func setupOf(ctx context.Context, h *host.Host) func(ref *checkspec.PluginRef, function string, args map[string]any, id, instruction, dir, name string) ([]cases.SetupStep, error) {
	return func(ref *checkspec.PluginRef, function string, args map[string]any, id, instruction, dir, name string) ([]cases.SetupStep, error) {
		p, err := h.Load(ctx, ref.Path, ref.SHA256)
		if err != nil {
			return nil, err
		}
		if !p.HasKind(abi.KindSetup) {
			return nil, fmt.Errorf("plugin %s is not a setup plugin (its kinds: %s)", p.Label(), strings.Join(p.Describe().Kinds, ", "))
		}
		return plugincall.SetupSteps(ctx, p, function, args, plugincall.SetupTask{ID: id, Instruction: instruction, Dir: dir, Config: ref.Config, Name: name})
	}
}

// functionsOf reads an evaluator plugin's declared functions through the
// run's plugin host (the plugin is loaded once, pinned, and kept).
func functionsOf(ctx context.Context, h *host.Host) func(ref *checkspec.PluginRef) ([]string, error) {
	return func(ref *checkspec.PluginRef) ([]string, error) {
		p, err := h.Load(ctx, ref.Path, ref.SHA256)
		if err != nil {
			return nil, err
		}
		return p.Describe().Functions, nil
	}
}

// loadSource reads path in whichever format it is written: a directory
// with config.yaml is a checkpointed problem; a directory holding
// task.yaml files is a suite of agent tasks; a .json file (or a YAML
// config naming one with `dataset:`) is an eval-case dataset.
func loadSource(path string, o sourceOptions) (*source, error) {
	results := o.results
	if evalcases.IsDataset(path) || evalcases.IsConfig(path) {
		if len(o.apps) > 0 {
			return nil, fmt.Errorf("--app filters task specs; %s is an eval-case dataset (--tag filters its cases)", path)
		}
		d, err := evalcases.Load(path, evalcases.Options{MountRoots: o.mountRoots, Shipped: o.paths, Results: results, Tags: o.tags})
		if err != nil {
			return nil, err
		}
		src := &source{problem: d.Problem, format: formatDataset, loader: firstLoader(d.Loader, run.BuiltinLoader), history: d.History}
		for _, c := range d.Cases {
			src.taskNames = append(src.taskNames, c.Task.Name)
		}
		return src, nil
	}
	if taskspecs.Is(path) && !tasks.Is(path) {
		s, err := taskspecs.Load(path, taskspecs.Options{PluginDirs: o.pluginDirs, MountRoots: o.mountRoots, Refs: o.refs, ShippedPlugins: o.shipped, Shipped: o.paths, Results: results,
			Functions: o.functions, Setup: o.setup, Tags: o.tags, Apps: o.apps})
		if err != nil {
			return nil, err
		}
		src := &source{problem: s.Problem, format: formatSpecs, loader: firstLoader(s.Loader, run.BuiltinLoader), afterRun: s.WriteSummaries}
		for _, c := range s.Cases() {
			src.taskNames = append(src.taskNames, c.Task.Name)
		}
		return src, nil
	}
	if len(o.tags) > 0 || len(o.apps) > 0 {
		return nil, fmt.Errorf("--tag and --app filter task specs (and --tag an eval-case dataset's cases); %s is neither", path)
	}
	if tasks.Is(path) && !isFile(filepath.Join(path, "config.yaml")) {
		s, err := tasks.Load(path, tasks.Options{PluginDirs: o.pluginDirs, MountRoots: o.mountRoots, Refs: o.refs, ShippedPlugins: o.shipped, Shipped: o.paths, Results: results})
		if err != nil {
			return nil, err
		}
		src := &source{problem: s.Problem, format: formatTasks, loader: firstLoader(s.Loader, run.BuiltinLoader)}
		for _, c := range s.Tasks {
			src.taskNames = append(src.taskNames, c.Task.Name)
		}
		return src, nil
	}
	if o.results != "" {
		return nil, fmt.Errorf("--results scores recorded agent results; %s is a %s, which runs its submission (agent tasks and eval-case datasets take --results)", path, formatProblem)
	}
	p, err := run.LoadProblemWith(path, run.LoadOptions{PluginDirs: o.pluginDirs, MountRoots: o.mountRoots, Refs: o.refs, ShippedPlugins: o.shipped, Shipped: o.paths})
	if err != nil {
		return nil, err
	}
	return &source{problem: p, format: formatProblem, loader: run.BuiltinLoader}, nil
}

// firstLoader tries each resolver in turn.
func firstLoader(fs ...func(string) (cases.Loader, bool)) func(string) (cases.Loader, bool) {
	return func(name string) (cases.Loader, bool) {
		for _, f := range fs {
			if l, ok := f(name); ok {
				return l, true
			}
		}
		return nil, false
	}
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// reportUnclaimed warns about recorded results that no task claims — a
// result for an unknown task, or one whose name is misspelt — so they
// are never silently ignored. A results directory that cannot be read is
// an error.
func reportUnclaimed(w io.Writer, dir string, names []string) error {
	unclaimed, err := adapter.RecordedFiles(dir, names)
	if err != nil {
		return fmt.Errorf("--results %s: %w", dir, diag.UnwrapPathError(err))
	}
	if len(unclaimed) > 0 {
		fmt.Fprintf(w, "warning: --results %s: %d result(s) for no known task, not scored: %s\n", dir, len(unclaimed), strings.Join(unclaimed, ", "))
	}
	return nil
}
