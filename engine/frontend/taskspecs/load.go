package taskspecs

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/checkspec"
	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/frontend/agentconfig"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/workspace/confine"
)

// ConfigFile is the file at the root of a spec tree that says how to run
// the agent and which evaluator plugins offer the evaluation functions.
const ConfigFile = "wasmeval.yaml"

// DefaultTimeout bounds a task when the config sets no timeout.
const DefaultTimeout = 15 * time.Minute

// MaxSpecBytes refuses larger spec files.
const MaxSpecBytes = 4 << 20

// CheckpointName is the one checkpoint a spec tree becomes; each tool
// directory is a group, loaded by LoaderName.
const (
	CheckpointName = "tasks"
	LoaderName     = "task-specs"
)

// rawConfig is ConfigFile as written.
type rawConfig struct {
	Name    string             `yaml:"name"`
	Agent   *agentconfig.Agent `yaml:"agent"`
	Timeout *float64           `yaml:"timeout"`
	// VMHome is the machine directory the sandbox stands for.
	VMHome string `yaml:"vm_home"`
	// Evaluators offer the evaluation functions, dispatched by name: the
	// first that declares a function serves it.
	Evaluators []*checkspec.PluginRef `yaml:"evaluators"`
	// SetupPlugins offer setup functions beyond the built-ins, dispatched
	// the same way: each returns the actions to perform in the sandbox.
	SetupPlugins []*checkspec.PluginRef `yaml:"setup_plugins"`
}

// Options tune loading.
type Options struct {
	PluginDirs, MountRoots []string
	// Refs resolves plugins bound by reference (see
	// problem.Options.Refs).
	Refs problem.RefResolver
	// ShippedPlugins are the plugin files a distributed run's
	// coordinator sent (see problem.Options.ShippedPlugins).
	ShippedPlugins map[string]string
	// Shipped: the coordinator's paths and their copies on a
	// distributed run's worker (see problem.Options.Shipped).
	Shipped *confine.Shipped
	// Results scores recorded results instead of running the agent.
	Results string
	// Functions says which evaluation functions an evaluator plugin
	// declares (its describe's functions); the caller loads the plugin.
	Functions func(ref *checkspec.PluginRef) ([]string, error)
	// Tags and Apps keep only the tasks with one of these tags or
	// related apps (none: all).
	Tags, Apps []string
	// Setup calls a setup plugin's function for a task and returns the
	// steps its actions make; the caller loads the plugin. The task's
	// directory is dir, its steps named name.
	Setup func(ref *checkspec.PluginRef, function string, args map[string]any, id, instruction, dir, name string) ([]cases.SetupStep, error)
}

// Suite is a loaded spec tree.
type Suite struct {
	Problem *problem.Problem
	// Specs by case id, in group order.
	Specs  map[string]*Spec
	groups map[string][]*cases.Case
}

// Is says whether dir holds task specs: some <name>/<name>.json below it.
func Is(dir string) bool {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() || isFile(filepath.Join(dir, "config.yaml")) {
		return false
	}
	found := false
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || found {
			return filepath.SkipDir
		}
		if d.IsDir() && strings.Count(strings.TrimPrefix(p, dir), string(filepath.Separator)) > 4 {
			return filepath.SkipDir
		}
		if !d.IsDir() && isSpecFile(p) {
			found = true
		}
		return nil
	})
	return found
}

