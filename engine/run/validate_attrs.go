package run

import (
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/checkspec"
	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// producedBy lists the attributes each adapter produces, as a check names
// them (see verify.AttributeOf); "files-…" and "headers-…" stand for
// families. Every adapter also produces mock_calls when the group
// declares mocks (see mockNames).
var producedBy = map[string][]string{
	problem.AdapterCLI:     {"status_code", "output", "stderr", "files-<path>"},
	problem.AdapterAPI:     {"status_code", "output", "headers-<name>", "files-<path>"},
	problem.AdapterBrowser: {"status_code", "output"},
	// The agent adapter's output is the agent's result JSON; answer and
	// final_reply are read from it (verify.Env.Agent).
	problem.AdapterAgent: {"status_code", "output", "stderr", "files-<path>", "answer", "final_reply"},
}

// validateAttributes reports what a case's checks would compare that the
// problem's adapter never produces — an expected key no check can be
// given an actual value for, a check's attribute, an expected file no
// tracked_files entry reads back. Each would fail every run of the case
// with "attribute X was not produced" (or "file X was not produced").
//
// A group whose cases are verified by a verifier plugin alone (no checks)
// is left alone: the plugin decides what the expected keys mean.
func validateAttributes(p *problem.Problem, g *problem.Group, c *cases.Case, errs *diag.List) {
	checks := c.Checks
	if len(checks) == 0 {
		if g.Verifier != nil {
			return
		}
		checks = verify.DefaultChecks(c.Expected)
	}
	typ := p.Adapter.Type
	if typ == "" {
		typ = problem.AdapterCLI
	}
	if len(checks) == 0 && typ != problem.AdapterAgent {
		// No check, no verifier, no expected value a default check
		// compares: the case ran and was scored 0 with no reason given.
		// (An agent's case is judged by its task's tests.)
		addAt(errs, c, "expected", "case %s checks nothing: it has no expected value (status_code, output, …), no checks and no verifier plugin; "+
			"give it what to expect, or remove it", c.ID)
		return
	}
	archive := typ == problem.AdapterAPI && (p.Adapter.Response == problem.ResponseArchive ||
		(c.Request != nil && c.Request.Response == problem.ResponseArchive))
	mocks := mockNames(g)
	attrs := producedBy[typ]
	if len(mocks) > 0 {
		attrs = append(slices.Clip(attrs), verify.AttrMockCalls)
	}
	produced := strings.Join(attrs, ", ")
	reported := map[string]bool{}
	for i, spec := range checks {
		if spec.Kind == "evaluator" || spec.Kind == "evaluators" || spec.Kind == "latency" {
			continue // an evaluator names its own attribute; latency judges the elapsed time
		}
		if slices.Contains(checkspec.AgentKinds, spec.Kind) {
			// They judge the agent's result, which only the agent adapter
			// produces.
			if typ != problem.AdapterAgent && !reported[spec.Kind] {
				reported[spec.Kind] = true
				errs.Add(c.Source, diag.IndexPath("checks", i), 0, "case %s: the %s check judges an agent's result, which only the agent adapter produces (this problem's adapter is %s)", c.ID, spec.Kind, typ)
			}
			continue
		}
		if spec.Kind == "mock-calls" {
			// It selects the calls of one mock, which the group must
			// declare: a name it does not know selects nothing, ever.
			if spec.Mock != "" && !slices.Contains(mocks, spec.Mock) {
				declared := "it declares none"
				if len(mocks) > 0 {
					declared = "its mocks: " + strings.Join(mocks, ", ")
				}
				errs.Add(c.Source, diag.IndexPath("checks", i)+".mock", 0, "case %s: the mock-calls check selects the calls to mock %q, which the group does not declare (%s)", c.ID, spec.Mock, declared)
			}
			continue
		}
		attr := verify.AttributeOf(spec)
		if reported[attr] {
			continue
		}
		key := diag.IndexPath("checks", i)
		if len(c.Checks) == 0 {
			// A default check: it comes from an expected key.
			key = "expected." + attr
			if f, ok := strings.CutPrefix(attr, "files-"); ok {
				key = "expected.files." + f
			} else if h, ok := strings.CutPrefix(attr, "headers-"); ok {
				key = "expected.headers." + h
			}
		}
		if attr == verify.AttrMockCalls {
			// Every adapter gives a case its mock calls; without mocks
			// they are always [], which no one means to check.
			if len(mocks) == 0 {
				reported[attr] = true
				addAt(errs, c, key, "case %s: the check of mock_calls reads the requests the group's mocks received, but the group declares no mocks (so mock_calls is always []); declare them under mocks:", c.ID)
			}
			continue
		}
		msg, fix := "", ""
		switch {
		case attr == "status_code" || attr == "output":
		case attr == "answer" || attr == "final_reply":
			if typ != problem.AdapterAgent {
				msg = "an agent's " + attr + " comes only from the agent adapter (the " + typ + " adapter produces " + produced + ")"
			}
		case attr == "stderr":
			if typ != problem.AdapterCLI && typ != problem.AdapterAgent {
				msg = "the " + typ + " adapter does not capture stderr (it produces " + produced + ")"
			}
		case strings.HasPrefix(attr, "headers-"):
			if typ != problem.AdapterAPI {
				msg = "response headers come only from the api adapter (the " + typ + " adapter produces " + produced + ")"
			}
		case strings.HasPrefix(attr, "files-"):
			file := strings.TrimPrefix(attr, "files-")
			switch {
			case typ == problem.AdapterBrowser:
				msg = "the browser adapter reads no files back (it produces " + produced + ")"
			case archive:
			case !tracked(c.TrackedFiles, file):
				msg = "no tracked_files entry reads " + file + " back after the case (tracked: " + listOrNone(c.TrackedFiles) + ")"
				fix = "; add it to the case's or the adapter's tracked_files"
			}
		default:
			msg = "the " + typ + " adapter produces no attribute " + attr + " (it produces " + produced + ")"
			if typ == problem.AdapterBrowser {
				fix = "; a capture is part of the output: expect it as output: {" + attr + ": …}"
			}
		}
		if msg != "" {
			reported[attr] = true
			addAt(errs, c, key, "case %s: %s, so the check of %s would fail on every run (\"%s was not produced\")%s", c.ID, msg, attr, attr, fix)
		}
	}
}

// tracked says whether a tracked_files entry (a path, a directory or a
// ** glob) reads file back.
func tracked(patterns []string, file string) bool {
	file = path.Clean(file)
	for _, pat := range patterns {
		pat = path.Clean(pat)
		if pat == file || pat == "." || strings.HasPrefix(file, pat+"/") {
			return true
		}
		if ok, _ := doublestar.Match(pat, file); ok {
			return true
		}
	}
	return false
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	s = append([]string{}, s...)
	sort.Strings(s)
	return strings.Join(s, ", ")
}

// mockNames lists the names of the mock services a group declares (its
// own, its checkpoint's and its problem's, as loaded), sorted.
func mockNames(g *problem.Group) []string {
	names := make([]string, 0, len(g.Mocks))
	for _, m := range g.Mocks {
		names = append(names, m.Name)
	}
	sort.Strings(names)
	return names
}

// addAt records a problem of case c at key (a key path inside the case)
// where the case is written: its file, its own key path there (a group
// file's case is one key of it) and its line.
func addAt(errs *diag.List, c *cases.Case, key, format string, args ...any) {
	errs.Add(c.Source, diag.JoinPath(c.SourceKey, key), c.SourceLine, format, args...)
}
