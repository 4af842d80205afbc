package tasks

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/checkspec"
	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/frontend/agentconfig"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/strictyaml"
	"github.com/wasmeval/wasmeval/engine/workspace/confine"
)

// DefaultTimeout is a task's limit when neither the task nor the suite
// sets one: agents take minutes, not seconds.
const DefaultTimeout = 10 * time.Minute

// WorkspaceDir is the directory beside a task.yaml whose files are copied
// into the agent's sandbox before it starts.
const WorkspaceDir = "workspace"

// CheckpointName and GroupName name the one checkpoint and group a suite
// becomes.
const (
	CheckpointName = "tasks"
	GroupName      = "tasks"
)

// LoaderName is the loader the suite's group names (Suite.Loader).
const LoaderName = "agent-tasks"

// Options tune loading.
type Options struct {
	// PluginDirs are searched for test functions bound by name.
	PluginDirs []string
	// MountRoots are directories outside the suite its files may name.
	MountRoots []string
	// Refs resolves test functions bound by reference (see
	// problem.Options.Refs).
	Refs problem.RefResolver
	// ShippedPlugins are the plugin files a distributed run's
	// coordinator sent (see problem.Options.ShippedPlugins).
	ShippedPlugins map[string]string
	// Shipped: the coordinator's paths and their copies on a
	// distributed run's worker (see problem.Options.Shipped).
	Shipped *confine.Shipped
	// Results scores results recorded in this directory instead of
	// running the agent (adapter.Recorded).
	Results string
}

// Suite is a loaded task directory.
type Suite struct {
	Problem *problem.Problem
	// Tasks are the cases, one per task, in name order.
	Tasks []*cases.Case
}

// Task is what Is looks for; a directory is a suite when it is a task
// or holds at least one.
func Is(path string) bool {
	st, err := os.Stat(path)
	if err != nil || !st.IsDir() {
		return false
	}
	if isFile(filepath.Join(path, TaskFile)) {
		return true
	}
	ents, err := os.ReadDir(path)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if e.IsDir() && isFile(filepath.Join(path, e.Name(), TaskFile)) {
			return true
		}
	}
	return false
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// Load reads the suite at path: a directory of task directories, or one
// task directory. Every problem found is reported at once, each naming
// its file, key and what was expected.
func Load(path string, opts Options) (*Suite, error) {
	dir, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	files, err := confine.NewShipped(dir, opts.Shipped, opts.MountRoots...)
	if err != nil {
		return nil, err
	}
	l := &suiteLoader{dir: dir, files: files, digest: sha256.New(),
		binder: problem.NewPluginBinder(files, problem.Options{PluginDirs: opts.PluginDirs, MountRoots: opts.MountRoots, Refs: opts.Refs, ShippedPlugins: opts.ShippedPlugins})}
	l.read = &agentconfig.Files{Tree: files, Digest: l.digest, Errs: &l.errs}
	s := l.load(opts)
	if err := l.errs.Err(); err != nil {
		return nil, err
	}
	s.Problem.Digest = hex.EncodeToString(l.digest.Sum(nil))
	return s, nil
}

type suiteLoader struct {
	dir    string
	files  *confine.Tree
	errs   diag.List
	digest hash.Hash
	binder *problem.PluginBinder
	// read reads the suite's files through the tree, into the digest.
	read *agentconfig.Files
}

// show is how a file of the suite is named in diagnostics.
func (l *suiteLoader) show(rel string) string { return l.read.Path(rel) }

