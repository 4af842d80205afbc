package problem

import (
	"crypto/sha256"
	"encoding/hex"
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

	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/engine/checkspec"
	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/strictyaml"
	"github.com/wasmeval/wasmeval/engine/workspace/confine"
)

// DefaultTimeout applies when no level of the config sets one.
const DefaultTimeout = 30 * time.Second

// DefaultOutputCap bounds the bytes kept per output stream of a case: the
// runtimes' own default.
const DefaultOutputCap = runtime.DefaultOutputCap

// Options lets the caller plug in knowledge the problem package does not
// own (which loaders exist, how checks are validated) without an import
// cycle.
type Options struct {
	// Loaders are the loader names accepted in loader/loader_script.
	Loaders []string
	// ValidateCheck returns messages for a bad check spec.
	ValidateCheck func(CheckSpec) []string
	// PluginDirs are searched for plugins referenced by name.
	PluginDirs []string
	// MountRoots are host directories outside the problem that its paths
	// may name (--mount-root); everything else a problem names must stay
	// inside the problem directory.
	MountRoots []string
	// Refs resolves plugins bound by reference (`ref: oci://…`) to a
	// local copy of the module. Nil refuses such bindings: only the CLI,
	// which reads the problem's lock file, knows how to find them.
	Refs RefResolver
	// ShippedPlugins are the plugin files a distributed run's coordinator
	// sent with a job, by sha256 (lowercase hex): a binding by path
	// outside the problem directory (under a --mount-root of the
	// coordinator's) whose pin is one of them loads that file instead,
	// here and in the cases (Problem.ShippedPlugins). The pin decides
	// what a plugin is; the path only where the coordinator found it.
	ShippedPlugins map[string]string
	// Shipped, set on a distributed run's worker, says where the
	// problem was loaded on the coordinator and which of the paths it
	// named outside its directory were sent, with their copies here:
	// those paths lead to the copies (confine.NewShipped).
	Shipped *confine.Shipped
}

// RefResolver finds the module a binding names by reference. The sha256
// written beside the reference stays authoritative: the loader checks the
// module it is given against it, whatever the resolver did.
type RefResolver interface {
	// Resolve returns the path of a local file holding the module that
	// ref names; sha256 is the binding's pin ("" when it has none, so
	// that the error can say what it should be). Its error is one line
	// that names the reference.
	Resolve(ref, sha256 string) (path string, err error)
}

// Load reads and resolves the problem at path (a directory holding
// config.yaml, or the config file itself). Every problem found is returned
// at once as a diag.List.
func Load(path string, opts Options) (*Problem, error) {
	l := &loader{opts: opts, digest: sha256.New()}
	p := l.load(path)
	if err := l.errs.Err(); err != nil {
		return nil, err
	}
	p.Digest = hex.EncodeToString(l.digest.Sum(nil))
	return p, nil
}

type loader struct {
	opts   Options
	errs   diag.List
	digest hash.Hash
	dir    string // the problem directory
	// files is the only way the loader reaches the problem's files: it
	// refuses paths that leave the problem (and the mount roots).
	files *confine.Tree
	// envSites are the env mappings read, checked once the groups are
	// known (checkEnvPlaceholders).
	envSites []envSite
}

// parse reads a config file; file is named in diagnostics as given (the
// problem's own config.yaml may be relative to the working directory).
func (l *loader) parse(file string) (*yaml.Node, bool) {
	abs, err := filepath.Abs(file)
	if err != nil {
		l.errs.Add(file, "", 0, "cannot read file: %v", err)
		return nil, false
	}
	data, err := l.files.ReadFile(abs)
	if err != nil {
		l.errs.Add(file, "", 0, "cannot read file: %v", diag.UnwrapPathError(err))
		return nil, false
	}
	fmt.Fprintf(l.digest, "%s\x00%d\x00", filepath.Base(file), len(data))
	l.digest.Write(data)
	return strictyaml.ParseBytes(file, data, &l.errs)
}

