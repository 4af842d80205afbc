package run

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/verify"
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
}

// LoadProblemWith is LoadProblem with the mount roots the user allowed.
func LoadProblemWith(path string, o LoadOptions) (*problem.Problem, error) {
	return problem.Load(path, problem.Options{
		Loaders:       cases.BuiltinNames(),
		ValidateCheck: verify.Validate,
		PluginDirs:    o.PluginDirs,
		MountRoots:    o.MountRoots,
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
// case_order entries, bad checks on cases, unknown static assets.
//
// Plugins are loaded through h (compiled and checked: digest, ABI, kinds);
// h may be nil when the problem references none.
func Validate(ctx context.Context, p *problem.Problem, loaderFor func(string) (cases.Loader, bool), h *host.Host) error {
	plugins := newPluginSet(h, p)
	if err := plugins.preload(ctx, p); err != nil {
		return err
	}
	var errs diag.List
	for _, cp := range p.Checkpoints {
		for _, g := range cp.Groups {
			errs = append(errs, validateGroup(ctx, p, cp, g, plugins, loaderFor)...)
		}
	}
	return errs.Err()
}

func validateGroup(ctx context.Context, p *problem.Problem, cp *problem.Checkpoint, g *problem.Group, plugins *pluginSet, loaderFor func(string) (cases.Loader, bool)) diag.List {
	var errs diag.List
	where := fmt.Sprintf("checkpoint %s, group %s", cp.Name, g.Name)
	loader, err := plugins.loaderFor(ctx, g, loaderFor)
	if err != nil {
		errs.Add(p.File, "", 0, "%s: %v", where, err)
		return errs
	}
	stream, err := loader.Open(ctx, GroupInput(p, cp, g))
	if err != nil {
		errs.Append(err)
		return errs
	}
	defer stream.Close()
	if _, stateful := stream.(interface{ NeedsHistory() bool }); stateful {
		return errs // expected values need real results; nothing more to check statically
	}
	n := 0
	for {
		c, err := stream.Next(ctx, nil)
		if errors.Is(err, io.EOF) {
			break
		}
		var caseErr *cases.CaseError
		if errors.As(err, &caseErr) {
			errs.Append(caseErr.Err) // the stream moved on: keep collecting
			continue
		}
		if err != nil {
			errs.Append(err)
			break
		}
		n++
		for i, spec := range c.Checks {
			for _, msg := range verify.Validate(spec) {
				errs.Add(c.Source, diag.IndexPath("checks", i), 0, "%s", msg)
			}
		}
		validateCaseForAdapter(p, c, &errs)
		for _, name := range cases.StaticNames(c) {
			if _, ok := p.StaticAssets[name]; !ok {
				errs.Add(c.Source, "", 0, "case %s uses {{static:%s}} but the problem declares no such static asset", c.ID, name)
			}
		}
	}
	if n == 0 && len(errs) == 0 {
		errs.Add(p.File, "", 0, "%s has no cases", where)
	}
	return errs
}
