package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/verify"
	"github.com/wasmeval/wasmeval/engine/workspace/confine"
	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// LoadProblem loads a problem with the engine's built-in loaders and checks;
// plugins referenced by name are looked up in pluginDirs.
func LoadProblem(path string, pluginDirs ...string) (*problem.Problem, error) {
	return LoadProblemWith(path, LoadOptions{PluginDirs: pluginDirs})
}

// LoadOptions are what the user adds to a problem when loading it.
type LoadOptions struct {
	// PluginDirs are searched for plugins referenced by name.
	PluginDirs []string
	// MountRoots are host directories outside the problem that its paths
	// may name (--mount-root), as an environment spec's mounts may.
	MountRoots []string
	// Refs resolves plugins bound by reference (see
	// problem.Options.Refs).
	Refs problem.RefResolver
	// ShippedPlugins are the plugin files a distributed run's
	// coordinator sent (see problem.Options.ShippedPlugins).
	ShippedPlugins map[string]string
	// Shipped: the coordinator's paths and their copies on a
	// distributed run's worker (see problem.Options.Shipped).
	Shipped *confine.Shipped
}

// LoadProblemWith is LoadProblem with the mount roots the user allowed.
func LoadProblemWith(path string, o LoadOptions) (*problem.Problem, error) {
	return problem.Load(path, problem.Options{
		Loaders:        cases.BuiltinNames(),
		ValidateCheck:  verify.Validate,
		PluginDirs:     o.PluginDirs,
		MountRoots:     o.MountRoots,
		Refs:           o.Refs,
		ShippedPlugins: o.ShippedPlugins,
		Shipped:        o.Shipped,
	})
}

// BuiltinLoader resolves a loader name; the empty name is "auto".
func BuiltinLoader(name string) (cases.Loader, bool) {
	if name == "" {
		name = "auto"
	}
	return cases.Builtin(name)
}

// Validate loads every case of every group (without running anything) and
// returns all problems found: unreadable or malformed case files, dangling
// case_order entries, bad checks on cases, unknown static assets, expected
// values the adapter never produces. See ValidateGroups.
func Validate(ctx context.Context, p *problem.Problem, loaderFor func(string) (cases.Loader, bool), h *host.Host) error {
	_, err := ValidateGroups(ctx, p, loaderFor, h)
	return err
}

// GroupCheck says what validation learnt about one group.
type GroupCheck struct {
	Checkpoint, Group string
	// Loader names what loaded the cases: the built-in loader and the
	// layout it found, or the loader plugin.
	Loader string
	// Cases is the number of cases validated.
	Cases int
	// Partial says why not every case could be validated (a stateful
	// loader computes later cases from results); empty when all were.
	Partial string
	// Plugins are the plugins the validated cases bind in their checks
	// (evaluator and test checks, and an evaluators check's calls), each
	// binding once: a case's own, written in its case file or its
	// case_defaults, with a path relative to the problem as the case
	// wrote it, and the group's that the cases inherit. A distributed
	// run sends those from outside the problem with its jobs.
	Plugins []*problem.PluginRef
}

// ValidateGroups is Validate, also saying per group which loader read the
// cases and how many were validated.
//
// Every group's cases are loaded, loader plugins included: a stateless
// plugin gives all its cases; a stateful one, which computes cases from
// earlier results, gives those it can before any result, and GroupCheck
// says so.
//
// A problem found in the cases of a group imported by regressions is the
// same problem wherever it is imported: it is reported once, naming every
// group that reaches it.
//
// Plugins are loaded through h (compiled and checked: digest, ABI, kinds);
// h may be nil when the problem references none.
func ValidateGroups(ctx context.Context, p *problem.Problem, loaderFor func(string) (cases.Loader, bool), h *host.Host) ([]GroupCheck, error) {
	plugins := newPluginSet(h, p)
	if err := plugins.preload(ctx, p); err != nil {
		return nil, err
	}
	var out diag.List
	var reached [][]string
	index := map[diag.Error]int{}
	var checks []GroupCheck
	for _, cp := range p.Checkpoints {
		for _, g := range cp.Groups {
			gc, errs := validateGroup(ctx, p, cp, g, plugins, loaderFor)
			checks = append(checks, gc)
			place := cp.Name + "/" + g.Name
			if g.OriginalCheckpoint != "" {
				place += " (regression)"
			}
			for _, e := range errs {
				if i, ok := index[*e]; ok {
					if !slices.Contains(reached[i], place) {
						reached[i] = append(reached[i], place)
					}
					continue
				}
				index[*e] = len(out)
				dup := *e
				out = append(out, &dup)
				reached = append(reached, []string{place})
			}
		}
	}
	for i, e := range out {
		if len(reached[i]) > 1 {
			e.Msg += fmt.Sprintf(" (in the cases of %d groups: %s)", len(reached[i]), strings.Join(reached[i], ", "))
		}
	}
	return checks, out.Err()
}