func (l *loader) load(path string) *Problem {
	file := path
	if st, err := os.Stat(path); err != nil {
		l.errs.Add(path, "", 0, "problem not found: %v", diag.UnwrapPathError(err))
		return nil
	} else if st.IsDir() {
		file = filepath.Join(path, "config.yaml")
		if _, err := os.Stat(file); err != nil {
			if alt := filepath.Join(path, "config.yml"); fileExists(alt) {
				file = alt
			}
		}
	}
	dir, _ := filepath.Abs(filepath.Dir(file))
	files, err := confine.NewShipped(dir, l.opts.Shipped, l.opts.MountRoots...)
	if err != nil {
		l.errs.Add(path, "", 0, "%v", err)
		return nil
	}
	l.dir, l.files = dir, files
	root, ok := l.parse(file)
	if !ok {
		return nil
	}
	var raw rawProblem
	d := &strictyaml.Decoder{File: file, Errs: &l.errs}
	d.Decode(root, "", &raw)

	p := &Problem{
		Name: raw.Name, Description: raw.Description, Tags: raw.Tags,
		Author: raw.Author, Category: raw.Category, Difficulty: raw.Difficulty,
		Dir: dir, File: file, EntryFile: raw.EntryFile, Command: raw.Command,
		Version: 1, OutputCap: DefaultOutputCap, Files: files, ShippedPlugins: l.opts.ShippedPlugins,
		cases: &casePlugins{binder: NewPluginBinder(files, l.opts), done: map[string]string{}},
	}
	if raw.Version != nil {
		p.Version = *raw.Version
	}
	if raw.OutputCap != nil {
		if *raw.OutputCap <= 0 {
			l.errs.Add(file, "output_cap", keyLine(root, "output_cap"), "expected a positive number of bytes")
		} else {
			p.OutputCap = *raw.OutputCap
		}
	}
	if raw.Environment != "" {
		if _, err := l.resolve(raw.Environment, isFile); err != nil {
			l.errs.Add(file, "environment", keyLine(root, "environment"), "environment spec: %v", err)
		} else {
			p.Environment = l.files.Abs(raw.Environment)
		}
	}
	if raw.Name == "" {
		l.errs.Add(file, "name", 0, "required key is missing: the problem's name")
	}
	if raw.EntryFile == "" && raw.Command == "" {
		l.errs.Add(file, "entry_file", 0, "required key is missing: the submission's entry file (or a `command` template)")
	}
	if raw.EntryFile != "" && !isLocalPath(raw.EntryFile) {
		l.errs.Add(file, "entry_file", keyLine(root, "entry_file"), "expected a path relative to the submission, got %q", raw.EntryFile)
	}

	p.Adapter = Adapter{Type: raw.Adapter.Type, TrackedFiles: raw.Adapter.TrackedFiles, Raw: raw.Adapter.Raw,
		Server: raw.Adapter.Server, Response: raw.Adapter.Response, Browser: raw.Adapter.Browser, Agent: raw.Adapter.Agent}
	if p.Adapter.Type == "" {
		p.Adapter.Type = AdapterCLI
	}
	if !slices.Contains(AdapterTypes, p.Adapter.Type) {
		l.errs.Add(file, "adapter.type", keyLine(raw.Adapter.node, "type"), "unknown adapter %q (expected %s)", p.Adapter.Type, strings.Join(AdapterTypes, ", "))
	}
	for i, t := range p.Adapter.TrackedFiles {
		if !isLocalPath(t) {
			l.errs.Add(file, pathIndex("adapter.tracked_files", i), keyLine(raw.Adapter.node, "tracked_files"), "tracked file %q escapes the workspace; expected a relative path", t)
		}
	}

	p.StaticAssets = l.staticAssets(file, raw.StaticAssets)

	base := scope{env: raw.Env, checks: raw.Checks, timeout: DefaultTimeout}
	if _, ok := l.loaderConfig(file, "", raw.Loader, "", nil); !ok {
		base.loader, base.loaderRef = l.loaderName(file, "", root, raw.LoaderScript, raw.Loader)
	}
	p.ArgumentSplitting = l.argumentSplitting(file, root, raw.ArgumentSplitting)
	p.TimeoutOutcome = l.timeoutOutcome(file, root, raw.TimeoutOutcome)
	if raw.TimeoutOutcome == "" && p.Adapter.Type == AdapterAgent {
		// An agent out of time has not answered: its run is the
		// harness's to retry, not a wrong answer (docs/agents.md).
		p.TimeoutOutcome = TimeoutErrors
	}
	base.verifier = l.verifierRef(file, "", raw.Verifier, nil)
	base.mocks = l.mocks(file, "", &raw.Mocks, nil)
	raw.Checks.validate(file, l.opts.ValidateCheck, &l.errs)
	l.checkRefs(file, &raw.Checks)

	if raw.Timeout != nil {
		base.timeout = l.seconds(file, "timeout", keyLine(root, "timeout"), *raw.Timeout)
	}
	if raw.Checkpoints.node == nil {
		l.errs.Add(file, "checkpoints", 0, "required key is missing: at least one checkpoint")
		return p
	}
	if n := raw.Checkpoints.node; (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) && len(n.Content) == 0 {
		// A problem with nothing to run would pass every policy vacuously.
		l.errs.Add(file, "checkpoints", keyLine(root, "checkpoints"), "expected at least one checkpoint, got none")
		return p
	}
	p.Checkpoints = l.checkpoints(file, dir, &raw.Checkpoints, base)
	// After the groups: a {{mock.NAME}} must name a mock of every group.
	l.checkPlaceholders(file, root, raw.Adapter.node, p)
	l.envSites = append(l.envSites, envSite{file: file, node: root, env: raw.Env, groups: p.groups})
	l.checkEnvPlaceholders(p)
	return p
}

