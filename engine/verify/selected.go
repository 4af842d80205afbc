package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/wasmeval/wasmeval/engine/checkspec"
	"github.com/wasmeval/wasmeval/engine/verify/jsonpath"
)

// A text, json or regex check with json_path looks at the values a JSON
// path selects in the attribute (parsed as JSON) instead of the whole
// attribute; with expected_from it takes its expected value (a regex's
// pattern) from a named place in the case's expected values. See
// docs/checks.md, "Checking part of a JSON document".
//
// The expected side is, in this order:
//
//   - expected_from: one value, which every selected value must match;
//   - a regex's pattern: the same;
//   - otherwise the expected attribute, parsed as JSON, at the same path:
//     values are paired by their concrete path ($.items[2].price), so a
//     value present on one side only is a difference.

// ParseJSONPath parses a check's json_path.
func ParseJSONPath(s string) (jsonpath.Path, error) { return jsonpath.Parse(s) }

// ParseExpectedFrom parses a check's expected_from: `expected` followed by
// the key of an expected value and, optionally, a path inside it. It names
// one value, so wildcards are refused.
func ParseExpectedFrom(s string) (jsonpath.Path, error) {
	p, err := jsonpath.ParseRooted(s, "expected")
	if err != nil {
		return p, err
	}
	segs := p.Segments()
	switch {
	case len(segs) == 0:
		return p, fmt.Errorf("%q names no expected value (write e.g. expected.stderr_pattern or expected.output.error)", s)
	case segs[0].Kind != jsonpath.Member:
		return p, fmt.Errorf("%q: expected values are named by key (expected.<key> or expected['<key>']), not by index", s)
	case p.HasWildcard():
		return p, fmt.Errorf("%q: expected_from names one value, so [*] and .* are not allowed", s)
	}
	return p, nil
}

// parseExpectedText reads expected text stepped into by a path as JSON.
func parseExpectedText(s string) (any, error) { return ParseJSON(s) }

// LookupExpectedFrom looks up the value expected_from names in a case's
// expected values. Text that the path goes on into (an expected file's
// content, a document written as text) is read as JSON. When nothing is
// there, why says what is missing.
func LookupExpectedFrom(ref string, expected map[string]any) (value any, why string, ok bool) {
	p, err := ParseExpectedFrom(ref)
	if err != nil {
		return nil, err.Error(), false
	}
	if expected == nil {
		expected = map[string]any{}
	}
	loc := p.Select(expected, jsonpath.Options{ParseText: parseExpectedText})[0]
	if !loc.Found {
		return nil, fmt.Sprintf("%s: not found in the case's expected values (%s)", p.String(), loc.Reason), false
	}
	return loc.Value, "", true
}

// expectedDocument is the expected attribute as a JSON document for a
// json_path to select from.
func expectedDocument(attr string, expected map[string]any) (any, string) {
	raw, ok := expectedValue(expected, attr)
	if !ok {
		return nil, fmt.Sprintf("no expected value for %s", attr)
	}
	switch v := raw.(type) {
	case string:
		doc, err := ParseJSON(v)
		if err != nil {
			return nil, fmt.Sprintf("expected %s is not JSON, so json_path cannot select from it (%v); give the expected value with expected_from", attr, err)
		}
		return doc, ""
	case []byte:
		return nil, fmt.Sprintf("expected %s is binary, so json_path cannot select from it", attr)
	}
	doc, err := NormalizeJSON(raw)
	if err != nil {
		return nil, fmt.Sprintf("expected %s is not representable as JSON: %v", attr, err)
	}
	return doc, ""
}

// selectedPair is one place a check compares: the expected and the actual
// location at one concrete path. exp is nil when one expected value
// applies to every location.
type selectedPair struct {
	path     string
	exp, act *jsonpath.Location
}