func (l *suiteLoader) load(opts Options) *Suite {
	var cfg rawConfig
	cfgFile := l.show(ConfigFile)
	if isFile(cfgFile) {
		l.read.DecodeYAML(ConfigFile, &cfg)
	}
	if cfg.Test != nil {
		l.binder.Bind(cfgFile, "test", 0, cfg.Test, &l.errs)
	}
	timeout := DefaultTimeout
	if cfg.Timeout != nil {
		if *cfg.Timeout <= 0 {
			l.errs.Add(cfgFile, "timeout", 0, "expected a positive number of seconds, got %v", *cfg.Timeout)
		} else {
			timeout = agentconfig.Seconds(*cfg.Timeout)
		}
	}
	name := cfg.Name
	if name == "" {
		name = filepath.Base(l.dir)
	}
	p := &problem.Problem{Name: name, Version: 1, Dir: l.dir, File: cfgFile, Files: l.files, OutputCap: problem.DefaultOutputCap}
	agentconfig.Apply(p, cfg.Agent, opts.Results, cfgFile, &l.errs)
	s := &Suite{Problem: p}
	for _, rel := range l.taskDirs() {
		if c := l.task(rel, cfg.Test, timeout); c != nil {
			s.Tasks = append(s.Tasks, c)
		}
	}
	if len(s.Tasks) == 0 && len(l.errs) == 0 {
		l.errs.Add(l.dir, "", 0, "no tasks: expected a %s here or in its subdirectories", TaskFile)
	}
	if cfg.Test != nil {
		p.CasePlugins = append(p.CasePlugins, cfg.Test)
	}
	seen := map[string]string{}
	for _, c := range s.Tasks {
		if ref := c.Checks[0].Plugin; ref != nil && (cfg.Test == nil || ref.Path != cfg.Test.Path) {
			p.CasePlugins = append(p.CasePlugins, ref)
		}
		if other, dup := seen[c.ID]; dup {
			l.errs.Add(c.Source, "name", 0, "task name %q is also the name of the task in %s; task names must be unique", c.ID, other)
		}
		seen[c.ID] = c.Source
	}
	order := make([]string, len(s.Tasks))
	for i, c := range s.Tasks {
		order[i] = c.ID
	}
	p.Checkpoints = []*problem.Checkpoint{{
		Name: CheckpointName, Order: 1, Version: 1, Dir: l.dir, Timeout: timeout,
		Groups: []*problem.Group{{
			Name: GroupName, Type: problem.Core, CaseOrder: order, Isolated: true, Timeout: timeout,
			Loader: LoaderName, CasesDir: l.dir, CaseGroup: GroupName, File: cfgFile,
		}},
	}}
	return s
}