// scope carries the inheritable settings from a parent level.
type scope struct {
	env       map[string]string
	timeout   time.Duration
	checks    rawChecks
	loader    string
	loaderRef *PluginRef
	verifier  *PluginRef
	mocks     []Mock
}

// verifierRef resolves a `verifier:` key: a plugin, or SlopCodeBench's
// built-in names ("checks", a verifier.py), which mean the declared checks.
func (l *loader) verifierRef(file, path string, m *rawLoader, inherited *PluginRef) *PluginRef {
	if m == nil {
		return inherited
	}
	key := diag.JoinPath(path, "verifier")
	if !m.namesPlugin() && m.Config != nil {
		// Only a config: the enclosing level's verifier plugin, configured
		// for this level.
		if inherited == nil {
			l.errs.Add(file, key, m.line, "a verifier config without a plugin: name the plugin here or at an enclosing level")
			return nil
		}
		ref := *inherited
		ref.Config = m.Config
		ref.At = checkspec.Location{File: file, Key: key, Line: m.line}
		return &ref
	}
	if m.isPlugin() {
		return l.pluginRef(file, key, m)
	}
	n := m.name()
	switch {
	case n == "" || n == "checks":
	case looksLikeFile(n):
		// SlopCodeBench's verifier.py, or any other program: never the
		// built-in checks in its place.
		at := key
		if m.nameKey() != "" {
			at = diag.JoinPath(key, m.nameKey())
		}
		l.errs.Add(file, at, m.line, "%s", nonWasm("verifier", n,
			"if it only compares the expected values, remove `verifier` and let the built-in checks compare them (docs/checks.md)"))
	default:
		l.errs.Add(file, key, m.line, "verifier %q is not available: name a plugin ({type: plugin, path: ..., sha256: ...}) or use the built-in checks (verifier: checks, or no verifier)", n)
	}
	return nil
}

// checkRefs resolves plugin references inside a checks list and checks
// the problem files its checks read.
func (l *loader) checkRefs(file string, c *rawChecks) {
	for i := range c.items {
		spec := &c.items[i]
		if ref := spec.Plugin; ref != nil {
			l.resolveRef(file, c.paths[i]+".plugin", c.lines[i], ref)
		}
		for k, call := range spec.Calls {
			if call.Plugin != nil {
				l.resolveRef(file, fmt.Sprintf("%s.calls[%d].plugin", c.paths[i], k), c.lines[i], call.Plugin)
			}
		}
		for _, f := range [][2]string{{"expected_file", spec.ExpectedFile}, {"schema_file", spec.SchemaFile}} {
			if f[1] == "" {
				continue
			}
			if err := CheckProblemFile(l.files, f[1]); err != nil {
				l.errs.Add(file, c.paths[i]+"."+f[0], c.lines[i], "%v", err)
			}
		}
	}
}