func validateGroup(ctx context.Context, p *problem.Problem, cp *problem.Checkpoint, g *problem.Group, plugins *pluginSet, loaderFor func(string) (cases.Loader, bool)) (GroupCheck, diag.List) {
	var errs diag.List
	check := GroupCheck{Checkpoint: cp.Name, Group: g.Name}
	where := fmt.Sprintf("checkpoint %s, group %s", cp.Name, g.Name)
	loader, plugin, err := validationLoader(ctx, g, plugins, loaderFor)
	if err != nil {
		errs.Add(p.File, "", 0, "%s: %v", where, err)
		return check, errs
	}
	stateful := false
	if plugin != nil {
		check.Loader = "loader plugin " + plugin.Label()
		stateful = plugin.Describe().Stateful
	}
	stream, err := loader.Open(ctx, GroupInput(p, cp, g))
	if err != nil {
		errs.Append(err)
		return check, errs
	}
	defer stream.Close()
	layouts := map[string]bool{}
	// A check the group's cases share, reading what some cases' expected
	// data lacks, is one error naming those cases, not one per case.
	missing := &expectedGaps{}
	for {
		// A stateful loader is asked as at the start of a run, with no
		// history; it stops after that batch (see pluginLoader.firstBatch).
		c, err := stream.Next(ctx, nil)
		if errors.Is(err, io.EOF) {
			break
		}
		var caseErr *cases.CaseError
		if errors.As(err, &caseErr) {
			// The stream moved on: keep collecting.
			var list diag.List
			if plugin != nil && !errors.As(caseErr.Err, &list) {
				at := g.LoaderRef.At
				errs.Add(at.File, at.Key, at.Line, "%s: loader plugin %s: case %s: %v", where, plugin.Label(), caseErr.ID, caseErr.Err)
			} else {
				errs.Append(caseErr.Err)
			}
			continue
		}
		if err != nil {
			var list diag.List
			if plugin != nil && !errors.As(err, &list) {
				at := g.LoaderRef.At
				errs.Add(at.File, at.Key, at.Line, "%s: %v", where, err)
			} else {
				errs.Append(err)
			}
			break
		}
		check.Cases++
		if plugin == nil {
			layouts[layoutOf(c, g)] = true
		}
		for i, spec := range c.Checks {
			for _, msg := range verify.Validate(spec) {
				addAt(&errs, c, diag.IndexPath("checks", i), "%s", msg)
			}
			check.addPlugins(ctx, plugins, c.Source, diag.IndexPath("checks", i), spec, &errs)
			for _, msg := range verify.ValidateExpected(spec, c.Expected) {
				missing.note(c.Source, i, msg, c.ID)
			}
		}
		validateCaseForAdapter(p, c, &errs)
		validateCasePlaceholders(g, c, &errs)
		validateAttributes(p, g, c, &errs)
		for _, name := range cases.StaticNames(c) {
			if _, ok := p.StaticAssets[name]; !ok {
				addAt(&errs, c, "", "case %s uses {{static:%s}} but the problem declares no such static asset", c.ID, name)
			}
		}
	}
	missing.report(&errs)
	if d, ok := cases.Unchecked(loader).(cases.Describer); ok && plugin == nil {
		check.Loader = d.Describe()
	} else if plugin == nil {
		name := g.Loader
		if name == "" {
			name = cases.LoaderAuto
		}
		check.Loader = "built-in loader " + name
		if l := sortedKeys(layouts); len(l) > 0 {
			check.Loader += ": " + strings.Join(l, ", ")
		}
	}
	if stateful {
		check.Partial = fmt.Sprintf("the loader is stateful: validated the %d case(s) it gives before any result; the cases it computes from results are checked when they are loaded during a run", check.Cases)
		return check, errs
	}
	if check.Cases == 0 && len(errs) == 0 {
		errs.Add(p.File, "", 0, "%s has no cases", where)
	}
	return check, errs
}