// taskDirs lists the task directories relative to the suite: "." when
// the suite is one task, else every subdirectory holding a task.yaml, in
// name order. A subdirectory without one is not a task (a shared
// plugins/ directory, a README's images).
func (l *suiteLoader) taskDirs() []string {
	if _, err := l.files.Stat(TaskFile); err == nil {
		return []string{"."}
	}
	ents, err := l.files.ReadDir(".")
	if err != nil {
		l.errs.Add(l.dir, "", 0, "cannot read directory: %v", diag.UnwrapPathError(err))
		return nil
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if _, err := l.files.Stat(filepath.Join(e.Name(), TaskFile)); err == nil {
			out = append(out, e.Name())
		} else if !errors.Is(err, fs.ErrNotExist) {
			l.errs.Add(l.show(filepath.Join(e.Name(), TaskFile)), "", 0, "%v", diag.UnwrapPathError(err))
		} else {
			l.notATask(e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// notATask reports a subdirectory that looks meant as a task but would
// be left out without a word: its task file misnamed (task.yml,
// Task.yaml), or tasks one level too deep.
func (l *suiteLoader) notATask(dir string) {
	ents, err := l.files.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := strings.ToLower(e.Name())
		if !e.IsDir() && (name == "task.yaml" || name == "task.yml") {
			l.errs.Add(l.show(filepath.Join(dir, e.Name())), "", 0, "a task's file is named %s exactly; rename it, or the task is left out", TaskFile)
		}
		if e.IsDir() {
			if _, err := l.files.Stat(filepath.Join(dir, e.Name(), TaskFile)); err == nil {
				l.errs.Add(l.show(filepath.Join(dir, e.Name(), TaskFile)), "", 0,
					"a task one level too deep is left out (tasks are the suite's own subdirectories): move it up, or run %s as a suite of its own", l.show(dir))
			}
		}
	}
}

// task reads one task directory into a case.
func (l *suiteLoader) task(rel string, suiteTest *checkspec.PluginRef, timeout time.Duration) *cases.Case {
	file := l.show(filepath.Join(rel, TaskFile))
	var t rawTask
	before := len(l.errs)
	n, ok := l.read.DecodeYAML(filepath.Join(rel, TaskFile), &t)
	if !ok {
		return nil
	}
	name := t.Name
	if name == "" {
		name = filepath.Base(filepath.Join(l.dir, rel))
	}
	if err := problem.CheckName(name); err != nil {
		l.errs.Add(file, "name", 0, "task %v", err)
	}
	switch {
	case t.Instruction == nil && !hasKey(n, "instruction"):
		l.errs.Add(file, "instruction", 0, "required: the instruction the agent is given (a string)")
	case t.Instruction != nil && strings.TrimSpace(*t.Instruction) == "":
		l.errs.Add(file, "instruction", 0, "expected the instruction the agent is given, got an empty string")
	}
	if t.Timeout != nil {
		if *t.Timeout <= 0 {
			l.errs.Add(file, "timeout", 0, "expected a positive number of seconds, got %v", *t.Timeout)
		} else {
			timeout = agentconfig.Seconds(*t.Timeout)
		}
	}
	if t.MaxIterations != nil && *t.MaxIterations < 1 {
		l.errs.Add(file, "max_iterations", 0, "expected a positive integer, got %d", *t.MaxIterations)
	}
	ref := l.testRef(rel, file, &t, suiteTest)
	if len(l.errs) > before {
		return nil
	}
	meta := map[string]any{}
	for k, v := range t.Metadata {
		meta[k] = v
	}
	for k, v := range map[string]string{"description": t.Description, "difficulty": t.Difficulty} {
		if v != "" {
			meta[k] = v
		}
	}
	if t.MaxIterations != nil {
		meta["max_iterations"] = *t.MaxIterations
	}
	if len(meta) == 0 {
		meta = nil
	}
	c := &cases.Case{
		ID: name, Checkpoint: CheckpointName, Group: GroupName, GroupType: problem.Core,
		Arguments: []string{}, Timeout: timeout, Source: file,
		Task:   &cases.Task{Name: name, Instruction: *t.Instruction, Metadata: meta, Category: t.Category, Tags: t.Tags},
		Checks: []checkspec.CheckSpec{{Kind: "test", Plugin: ref}},
	}
	c.InputFiles = l.workspaceFiles(rel)
	return c
}

// testRef is the task's test function: its own binding, else the
// suite's, with test_config merged over the binding's config. A task
// with neither is an error that says what to do — and, when the task
// ships a test.py, that it must be ported: wasmeval runs test functions
// as Wasm plugins only, so a task is never passed without its test.
func (l *suiteLoader) testRef(rel, file string, t *rawTask, suiteTest *checkspec.PluginRef) *checkspec.PluginRef {
	var ref checkspec.PluginRef
	switch {
	case t.Test != nil:
		ref = *t.Test
		if ref.Path != "" && !filepath.IsAbs(ref.Path) {
			ref.Path = filepath.Join(rel, ref.Path)
		}
		l.binder.Bind(file, "test", 0, &ref, &l.errs)
	case suiteTest != nil:
		ref = *suiteTest
	default:
		msg := "no test function: bind one with `test: {path: FILE.wasm, sha256: …}` here, or for every task in " + ConfigFile
		if isFile(filepath.Join(l.dir, rel, "test.py")) {
			msg = "this task ships test.py, a Python test function; wasmeval runs test functions as Wasm plugins (the `test` export), so port it with one of the SDKs (docs/agents.md, \"Porting a test.py\") and bind it with `test: {path: test.wasm, sha256: …}`; the task is not run without its test"
		}
		l.errs.Add(file, "test", 0, "%s", msg)
		return nil
	}
	if len(t.TestConfig) > 0 {
		cfg := map[string]any{}
		for k, v := range ref.Config {
			cfg[k] = v
		}
		for k, v := range t.TestConfig {
			cfg[k] = v
		}
		ref.Config = cfg
	}
	return &ref
}

// workspaceFiles are the files of the task's workspace directory, copied
// into the sandbox before the agent starts.
func (l *suiteLoader) workspaceFiles(rel string) []cases.InputFile {
	root := filepath.Join(rel, WorkspaceDir)
	st, err := l.files.Stat(root)
	if err != nil || !st.IsDir() {
		return nil
	}
	names, err := l.files.WalkNames(root)
	if err != nil {
		l.errs.Add(l.show(root), "", 0, "cannot read: %v", diag.UnwrapPathError(err))
		return nil
	}
	var out []cases.InputFile
	for _, n := range names {
		f, err := cases.FromProblem(l.files, filepath.Join(root, n), filepath.ToSlash(n))
		if err != nil {
			l.errs.Add(l.show(filepath.Join(root, n)), "", 0, "%v", diag.UnwrapPathError(err))
			continue
		}
		out = append(out, f)
	}
	return out
}

// hasKey says whether the YAML document n is a mapping with key.
func hasKey(n *yaml.Node, key string) bool {
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	for _, kv := range strictyaml.MappingPairs(n) {
		if kv[0].Value == key {
			return true
		}
	}
	return false
}