func (l *loader) staticAssets(file string, raw map[string]rawStaticAsset) map[string]StaticAsset {
	out := map[string]StaticAsset{}
	for name, a := range raw {
		kp := "static_assets." + name
		if err := CheckName(name); err != nil {
			// The name becomes /static/<name> in a container.
			l.errs.Add(file, kp, a.line, "static asset %v", err)
			continue
		}
		if a.Path == "" {
			l.errs.Add(file, kp+".path", a.line, "required key is missing: the asset's path")
			continue
		}
		if _, err := l.resolve(a.Path, isFileOrDir); err != nil {
			l.errs.Add(file, kp+".path", a.line, "static asset: %v", err)
			continue
		}
		save := a.SavePath
		if save == "" {
			save = "/static/" + name
		}
		// The path as written (made absolute), not its resolved target:
		// a file asset keeps its own name where the runtime exposes it.
		out[name] = StaticAsset{Name: name, Path: l.files.Abs(a.Path), SavePath: save}
	}
	return out
}

func (l *loader) loaderName(file, path string, node *yaml.Node, script string, m *rawLoader) (string, *PluginRef) {
	name := script
	line := keyLine(node, "loader_script")
	key := diag.JoinPath(path, "loader_script")
	if m != nil {
		if script != "" {
			l.errs.Add(file, diag.JoinPath(path, "loader"), m.line, "loader given twice: as `loader` and as `loader_script`; keep one")
		}
		name, line, key = m.name(), m.line, diag.JoinPath(path, "loader")
		if m.Type != "" && m.Type != "script" && m.Type != "builtin" && m.Type != "plugin" {
			l.errs.Add(file, diag.JoinPath(key, "type"), m.line, "unknown loader type %q (expected script, builtin or plugin)", m.Type)
		}
		if m.isPlugin() {
			return LoaderPlugin, l.pluginRef(file, key, m)
		}
	}
	if name == "" {
		return "", nil
	}
	if m != nil && m.nameKey() != "" {
		key = diag.JoinPath(key, m.nameKey())
	}
	if looksLikeFile(name) {
		// A SlopCodeBench problem names loader.py. The built-in loaders
		// read the usual case layouts, but what the script does is not
		// known: substituting one would validate, then score wrongly.
		l.errs.Add(file, key, line, "%s", nonWasm("loader", name, fmt.Sprintf(
			"if it only reads cases in a layout a built-in loader reads, name that loader instead (loader: auto; built-in loaders: %s, see docs/cases.md)",
			strings.Join(l.opts.Loaders, ", "))))
		return "", nil
	}
	for _, known := range l.opts.Loaders {
		if known == name {
			return name, nil
		}
	}
	l.errs.Add(file, key, line, "unknown loader %q (built-in loaders: %s, or a plugin)", name, strings.Join(l.opts.Loaders, ", "))
	return "", nil
}

// LoaderPlugin is the loader name of a group whose cases come from a
// loader plugin (Group.LoaderRef).
const LoaderPlugin = "plugin"

func (l *loader) seconds(file, path string, line int, s float64) time.Duration {
	if s <= 0 {
		l.errs.Add(file, path, line, "expected a positive number of seconds, got %v", s)
		return DefaultTimeout
	}
	return Seconds(s)
}