// isSpecFile says whether p is <dir>/<name>/<name>.json.
func isSpecFile(p string) bool {
	name := filepath.Base(p)
	return strings.HasSuffix(name, ".json") && strings.TrimSuffix(name, ".json") == filepath.Base(filepath.Dir(p))
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

type suiteLoader struct {
	dir        string
	tree       *confine.Tree
	home       string
	errs       diag.List
	digest     hash.Hash
	binder     *problem.PluginBinder
	evaluators []*checkspec.PluginRef
	functions  [][]string
	// setups and setupFns are the setup plugins and their functions;
	// runSetup calls one (Options.Setup).
	setups   []*checkspec.PluginRef
	setupFns [][]string
	runSetup func(ref *checkspec.PluginRef, function string, args map[string]any, id, instruction, dir, name string) ([]cases.SetupStep, error)
}

// Load reads the spec tree at dir. Every problem found is reported at
// once, each naming the file and the field.
func Load(dir string, opts Options) (*Suite, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	files, err := confine.NewShipped(abs, opts.Shipped, opts.MountRoots...)
	if err != nil {
		return nil, err
	}
	l := &suiteLoader{dir: abs, tree: files, home: DefaultVMHome, digest: sha256.New(),
		binder: problem.NewPluginBinder(files, problem.Options{PluginDirs: opts.PluginDirs, MountRoots: opts.MountRoots, Refs: opts.Refs, ShippedPlugins: opts.ShippedPlugins})}
	s := l.load(opts)
	if err := l.errs.Err(); err != nil {
		return nil, err
	}
	s.Problem.Digest = hex.EncodeToString(l.digest.Sum(nil))
	return s, nil
}

// read reads a file of the tree (through it, into the digest).
func (l *suiteLoader) read(rel string) ([]byte, bool) { return l.files().Read(rel, MaxSpecBytes) }

func (l *suiteLoader) files() *agentconfig.Files {
	return &agentconfig.Files{Tree: l.tree, Digest: l.digest, Errs: &l.errs}
}

func (l *suiteLoader) load(opts Options) *Suite {
	var cfg rawConfig
	cfgFile := filepath.Join(l.dir, ConfigFile)
	if isFile(cfgFile) {
		l.files().DecodeYAML(ConfigFile, &cfg)
	}
	if cfg.VMHome != "" {
		if !strings.HasPrefix(cfg.VMHome, "/") {
			l.errs.Add(cfgFile, "vm_home", 0, "expected an absolute path, got %q", cfg.VMHome)
		}
		l.home = cfg.VMHome
	}
	timeout := DefaultTimeout
	if cfg.Timeout != nil {
		if *cfg.Timeout <= 0 {
			l.errs.Add(cfgFile, "timeout", 0, "expected a positive number of seconds, got %v", *cfg.Timeout)
		} else {
			timeout = agentconfig.Seconds(*cfg.Timeout)
		}
	}
	l.evaluators, l.functions = l.bindAll(cfgFile, "evaluators", cfg.Evaluators, opts)
	l.setups, l.setupFns = l.bindAll(cfgFile, "setup_plugins", cfg.SetupPlugins, opts)
	l.runSetup = opts.Setup
	name := cfg.Name
	if name == "" {
		name = filepath.Base(l.dir)
	}
	p := &problem.Problem{Name: name, Version: 1, Dir: l.dir, File: cfgFile, Files: l.tree, OutputCap: problem.DefaultOutputCap,
		CasePlugins: append(append([]*checkspec.PluginRef{}, cfg.Evaluators...), cfg.SetupPlugins...)}
	agentconfig.Apply(p, cfg.Agent, opts.Results, cfgFile, &l.errs)
	s := &Suite{Problem: p, Specs: map[string]*Spec{}, groups: map[string][]*cases.Case{}}
	cp := &problem.Checkpoint{Name: CheckpointName, Order: 1, Version: 1, Dir: l.dir, Timeout: timeout}
	seen := map[string]string{}
	for _, rel := range l.specFiles() {
		spec := l.spec(rel)
		if spec == nil || !keep(spec, opts) {
			continue
		}
		if other, dup := seen[spec.ID]; dup {
			l.errs.Add(spec.File, "id", 0, "id %q is also the id of %s; ids must be unique", spec.ID, other)
			continue
		}
		seen[spec.ID] = spec.File
		c := l.task(spec, timeout)
		if c == nil {
			continue
		}
		s.Specs[spec.ID] = spec
		if _, ok := s.groups[spec.Tool]; !ok {
			cp.Groups = append(cp.Groups, &problem.Group{Name: spec.Tool, Type: problem.Core, Isolated: true, Timeout: timeout,
				Loader: LoaderName, CasesDir: l.dir, CaseGroup: spec.Tool, File: cfgFile})
		}
		c.Group = spec.Tool
		s.groups[spec.Tool] = append(s.groups[spec.Tool], c)
	}
	for _, g := range cp.Groups {
		for _, c := range s.groups[g.Name] {
			g.CaseOrder = append(g.CaseOrder, c.ID)
		}
	}
	if len(cp.Groups) == 0 && len(l.errs) == 0 {
		what := "no task specs (<tool>/<id>/<id>.json)"
		if len(opts.Tags) > 0 || len(opts.Apps) > 0 {
			what = "no task has the tags or apps asked for"
		}
		l.errs.Add(l.dir, "", 0, "%s", what)
	}
	p.Checkpoints = []*problem.Checkpoint{cp}
	return s
}

// bindAll binds the plugins listed under key and reads the functions
// each declares.
func (l *suiteLoader) bindAll(cfgFile, key string, refs []*checkspec.PluginRef, opts Options) ([]*checkspec.PluginRef, [][]string) {
	fns := make([][]string, len(refs))
	for i, ref := range refs {
		at := diag.IndexPath(key, i)
		before := len(l.errs)
		l.binder.Bind(cfgFile, at, 0, ref, &l.errs)
		if len(l.errs) > before {
			continue
		}
		if opts.Functions == nil {
			l.errs.Add(cfgFile, at, 0, "cannot tell which functions this plugin offers")
		} else if got, err := opts.Functions(ref); err != nil {
			l.errs.Add(cfgFile, at, 0, "%v", err)
		} else {
			fns[i] = got
		}
	}
	return refs, fns
}

// keep applies the --tag and --app filters.
func keep(s *Spec, opts Options) bool {
	if len(opts.Tags) == 0 && len(opts.Apps) == 0 {
		return true
	}
	for _, t := range s.Tags {
		if slices.Contains(opts.Tags, t) {
			return true
		}
	}
	for _, a := range s.Apps {
		if slices.Contains(opts.Apps, a) {
			return true
		}
	}
	return false
}

// specFiles lists the spec files, relative to the tree, in path order.
func (l *suiteLoader) specFiles() []string {
	var out []string
	filepath.WalkDir(l.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			l.errs.Add(p, "", 0, "cannot read: %v", diag.UnwrapPathError(err))
			return nil
		}
		rel, _ := filepath.Rel(l.dir, p)
		if d.IsDir() && strings.Count(rel, string(filepath.Separator)) > 4 {
			return filepath.SkipDir
		}
		if !d.IsDir() && isSpecFile(p) {
			out = append(out, rel)
		} else if !d.IsDir() && strings.HasSuffix(p, ".json") && !isFile(filepath.Join(filepath.Dir(p), filepath.Base(filepath.Dir(p))+".json")) && looksLikeSpec(p) {
			// A spec under another name would be left out without a
			// word; data files beside a spec are not specs.
			l.errs.Add(p, "", 0, "a task spec is read from <tool>/<id>/<id>.json: rename it %s (its directory's name), or the task is left out",
				filepath.Base(filepath.Dir(p))+".json")
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// looksLikeSpec says whether the JSON file p is an object with a task
// spec's id and instruction.
func looksLikeSpec(p string) bool {
	if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() || st.Size() > MaxSpecBytes {
		return false
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), &obj) != nil {
		return false
	}
	_, id := obj["id"]
	_, instruction := obj["instruction"]
	return id && instruction
}

// spec reads one spec file.
func (l *suiteLoader) spec(rel string) *Spec {
	data, ok := l.read(rel)
	if !ok {
		return nil
	}
	file := filepath.Join(l.dir, rel)
	s := parseSpec(file, data, &l.errs)
	if s == nil {
		return nil
	}
	s.Dir = filepath.Dir(file)
	// The task's group is the directory its task directory lies in (the
	// tool); tasks directly under the tree are the group "tasks".
	s.Tool = "tasks"
	if parent := filepath.Dir(filepath.Dir(rel)); parent != "." {
		s.Tool = filepath.Base(parent)
	}
	if s.ID != "" && s.ID != filepath.Base(s.Dir) {
		l.errs.Add(file, "id", 0, "id %q differs from the task's directory %q; they name the same task", s.ID, filepath.Base(s.Dir))
	}
	if s.ID != "" {
		if err := problem.CheckName(s.ID); err != nil {
			l.errs.Add(file, "id", 0, "task %v", err)
		}
	}
	return s
}

// taskFile is a file of the task (a path relative to its directory, or
// to the tree when it starts with the tree's name), read when the case
// runs; a path that leaves the task's directory is refused.
func (l *suiteLoader) taskFile(s *Spec, p string) (cases.InputFile, error) {
	if filepath.IsAbs(p) {
		return cases.InputFile{}, fmt.Errorf("%q: expected a path relative to the task directory", p)
	}
	joined := filepath.Join(s.Dir, p)
	if rel, err := filepath.Rel(s.Dir, joined); err != nil || !filepath.IsLocal(rel) {
		return cases.InputFile{}, fmt.Errorf("%q is outside the task directory", p)
	}
	f, err := cases.FromProblem(l.tree, joined, filepath.Base(p))
	if errors.Is(err, fs.ErrNotExist) {
		return f, fmt.Errorf("file %q does not exist in the task directory %s", p, s.Dir)
	}
	return f, err
}

// problemRel is a task file's path relative to the tree, as read_asset
// takes it.
func (l *suiteLoader) problemRel(f cases.InputFile) string {
	if f.From != nil {
		if rel, err := filepath.Rel(l.dir, f.From.Name); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return ""
}

// task maps a spec onto a case.
func (l *suiteLoader) task(s *Spec, timeout time.Duration) *cases.Case {
	before := len(l.errs)
	c := &cases.Case{ID: s.ID, Checkpoint: CheckpointName, GroupType: problem.Core, Arguments: []string{}, Timeout: timeout, Source: s.File}
	t := &cases.Task{Name: s.ID, Instruction: s.Instruction, Category: s.Tool, Tags: s.Tags, Apps: s.Apps}
	for _, a := range s.Apps {
		t.Tags = append(t.Tags, "app:"+a)
	}
	t.Metadata = map[string]any{}
	for _, k := range []string{"snapshot", "source", "related_apps", "tags", "action_number", "counterpart"} {
		if v, ok := s.Raw[k]; ok {
			t.Metadata[k] = v
		}
	}
	for _, st := range s.Config {
		if step, ok := l.setupStep(s, st, &l.errs); ok {
			t.Setup = append(t.Setup, step...)
		}
	}
	for _, st := range s.Evaluation.PostConfig {
		if step, ok := l.setupStep(s, st, &l.errs); ok {
			t.PostSetup = append(t.PostSetup, step...)
		}
	}
	c.Task = t
	c.Checks = l.checks(s, c)
	if len(l.errs) > before {
		return nil
	}
	return c
}

// infeasibleAnswer is what an agent answers to declare a task infeasible.
const infeasibleAnswer = `(?i)^\s*(fail|infeasible)\s*$`

// checks maps the evaluation onto checks: "infeasible" passes only when
// the agent declares the task infeasible; any other function list is
// one evaluators check whose calls go to the evaluator that offers each
// function.
func (l *suiteLoader) checks(s *Spec, c *cases.Case) []checkspec.CheckSpec {
	e := s.Evaluation
	if len(e.Funcs) == 1 && e.Funcs[0] == "infeasible" {
		return []checkspec.CheckSpec{{Kind: "regex", Attribute: "answer", Pattern: infeasibleAnswer}}
	}
	var b getterBuild
	spec := checkspec.CheckSpec{Kind: "evaluators", Conj: e.Conj}
	// A getter written as a list with one item per function is named by
	// its index; one written once serves every function and is
	// normalised once (its errors reported once, its file read back once).
	rawEval, _ := s.Raw["evaluation"].(map[string]any)
	shared := map[string]any{}
	getter := func(key string, i int, g any) any {
		at := "evaluation." + key
		if _, list := rawEval[key].([]any); list && len(e.Funcs) > 1 {
			return l.getters(s, diag.IndexPath(at, i), g, &b)
		}
		if v, done := shared[key]; done {
			return v
		}
		v := l.getters(s, at, g, &b)
		shared[key] = v
		return v
	}
	for i, fn := range e.Funcs {
		at := "evaluation.func"
		if len(e.Funcs) > 1 {
			at = diag.IndexPath(at, i)
		}
		if fn == "infeasible" {
			l.errs.Add(s.File, at, 0, "infeasible stands alone: a task is infeasible or has functions that score it")
			continue
		}
		ref := l.offering(fn)
		if ref == nil {
			l.errs.Add(s.File, at, 0, "unknown evaluation function %q: no evaluator in %s offers it%s", fn, ConfigFile, l.offered())
			continue
		}
		args := map[string]any{}
		if e.Results[i] != nil || e.Expected[i] != nil {
			args["result"] = getter("result", i, e.Results[i])
			args["expected"] = getter("expected", i, e.Expected[i])
		}
		// The short form: {func, arguments} whose vm_ arguments are files
		// of the sandbox and local_ ones files of the task.
		var results, expected []any
		options := map[string]any{}
		for _, k := range sortedKeys(e.Arguments[i]) {
			v := e.Arguments[i][k]
			p, isStr := v.(string)
			switch {
			case strings.HasPrefix(k, "vm_") && isStr:
				results = append(results, l.normalise(s, "evaluation.arguments."+k, map[string]any{"type": "vm_file", "path": p}, &b, &l.errs))
			case strings.HasPrefix(k, "local_") && isStr:
				expected = append(expected, l.normalise(s, "evaluation.arguments."+k, map[string]any{"type": "local_file", "path": p}, &b, &l.errs))
			default:
				options[k] = v
			}
		}
		if len(results) > 0 {
			args["result"] = one(results)
		}
		if len(expected) > 0 {
			args["expected"] = one(expected)
		}
		for k, v := range e.Options[i] {
			options[k] = v
		}
		if len(options) > 0 {
			args["options"] = options
		}
		spec.Calls = append(spec.Calls, checkspec.EvaluatorCall{Plugin: ref, Function: fn, Arguments: args})
	}
	c.TrackedFiles = append(c.TrackedFiles, b.tracked...)
	c.Task.PostSetup = append(c.Task.PostSetup, b.post...)
	if len(spec.Calls) == 0 {
		return nil
	}
	return []checkspec.CheckSpec{spec}
}

// getters normalises a getter or a list of them.
func (l *suiteLoader) getters(s *Spec, at string, g any, b *getterBuild) any {
	if g == nil {
		return nil
	}
	if list, ok := g.([]any); ok {
		out := make([]any, len(list))
		for i, x := range list {
			out[i] = l.normalise(s, diag.IndexPath(at, i), x, b, &l.errs)
		}
		return out
	}
	return l.normalise(s, at, g, b, &l.errs)
}

func one(v []any) any {
	if len(v) == 1 {
		return v[0]
	}
	return v
}

// offering is the first evaluator that declares fn.
func (l *suiteLoader) offering(fn string) *checkspec.PluginRef {
	for i, fns := range l.functions {
		if slices.Contains(fns, fn) {
			return l.evaluators[i]
		}
	}
	return nil
}

// offered lists the functions the evaluators offer, for messages.
func (l *suiteLoader) offered() string {
	var all []string
	for _, fns := range l.functions {
		all = append(all, fns...)
	}
	if len(all) == 0 {
		return " (it binds no evaluator: add `evaluators: [{path: …/stdlib.wasm, sha256: …}]`)"
	}
	sort.Strings(all)
	return " (they offer: " + strings.Join(all, ", ") + ")"
}

// Loader returns the suite's loader for name (LoaderName): each tool's
// tasks, in path order.
func (s *Suite) Loader(name string) (cases.Loader, bool) {
	l := &cases.Listed{Layout: "task specs (<tool>/<id>/<id>.json)", Groups: s.groups}
	return l.Named(LoaderName)(name)
}

// Cases lists every task's case, in group order.
func (s *Suite) Cases() []*cases.Case {
	var out []*cases.Case
	for _, g := range s.Problem.Checkpoints[0].Groups {
		out = append(out, s.groups[g.Name]...)
	}
	return out
}