// compareSelected runs a text, json or regex check with json_path or
// expected_from. each judges one pair of found values and returns its
// diff entries and one-line message, or ok.
func compareSelected(res *AttributeResult, spec checkspec.CheckSpec, actual Actual, expected map[string]any, env Env, parseWhole bool,
	expectedOne func(v any) (any, string),
	each func(label string, want, got any) (entries []DiffEntry, msg, unified string, ok bool)) {

	attr := res.Attribute
	hasPath := spec.JSONPath != ""
	var path jsonpath.Path
	if hasPath {
		p, err := ParseJSONPath(spec.JSONPath)
		if err != nil {
			fail(res, "json_path: %v", err)
			return
		}
		path = p
	}

	// The expected side: one value for every location, or the expected
	// attribute at the same path.
	var one any
	var paired []jsonpath.Location
	isPaired := false
	fixed, hasFixed := fixedValue(spec)
	switch {
	case spec.ExpectedFrom != "" || hasFixed:
		v := fixed
		if spec.ExpectedFrom != "" {
			found, why, ok := LookupExpectedFrom(spec.ExpectedFrom, expected)
			if !ok {
				fail(res, "expected_from %s", why)
				return
			}
			v = found
		}
		norm, why := expectedOne(v)
		if why != "" {
			fail(res, "%s", why)
			return
		}
		one = norm
		res.Expected = one
	default:
		doc, why := expectedDocument(attr, expected)
		if why != "" {
			fail(res, "%s", why)
			return
		}
		paired, isPaired = path.Select(doc, jsonpath.Options{}), true
	}

	// The actual side.
	got, ok := actualValue(actual, env, attr)
	if !ok {
		fail(res, "%s", notProduced(env, attr))
		return
	}
	text, _ := asText(got)
	var locs []jsonpath.Location
	if hasPath || parseWhole {
		doc, err := ParseJSON(text)
		if err != nil {
			res.Actual = clip(text, 200)
			summary := fmt.Sprintf("%s is not valid JSON: %v", attr, err)
			if hasPath {
				summary = fmt.Sprintf("%s is not valid JSON, so json_path %s finds nothing in it: %v", attr, path.String(), err)
			}
			res.Diff = &Diff{Summary: summary,
				Entries: []DiffEntry{{Path: "$", Op: "mismatch", Expected: res.Expected, Actual: clip(text, 200)}}}
			return
		}
		if hasPath {
			locs = path.Select(doc, jsonpath.Options{})
		} else {
			locs = []jsonpath.Location{{Path: "$", Value: doc, Found: true}}
		}
	} else {
		locs = []jsonpath.Location{{Path: "$", Value: text, Found: true}}
	}

	// Pair them up: every actual location with the one expected value, or
	// expected and actual locations by concrete path (expected order
	// first, then what only the output has).
	var pairs []selectedPair
	if !isPaired {
		for i := range locs {
			pairs = append(pairs, selectedPair{path: locs[i].Path, act: &locs[i]})
		}
	} else {
		at := make(map[string]int, len(locs))
		for i, l := range locs {
			at[l.Path] = i
		}
		used := make([]bool, len(locs))
		for i := range paired {
			p := selectedPair{path: paired[i].Path, exp: &paired[i]}
			if j, ok := at[p.path]; ok {
				p.act, used[j] = &locs[j], true
			}
			pairs = append(pairs, p)
		}
		for j := range locs {
			if !used[j] {
				pairs = append(pairs, selectedPair{path: locs[j].Path, act: &locs[j]})
			}
		}
	}

	// Record what was compared: the value for one path, the lists of
	// selected values for a wildcard.
	wildcard := path.HasWildcard()
	if !wildcard {
		if l := locs[0]; l.Found {
			res.Actual = l.Value
		}
		if isPaired && paired[0].Found {
			res.Expected = paired[0].Value
		}
	} else {
		res.Actual = foundValues(locs)
		if isPaired {
			res.Expected = foundValues(paired)
		}
	}

	label := func(p string) string {
		if hasPath {
			return p
		}
		return ""
	}
	d := &Diff{}
	var first string
	var unified []string
	failed := 0
	record := func(entries []DiffEntry, msg, ud string) {
		failed++
		if first == "" {
			first = msg
		}
		for _, e := range entries {
			addEntry(d, e)
		}
		if ud != "" {
			unified = append(unified, ud)
		}
	}
	if len(pairs) == 0 {
		// A wildcard that selects nothing, checked against one value.
		if !isPaired {
			record([]DiffEntry{{Path: path.String(), Op: "missing", Expected: one}},
				fmt.Sprintf("%s: selects nothing in %s", path.String(), attr), "")
		}
	}
	for _, p := range pairs {
		var want any
		wantFound := true
		if p.exp != nil {
			want, wantFound = p.exp.Value, p.exp.Found
		} else {
			want = one
		}
		switch {
		case isPaired && p.exp == nil && !p.act.Found:
			// The expected document has nothing under a wildcard (an
			// empty list) where the output lacks even the list.
			record([]DiffEntry{{Path: p.path, Op: "missing"}},
				fmt.Sprintf("%s: not found in %s (%s)", p.path, attr, p.act.Reason), "")
		case isPaired && p.exp == nil:
			record([]DiffEntry{{Path: p.path, Op: "extra", Actual: p.act.Value}},
				fmt.Sprintf("%s: found in %s but not in expected %s", p.path, attr, attr), "")
		case !wantFound && (p.act == nil || !p.act.Found):
			reason := p.exp.Reason
			if p.act != nil && p.act.Reason != "" {
				reason += "; in " + attr + ": " + p.act.Reason
			}
			record([]DiffEntry{{Path: p.path, Op: "missing"}},
				fmt.Sprintf("%s: not found in expected %s nor in %s (%s)", p.path, attr, attr, reason), "")
		case !wantFound:
			record([]DiffEntry{{Path: p.path, Op: "extra", Actual: p.act.Value}},
				fmt.Sprintf("%s: found in %s but not in expected %s (%s)", p.path, attr, attr, p.exp.Reason), "")
		case p.act == nil:
			record([]DiffEntry{{Path: p.path, Op: "missing", Expected: want}},
				fmt.Sprintf("%s: not found in %s", p.path, attr), "")
		case !p.act.Found:
			record([]DiffEntry{{Path: p.path, Op: "missing", Expected: want}},
				fmt.Sprintf("%s: not found in %s (%s)", p.path, attr, p.act.Reason), "")
		default:
			if entries, msg, ud, ok := each(label(p.path), want, p.act.Value); !ok {
				record(entries, msg, ud)
			}
		}
	}
	res.IsCorrect = failed == 0
	if res.IsCorrect {
		return
	}
	d.Summary = first
	if n := max(len(pairs), 1); wildcard && n > 1 {
		d.Summary += fmt.Sprintf("; %d of %d values at %s differ", failed, n, path.String())
	}
	if len(unified) > 0 {
		u := strings.Join(unified, "")
		if len(u) > maxUnified {
			u = u[:maxUnified] + "\n[diff truncated]\n"
			d.Truncated = true
		}
		d.Unified = u
	}
	res.Diff = d
}