// checkpoints resolves every checkpoint in run order.
func (l *loader) checkpoints(file, dir string, rc *rawCheckpoints, base scope) []*Checkpoint {
	type pending struct {
		cp    *Checkpoint
		raw   rawCheckpoint
		file  string
		path  string
		node  *yaml.Node
		order bool
	}
	var all []*pending
	seen := map[string]bool{}
	for i, e := range rc.entries {
		if err := CheckName(e.name); err != nil {
			l.errs.Add(file, e.path, e.line, "checkpoint %v", err)
			continue
		}
		if seen[e.name] {
			l.errs.Add(file, e.path, e.line, "checkpoint %q listed twice", e.name)
			continue
		}
		seen[e.name] = true
		pd := &pending{cp: &Checkpoint{Name: e.name, Order: i + 1, Version: 1}, file: file, path: e.path, node: e.node}
		if e.node == nil {
			// List form: the checkpoint's own directory holds its config.
			cfile := filepath.Join(dir, e.name, "config.yaml")
			if _, err := l.resolve(cfile, isFile); errors.Is(err, fs.ErrNotExist) {
				l.errs.Add(file, e.path, e.line, "checkpoint directory %q has no config.yaml", e.name)
				continue
			} else if err != nil {
				l.errs.Add(file, e.path, e.line, "checkpoint %q: %v", e.name, err)
				continue
			}
			node, ok := l.parse(cfile)
			if !ok {
				continue
			}
			pd.file, pd.path, pd.node = cfile, "", node
		}
		d := &strictyaml.Decoder{File: pd.file, Errs: &l.errs}
		if !(pd.node.Kind == yaml.ScalarNode && pd.node.Tag == "!!null") {
			d.Decode(pd.node, pd.path, &pd.raw)
		}
		if pd.raw.Order != nil {
			pd.cp.Order = *pd.raw.Order
		}
		all = append(all, pd)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].cp.Order < all[j].cp.Order })
	for i := 1; i < len(all); i++ {
		if all[i].cp.Order == all[i-1].cp.Order {
			l.errs.Add(all[i].file, diag.JoinPath(all[i].path, "order"), keyLine(all[i].node, "order"),
				"checkpoints %q and %q have the same order %d", all[i-1].cp.Name, all[i].cp.Name, all[i].cp.Order)
		}
	}

	var out []*Checkpoint
	byName := map[string]*resolvedCheckpoint{}
	var earlier []*resolvedCheckpoint
	for _, pd := range all {
		rcp := l.checkpoint(pd.file, dir, pd.path, pd.node, pd.cp, &pd.raw, base, byName, earlier)
		byName[pd.cp.Name] = rcp
		earlier = append(earlier, rcp)
		out = append(out, pd.cp)
	}
	return out
}

// resolvedCheckpoint keeps what regression expansion needs from an earlier
// checkpoint.
type resolvedCheckpoint struct {
	cp     *Checkpoint
	groups map[string]*Group
}

func (l *loader) checkpoint(file, dir, path string, node *yaml.Node, cp *Checkpoint, raw *rawCheckpoint,
	base scope, byName map[string]*resolvedCheckpoint, earlier []*resolvedCheckpoint) *resolvedCheckpoint {
	if raw.Version != nil {
		cp.Version = *raw.Version
	}
	cp.Specification = raw.Specification
	if cp.Specification == "" {
		cp.Specification = "spec.md"
	}
	cp.State = raw.State
	if cp.State == "" {
		cp.State = "Draft"
	}
	switch cp.State {
	case "Draft", "Core Tests", "Full Tests", "Verified":
	default:
		l.errs.Add(file, diag.JoinPath(path, "state"), keyLine(node, "state"), "unknown state %q (expected Draft, Core Tests, Full Tests or Verified)", cp.State)
	}
	if len(raw.StaticAssets) > 0 || len(raw.SubmissionStaticAssets) > 0 {
		l.errs.Add(file, diag.JoinPath(path, "static_assets"), keyLine(node, "static_assets"), "static assets belong to the problem's config.yaml, not to a checkpoint")
	}
	// The directory as written (made absolute): loaders open what is
	// below it through the problem's confine.Tree, which checks it again.
	cpPath := raw.Path
	if cpPath == "" {
		cpPath = cp.Name
	}
	cp.Dir = l.files.Abs(cpPath)
	if _, err := l.resolve(cpPath, isDir); errors.Is(err, fs.ErrNotExist) {
		l.errs.Add(file, diag.JoinPath(path, "path"), keyLine(node, "path"), "checkpoint directory %s does not exist", relTo(dir, cp.Dir))
	} else if err != nil {
		l.errs.Add(file, diag.JoinPath(path, "path"), keyLine(node, "path"), "checkpoint directory: %v", err)
	}

	sc := scope{env: MergeEnv(base.env, raw.Env), timeout: base.timeout, checks: base.checks, loader: base.loader, loaderRef: base.loaderRef}
	sc.verifier = l.verifierRef(file, path, raw.Verifier, base.verifier)
	sc.mocks = l.mocks(file, path, &raw.Mocks, base.mocks)
	if raw.Timeout != nil {
		sc.timeout = l.seconds(file, diag.JoinPath(path, "timeout"), keyLine(node, "timeout"), *raw.Timeout)
	}
	if raw.Checks.set {
		raw.Checks.validate(file, l.opts.ValidateCheck, &l.errs)
		l.checkRefs(file, &raw.Checks)
		sc.checks = raw.Checks
	}
	if ref, ok := l.loaderConfig(file, path, raw.Loader, sc.loader, sc.loaderRef); ok {
		if ref != nil {
			sc.loader, sc.loaderRef = LoaderPlugin, ref
		}
	} else if ln, ref := l.loaderName(file, path, node, raw.LoaderScript, raw.Loader); ln != "" {
		sc.loader, sc.loaderRef = ln, ref
	}
	cp.Env, cp.Timeout = sc.env, sc.timeout

	var constant []string
	for i, f := range raw.ConstantFiles {
		constant = append(constant, l.groupFile(file, pathIndex(diag.JoinPath(path, "constant_files"), i), keyLine(node, "constant_files"), cp.Dir, f))
	}

	rcp := &resolvedCheckpoint{cp: cp, groups: map[string]*Group{}}
	groupsPath := diag.JoinPath(path, "groups")
	for i, name := range raw.Groups.names {
		rg := &raw.Groups.items[i]
		gp := diag.JoinPath(groupsPath, name)
		if err := CheckName(name); err != nil {
			l.errs.Add(file, gp, rg.line, "group %v", err)
			continue
		}
		g := l.group(file, gp, raw.Groups.nodes[i], cp, name, rg, sc, byName)
		g.GroupFiles = append(append([]string{}, constant...), g.GroupFiles...)
		cp.Groups = append(cp.Groups, g)
		rcp.groups[name] = g
	}
	for i := range raw.Regressions {
		for _, g := range l.expandRegression(file, pathIndex(diag.JoinPath(path, "regressions"), i), &raw.Regressions[i], cp, sc, earlier) {
			if _, dup := rcp.groups[g.Name]; dup {
				l.errs.Add(file, pathIndex(diag.JoinPath(path, "regressions"), i), raw.Regressions[i].line,
					"regression group %q collides with a group of the same name; set name_template", g.Name)
				continue
			}
			g.GroupFiles = append(append([]string{}, constant...), g.GroupFiles...)
			cp.Groups = append(cp.Groups, g)
			rcp.groups[g.Name] = g
		}
	}
	if len(cp.Groups) == 0 {
		l.errs.Add(file, groupsPath, keyLine(node, "groups"), "checkpoint %q has no groups", cp.Name)
	}
	l.envSites = append(l.envSites, envSite{file: file, path: path, node: node, env: raw.Env, groups: func() []*Group { return cp.Groups }})
	return rcp
}

