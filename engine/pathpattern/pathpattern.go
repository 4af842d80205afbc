// Package pathpattern matches URL paths against the patterns mock routes
// and the mock-calls check are written with: a path matched exactly, a
// segment "{name}" matching any one segment, and a final "/*" matching any
// path below. It is a leaf package so that both engine/mock (which answers
// requests) and engine/verify (which judges the requests a case made) use
// the one rule: a pattern that selects a call in a check is the pattern
// that routes it.
package pathpattern

import (
	"fmt"
	"strings"
)

// Check says what is wrong with a pattern; nil when nothing is.
func Check(pattern string) error {
	if !strings.HasPrefix(pattern, "/") {
		return fmt.Errorf("path %q: expected a path starting with /", pattern)
	}
	if strings.Contains(strings.TrimSuffix(pattern, "/*"), "*") {
		return fmt.Errorf("path %q: * is only taken as the last segment, /*", pattern)
	}
	return nil
}

// Match matches a path against a pattern: segment by segment, where
// "{name}" takes any one non-empty segment and a final "*" takes the rest
// (at least one more segment).
func Match(pattern, path string) bool {
	if pattern == path {
		return true
	}
	ps, xs := strings.Split(pattern, "/"), strings.Split(path, "/")
	for i, p := range ps {
		if p == "*" && i == len(ps)-1 {
			return len(xs) > i && xs[i] != ""
		}
		if i >= len(xs) {
			return false
		}
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") && len(p) > 2 {
			if xs[i] == "" {
				return false
			}
			continue
		}
		if p != xs[i] {
			return false
		}
	}
	return len(ps) == len(xs)
}