func foundValues(locs []jsonpath.Location) []any {
	out := make([]any, 0, len(locs))
	for _, l := range locs {
		if l.Found {
			out = append(out, l.Value)
		}
	}
	return out
}

// valueText is a selected value as text: a string as it is, anything else
// as compact JSON (keys sorted, <, > and & unescaped).
func valueText(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case []byte:
		return string(t)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// checkTextSelected is the text check with json_path or expected_from.
func checkTextSelected(res *AttributeResult, spec checkspec.CheckSpec, actual Actual, expected map[string]any, env Env) {
	one := func(v any) (any, string) { return valueText(v), "" }
	compareSelected(res, spec, actual, expected, env, false, one, func(label string, want, got any) ([]DiffEntry, string, string, bool) {
		w := NormalizeText(valueText(want), spec.IgnoreWhitespace, spec.IgnoreCase)
		g := NormalizeText(valueText(got), spec.IgnoreWhitespace, spec.IgnoreCase)
		if w == g {
			return nil, "", "", true
		}
		td := TextDiff(w, g)
		if label == "" {
			return td.Entries, td.Summary, td.Unified, false
		}
		for i := range td.Entries {
			td.Entries[i].Path = label + " (" + td.Entries[i].Path + ")"
		}
		ud := td.Unified
		if ud != "" {
			ud = "# " + label + "\n" + ud
		}
		return td.Entries, label + ": " + td.Summary, ud, false
	})
}

// checkJSONSelected is the json check with json_path or expected_from.
func checkJSONSelected(res *AttributeResult, spec checkspec.CheckSpec, actual Actual, expected map[string]any, env Env) {
	opts := jsonOptions(spec)
	one := func(v any) (any, string) {
		// As for the expected attribute: text is the document's text
		// when it is JSON; a structure is the document itself.
		if s, ok := v.(string); ok {
			if doc, err := ParseJSON(s); err == nil {
				return doc, ""
			}
			return s, ""
		}
		doc, err := NormalizeJSON(v)
		if err != nil {
			return nil, fmt.Sprintf("expected value from %s is not representable as JSON: %v", spec.ExpectedFrom, err)
		}
		return doc, ""
	}
	compareSelected(res, spec, actual, expected, env, true, one, func(label string, want, got any) ([]DiffEntry, string, string, bool) {
		root := label
		if root == "" {
			root = "$"
		}
		c := &jsonComparer{opts: opts, ignore: map[string]bool{}}
		for _, k := range opts.IgnoreKeys {
			c.ignore[k] = true
		}
		c.compare(root, want, got)
		if len(c.diff.Entries) == 0 {
			return nil, "", "", true
		}
		return c.diff.Entries, summarize(c.diff.Entries, c.diff.Truncated), "", false
	})
}

// checkRegexSelected is the regex check with json_path or expected_from.
func checkRegexSelected(res *AttributeResult, spec checkspec.CheckSpec, actual Actual, expected map[string]any, env Env) {
	compiled := map[string]*regexp.Regexp{}
	compile := func(pattern string) (*regexp.Regexp, error) {
		if re, ok := compiled[pattern]; ok {
			return re, nil
		}
		re, err := regexp.Compile(pattern)
		if err == nil {
			compiled[pattern] = re
		}
		return re, err
	}
	one := func(v any) (any, string) {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Sprintf("expected_from %s is %s, not a pattern (text)", spec.ExpectedFrom, describeValue(v))
		}
		if _, err := compile(s); err != nil {
			where := "pattern"
			if spec.ExpectedFrom != "" {
				where = "expected_from " + spec.ExpectedFrom
			}
			return nil, fmt.Sprintf("%s: invalid pattern %q: %v", where, s, err)
		}
		return s, ""
	}
	compareSelected(res, spec, actual, expected, env, false, one, func(label string, want, got any) ([]DiffEntry, string, string, bool) {
		// Where the message and entry point: the selected value in the
		// attribute, or the attribute.
		where, at := res.Attribute, res.Attribute
		if label != "" {
			where, at = label+" in "+res.Attribute, label
		}
		pattern, ok := want.(string)
		if !ok {
			return []DiffEntry{{Path: at, Op: "mismatch", Expected: want}},
				fmt.Sprintf("%s: the expected value is %s, not a pattern (text)", where, describeValue(want)), "", false
		}
		re, err := compile(pattern)
		if err != nil {
			return []DiffEntry{{Path: at, Op: "mismatch", Expected: pattern}},
				fmt.Sprintf("%s: invalid expected pattern %q: %v", where, pattern, err), "", false
		}
		text := valueText(got)
		if re.MatchString(text) {
			return nil, "", "", true
		}
		return []DiffEntry{{Path: at, Op: "mismatch", Expected: pattern, Actual: clip(text, 200)}},
			fmt.Sprintf("%s does not match /%s/", where, pattern), "", false
	})
}