// addPlugins adds the plugins a case's check binds (the check written
// under key in file) that are not listed yet, resolved as the problem's
// own bindings are (problem.BindCasePlugin): one of a path inside the
// problem or a --mount-root, a name or a reference, the file a Wasm module
// with the pinned sha256. A binding the case wrote itself is also held to
// what its plugin declares, as the problem's are before a run
// (checkBinding): the check's kind, an evaluator's function, a config its
// config_schema accepts; without that a misnamed function in a case file
// failed the case, as if the submission had answered wrong. (The
// bindings cases inherit from their group were checked when the plugins
// were loaded.) What is wrong is reported where it is written.
func (check *GroupCheck) addPlugins(ctx context.Context, plugins *pluginSet, file, key string, spec problem.CheckSpec, errs *diag.List) {
	add := func(at string, ref *problem.PluginRef, kind, function string) {
		if ref == nil {
			return
		}
		bound, err := plugins.problem.BindCasePlugin(file, at, ref)
		if err != nil {
			errs.Append(err)
			return
		}
		if ref.At.File == "" {
			pl, err := plugins.get(ctx, bound, kind)
			if err != nil {
				errs.Add(file, at, 0, "%v", err)
			} else {
				*errs = append(*errs, checkBinding(pl, bound, function)...)
			}
		}
		for _, have := range check.Plugins {
			if have == bound || have.Path == bound.Path && have.Name == bound.Name && have.Ref == bound.Ref && strings.EqualFold(have.SHA256, bound.SHA256) {
				return
			}
		}
		check.Plugins = append(check.Plugins, bound)
	}
	kind := abi.KindEvaluator
	if spec.Kind == "test" {
		kind = abi.KindTest
	}
	add(key+".plugin", spec.Plugin, kind, spec.Function)
	for j, call := range spec.Calls {
		add(diag.IndexPath(key+".calls", j)+".plugin", call.Plugin, abi.KindEvaluator, call.Function)
	}
}

// validationLoader is the group's loader as a run gets it, except that a
// loader plugin stops after the batch it gives before any result.
func validationLoader(ctx context.Context, g *problem.Group, plugins *pluginSet, loaderFor func(string) (cases.Loader, bool)) (cases.Loader, *host.Plugin, error) {
	if g.Loader == problem.LoaderPlugin && g.LoaderRef != nil {
		p, err := plugins.get(ctx, g.LoaderRef, abi.KindLoader)
		if err != nil {
			return nil, nil, err
		}
		return cases.Checked(&pluginLoader{p: p, ref: g.LoaderRef, dir: plugins.dir, firstBatch: true}), p, nil
	}
	l, err := plugins.loaderFor(ctx, g, loaderFor)
	return l, nil, err
}

// layoutOf names the case layout a built-in loader read a case from.
func layoutOf(c *cases.Case, g *problem.Group) string {
	base, ext := filepath.Base(c.Source), filepath.Ext(c.Source)
	file := ext == ".yaml" || ext == ".yml" || ext == ".json"
	switch {
	case base == "case.yaml" || base == "case.yml" || base == "case.json":
		return "case directories (case.yaml)"
	case file && strings.TrimSuffix(base, ext) == g.CaseGroup:
		return "group file (" + base + ")"
	case file && filepath.Base(filepath.Dir(c.Source)) == g.CaseGroup:
		return "case files (" + g.CaseGroup + "/<case>" + ext + ")"
	}
	return "case directories (ARGS/EXPECTED)"
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// expectedGaps gathers what checks read from cases' expected data that
// the cases lack, by check and message, with the cases concerned.
type expectedGaps struct {
	order []expectedGap
	index map[expectedGapKey]int
}

type expectedGapKey struct {
	check int
	msg   string
}

type expectedGap struct {
	key    expectedGapKey
	source string
	ids    []string
}

func (g *expectedGaps) note(source string, check int, msg, id string) {
	if g.index == nil {
		g.index = map[expectedGapKey]int{}
	}
	k := expectedGapKey{check, msg}
	i, ok := g.index[k]
	if !ok {
		i = len(g.order)
		g.index[k] = i
		g.order = append(g.order, expectedGap{key: k, source: source})
	}
	g.order[i].ids = append(g.order[i].ids, id)
}

// report adds one error per check and message, naming the first few
// cases and how many there are.
func (g *expectedGaps) report(errs *diag.List) {
	const shown = 5
	for _, gap := range g.order {
		ids := gap.ids
		who := "case " + ids[0]
		if len(ids) > 1 {
			who = fmt.Sprintf("%d cases (%s", len(ids), strings.Join(ids[:min(len(ids), shown)], ", "))
			if len(ids) > shown {
				who += ", …"
			}
			who += ")"
		}
		errs.Add(gap.source, diag.IndexPath("checks", gap.key.check), 0, "%s: %s", who, gap.key.msg)
	}
}
