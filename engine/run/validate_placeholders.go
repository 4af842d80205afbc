package run

import (
	"maps"
	"slices"
	"strings"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/placeholder"
	"github.com/wasmeval/wasmeval/engine/problem"
)

// validateCasePlaceholders reports wasmeval's own placeholders in a
// case's arguments and env that its processes would get as written: a
// {{mock.NAME}} the group declares no mock NAME for, and {{host}} or
// {{port}}, which only a server's command, arguments and env get. Other
// words in double braces are left alone there: a case's arguments are
// data for the submission, which may be a template engine.
func validateCasePlaceholders(g *problem.Group, c *cases.Case, errs *diag.List) {
	mocks := mockNames(g)
	check := func(key, text string) {
		for _, p := range placeholder.Find(text) {
			switch {
			case p == placeholder.Host || p == placeholder.Port:
				addAt(errs, c, key, "case %s: %s is filled in only in a server's command, arguments and env; a case's arguments and env get it as written", c.ID, p)
			case strings.HasPrefix(p, placeholder.MockPrefix):
				name := strings.TrimSuffix(strings.TrimPrefix(p, placeholder.MockPrefix), "}}")
				if !slices.Contains(mocks, name) {
					addAt(errs, c, key, "case %s: %s: group %s declares no mock %q (declared there: %s)", c.ID, p, g.Name, name, orNone(mocks))
				}
			}
		}
	}
	for i, a := range c.Arguments {
		check(diag.IndexPath("arguments", i), a)
	}
	for _, k := range slices.Sorted(maps.Keys(c.Env)) {
		if v, inherited := g.Env[k]; inherited && v == c.Env[k] {
			continue // the group's, checked with the problem
		}
		check("env."+k, c.Env[k])
	}
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