func (l *loader) group(file, path string, node *yaml.Node, cp *Checkpoint, name string, rg *rawGroup, sc scope, byName map[string]*resolvedCheckpoint) *Group {
	g := &Group{
		Name: name, Type: GroupType(rg.Type), CaseOrder: rg.CaseOrder, CaseDefaults: rg.CaseDefaults.values, CaseDefaultsNode: rg.CaseDefaults.node,
		Isolated: true, Timeout: sc.timeout, Env: MergeEnv(sc.env, rg.Env), Loader: sc.loader, LoaderRef: sc.loaderRef,
		Verifier: l.verifierRef(file, path, rg.Verifier, sc.verifier),
		Mocks:    l.mocks(file, path, &rg.Mocks, sc.mocks),
		CasesDir: cp.Dir, CaseGroup: name, File: file, Path: path,
	}
	l.envSites = append(l.envSites, envSite{file: file, path: path, node: node, env: rg.Env, groups: func() []*Group { return []*Group{g} }})
	if rg.Name != "" && rg.Name != name {
		l.errs.Add(file, diag.JoinPath(path, "name"), keyLine(node, "name"), "group name %q does not match its key %q", rg.Name, name)
	}
	if g.Type == "" {
		g.Type = DefaultGroupType
	}
	if !g.Type.Valid() {
		l.errs.Add(file, diag.JoinPath(path, "type"), keyLine(node, "type"), "unknown group type %q (expected Core, Functionality, Error or Regression)", rg.Type)
	}
	if rg.Isolated != nil {
		g.Isolated = *rg.Isolated
	}
	if rg.Timeout != nil {
		g.Timeout = l.seconds(file, diag.JoinPath(path, "timeout"), keyLine(node, "timeout"), *rg.Timeout)
	}
	checks := sc.checks
	if rg.Checks.set {
		rg.Checks.validate(file, l.opts.ValidateCheck, &l.errs)
		l.checkRefs(file, &rg.Checks)
		checks = rg.Checks
	}
	g.Checks = checks.items
	if ref, ok := l.loaderConfig(file, path, rg.Loader, sc.loader, sc.loaderRef); ok {
		if ref != nil {
			g.Loader, g.LoaderRef = LoaderPlugin, ref
		}
	} else if rg.Loader != nil {
		if ln, ref := l.loaderName(file, path, node, "", rg.Loader); ln != "" {
			g.Loader, g.LoaderRef = ln, ref
		}
	}
	for i, f := range rg.GroupFiles {
		g.GroupFiles = append(g.GroupFiles, l.groupFile(file, pathIndex(diag.JoinPath(path, "group_files"), i), keyLine(node, "group_files"), cp.Dir, f))
	}

	// A hand-written regression group names its source explicitly.
	if rg.OriginalCheckpoint != "" || rg.OriginalGroup != "" {
		switch {
		case g.Type != Regression:
			l.errs.Add(file, diag.JoinPath(path, "original_checkpoint"), keyLine(node, "original_checkpoint"),
				"original_checkpoint/original_group are only allowed on groups of type Regression")
		case rg.OriginalCheckpoint == "" || rg.OriginalGroup == "":
			l.errs.Add(file, path, rg.line, "a regression group needs both original_checkpoint and original_group")
		default:
			src, ok := byName[rg.OriginalCheckpoint]
			if !ok {
				l.errs.Add(file, diag.JoinPath(path, "original_checkpoint"), keyLine(node, "original_checkpoint"),
					"checkpoint %q does not exist or does not come before %q", rg.OriginalCheckpoint, cp.Name)
				break
			}
			sg, ok := src.groups[rg.OriginalGroup]
			if !ok {
				l.errs.Add(file, diag.JoinPath(path, "original_group"), keyLine(node, "original_group"),
					"checkpoint %q has no group %q", rg.OriginalCheckpoint, rg.OriginalGroup)
				break
			}
			g.OriginalCheckpoint, g.OriginalGroup = rg.OriginalCheckpoint, rg.OriginalGroup
			if sg.IsRegression() { // follow a chain back to where the cases live
				g.OriginalCheckpoint, g.OriginalGroup = sg.OriginalCheckpoint, sg.OriginalGroup
			}
			g.CasesDir, g.CaseGroup = sg.CasesDir, sg.CaseGroup
			if len(g.CaseOrder) == 0 {
				g.CaseOrder = sg.CaseOrder
			}
		}
	}
	return g
}