// describeValue names a value's JSON type with an article.
func describeValue(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "text"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return "a number"
}

// ValidateExpected reports what a case's expected values lack for a
// check's json_path or expected_from, so `wasmeval validate` says it once
// instead of every run failing the attribute: the value expected_from
// names (text that compiles, for a regex), or the expected attribute as a
// JSON document in which the json_path finds something.
func ValidateExpected(spec checkspec.CheckSpec, expected map[string]any) []string {
	base, _ := SplitNegation(spec.Kind)
	switch {
	case spec.Kind == "tools", spec.Kind == "tool-output", spec.Kind == "flags":
		return validateAgentExpected(spec, expected)
	case spec.Kind == "text", spec.Kind == "json", spec.Kind == "regex":
	case isAssertion(base) && base != "is-json":
		if _, fixed := fixedValue(spec); fixed {
			return nil
		}
		if spec.JSONPath == "" && spec.ExpectedFrom == "" {
			if v, ok := expectedValue(expected, AttributeOf(spec)); !ok || v == nil {
				return []string{fmt.Sprintf("%s: the case has no expected %s and the check gives no value, values or expected_from", spec.Kind, AttributeOf(spec))}
			}
			return nil
		}
	default:
		return nil
	}
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	isPattern := func(v any) string {
		s, ok := v.(string)
		if !ok {
			return fmt.Sprintf("is %s, not a pattern (text)", describeValue(v))
		}
		if _, err := regexp.Compile(s); err != nil {
			return fmt.Sprintf("is not a valid pattern: %v", err)
		}
		return ""
	}
	switch {
	case spec.ExpectedFrom != "":
		v, why, ok := LookupExpectedFrom(spec.ExpectedFrom, expected)
		switch {
		case !ok:
			bad("expected_from: %s", why)
		case spec.Kind == "regex":
			if msg := isPattern(v); msg != "" {
				bad("expected_from: %s %s", spec.ExpectedFrom, msg)
			}
		case listKind(base):
			if _, why := phrasesOf(v); why != "" {
				bad("expected_from: %s: %s", spec.ExpectedFrom, why)
			}
		}
	case spec.JSONPath != "" && spec.Pattern == "":
		path, err := ParseJSONPath(spec.JSONPath)
		if err != nil {
			return nil // Validate reports it
		}
		attr := AttributeOf(spec)
		doc, why := expectedDocument(attr, expected)
		if why != "" {
			bad("json_path: %s", why)
			break
		}
		var missing []string
		patternReported := false
		for _, l := range path.Select(doc, jsonpath.Options{}) {
			if !l.Found {
				missing = append(missing, l.Path+": not found in expected "+attr+" ("+l.Reason+")")
			} else if spec.Kind == "regex" && !patternReported {
				if msg := isPattern(l.Value); msg != "" {
					bad("json_path: the expected %s at %s %s", attr, l.Path, msg)
					patternReported = true
				}
			}
		}
		if len(missing) > 0 {
			more := ""
			if len(missing) > 1 {
				more = fmt.Sprintf(" and %d more", len(missing)-1)
			}
			bad("json_path: %s%s; the check compares the %s there with the expected %s at the same path (name another expected value with expected_from)", missing[0], more, attr, attr)
		}
	}
	return errs
}

// validateAgentExpected reports what a case's expected values lack for a
// tools, tool-output or flags check that reads them (with expected_from,
// or the case's expected tools, tool_output or flags).
func validateAgentExpected(spec checkspec.CheckSpec, expected map[string]any) []string {
	if spec.Kind == "tools" && spec.Values != nil || spec.Kind != "tools" && spec.Value != nil {
		return nil // Validate checks the check's own list or value
	}
	v, src, why := agentExpected(spec, AttributeOf(spec), expected)
	if why != "" {
		return []string{fmt.Sprintf("%s: %s", spec.Kind, why)}
	}
	switch spec.Kind {
	case "tools":
		_, why = toolList(v)
	case "tool-output":
		_, why = toolOutputs(v)
	case "flags":
		_, why = flagsOf(v)
	}
	if why != "" {
		return []string{fmt.Sprintf("%s: %s %s", spec.Kind, src, why)}
	}
	return nil
}
