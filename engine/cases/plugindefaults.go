package cases

import (
	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/strictyaml"
)

// DefaultCase is the case a group's case_defaults make on their own: what
// a case that sets nothing becomes, built and checked as the built-in
// loaders build theirs (arguments split as the problem says, input files
// serialised, expected values and checks checked, reported at the
// group's case_defaults). Nil, with no error, when the group has none.
// Loaders that make cases some other way (a loader plugin) merge their
// cases over it, so case_defaults apply to every loader alike.
func DefaultCase(g GroupInput) (*Case, error) {
	if len(g.CaseDefaults) == 0 {
		return nil, nil
	}
	gc, err := openGroup(g)
	if err != nil {
		return nil, err
	}
	var errs diag.List
	d := &strictyaml.Decoder{File: g.ConfigFile, Errs: &errs}
	src := source{file: g.ConfigFile, path: diag.JoinPath(g.ConfigPath, "case_defaults")}
	c := build(&gc.in, gc.defaults, &rawCase{}, d, src, nil)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return c, nil
}