func (l *loader) groupFile(file, path string, line int, cpDir, rel string) string {
	if !isLocalPath(rel) {
		l.errs.Add(file, path, line, "%q escapes the checkpoint directory; expected a relative path", rel)
		return ""
	}
	abs := filepath.Join(cpDir, filepath.FromSlash(rel))
	if _, err := l.resolve(abs, isFile); errors.Is(err, fs.ErrNotExist) {
		l.errs.Add(file, path, line, "file %q not found in %s", rel, cpDir)
	} else if err != nil {
		l.errs.Add(file, path, line, "%v", err)
	}
	// As written: the workspace gets the file under this name.
	return abs
}

// MergeEnv returns parent's variables overridden by child's, in a new map.
func MergeEnv(parent, child map[string]string) map[string]string {
	out := make(map[string]string, len(parent)+len(child))
	for k, v := range parent {
		out[k] = v
	}
	for k, v := range child {
		out[k] = v
	}
	return out
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// isLocalPath reports whether p is relative and stays inside its root.
func isLocalPath(p string) bool {
	return p != "" && filepath.IsLocal(filepath.FromSlash(p))
}

func relTo(base, p string) string {
	if r, err := filepath.Rel(base, p); err == nil {
		return r
	}
	return p
}

// keyLine finds the line of key in a mapping node (0 when absent); with an
// empty key it returns the node's own line.
func keyLine(n *yaml.Node, key string) int {
	if n == nil {
		return 0
	}
	if key == "" {
		return n.Line
	}
	if n.Kind == yaml.MappingNode {
		for _, kv := range strictyaml.MappingPairs(n) {
			if kv[0].Value == key {
				return kv[0].Line
			}
		}
	}
	return n.Line
}
