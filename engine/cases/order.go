package cases

import (
	"fmt"
	"sort"
	"strings"
)

// entry is one case as the ordering sees it.
type entry struct {
	name  string
	order *int
}

// sortEntries puts cases in run order: the names in case_order first, in
// that order; then cases that set `order`, by order (ties by name); then the
// rest by name. A case_order name with no case is an error, since it almost
// always means a renamed or deleted case.
func sortEntries(entries []entry, caseOrder []string) ([]entry, error) {
	byName := make(map[string]entry, len(entries))
	for _, e := range entries {
		byName[e.name] = e
	}
	out := make([]entry, 0, len(entries))
	placed := map[string]bool{}
	var dangling []string
	for _, name := range caseOrder {
		e, ok := byName[name]
		switch {
		case !ok:
			dangling = append(dangling, name)
		case !placed[name]:
			out = append(out, e)
			placed[name] = true
		}
	}
	if len(dangling) > 0 {
		names := make([]string, 0, len(entries))
		for _, e := range entries {
			names = append(names, e.name)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("case_order names %s, but the group has no such case (its cases: %s)",
			quoteList(dangling), strings.Join(names, ", "))
	}
	rest := make([]entry, 0, len(entries)-len(out))
	for _, e := range entries {
		if !placed[e.name] {
			rest = append(rest, e)
		}
	}
	sort.SliceStable(rest, func(i, j int) bool {
		a, b := rest[i], rest[j]
		switch {
		case a.order != nil && b.order != nil && *a.order != *b.order:
			return *a.order < *b.order
		case (a.order == nil) != (b.order == nil):
			return a.order != nil
		}
		return a.name < b.name
	})
	return append(out, rest...), nil
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
