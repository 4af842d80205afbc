package verify

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wasmeval/wasmeval/engine/checkspec"
)

// The assertions are the checks users know from other evaluation
// harnesses (promptfoo's names): equals, contains, icontains,
// contains-all, contains-any, starts-with and is-json, each with a not-
// negation, and the latency ceiling. Each compares the text of an
// attribute (or, with json_path, of the values the path selects) with a
// value from `value`/`values`, expected_from or the expected attribute.
// See docs/checks.md, "Assertions".

// SplitNegation returns an assertion kind without its not- prefix and
// whether it had one (only for the kinds that have a negation).
func SplitNegation(kind string) (base string, negated bool) {
	if b, ok := strings.CutPrefix(kind, checkspec.NegationPrefix); ok && slices.Contains(checkspec.Negatable, b) {
		return b, true
	}
	return kind, false
}

// isAssertion says whether kind (without not-) is one of the assertions
// that compare text.
func isAssertion(base string) bool { return slices.Contains(checkspec.Negatable, base) }

// listKind says whether an assertion takes several phrases.
func listKind(base string) bool {
	switch base {
	case "contains", "icontains", "contains-all", "contains-any":
		return true
	}
	return false
}

// fixedValue is the expected value a check declares itself: a regex's
// pattern, an assertion's value or values.
func fixedValue(spec checkspec.CheckSpec) (any, bool) {
	if spec.Kind == "regex" {
		return spec.Pattern, spec.Pattern != ""
	}
	if base, _ := SplitNegation(spec.Kind); !isAssertion(base) {
		return nil, false
	}
	if len(spec.Values) > 0 {
		return spec.Values, true
	}
	if spec.Value != nil {
		return spec.Value, true
	}
	return nil, false
}

// phrasesOf reads an expected value as the phrases of a list kind: a list
// of texts (numbers and booleans as written), or one text.
func phrasesOf(v any) ([]string, string) {
	switch t := v.(type) {
	case nil:
		return nil, "the expected value is null, not a phrase"
	case map[string]any:
		return nil, "the expected value is an object, not a phrase or a list of phrases"
	case []any:
		out := make([]string, 0, len(t))
		for i, p := range t {
			switch p.(type) {
			case nil, map[string]any, []any:
				return nil, fmt.Sprintf("phrase %d is %s, not text", i+1, describeValue(p))
			}
			out = append(out, valueText(p))
		}
		if len(out) == 0 {
			return nil, "the list of phrases is empty"
		}
		return out, ""
	}
	return []string{valueText(v)}, ""
}

// checkAssertion runs equals, contains, icontains, contains-all,
// contains-any, starts-with, is-json or a negation of one.
func checkAssertion(res *AttributeResult, spec checkspec.CheckSpec, actual Actual, expected map[string]any, env Env) {
	base, neg := SplitNegation(spec.Kind)
	if base == "is-json" {
		checkIsJSON(res, neg, actual, env)
		return
	}
	judge := func(label string, want any, got string) ([]DiffEntry, string, string, bool) {
		return judgeAssertion(spec, base, neg, res.Attribute, label, want, got)
	}
	if spec.JSONPath != "" || spec.ExpectedFrom != "" {
		one := func(v any) (any, string) {
			if listKind(base) {
				if _, why := phrasesOf(v); why != "" {
					return nil, fmt.Sprintf("%s: %s", expectedSource(spec), why)
				}
			} else if v == nil {
				return nil, fmt.Sprintf("%s: the expected value is null", expectedSource(spec))
			}
			return v, ""
		}
		compareSelected(res, spec, actual, expected, env, false, one, func(label string, want, got any) ([]DiffEntry, string, string, bool) {
			return judge(label, want, valueText(got))
		})
		return
	}
	want, ok := fixedValue(spec)
	if !ok {
		if want, ok = expectedValue(expected, res.Attribute); !ok || want == nil {
			fail(res, "no expected value for %s (give the check value or values, or expected_from)", res.Attribute)
			return
		}
	}
	got, ok := actualValue(actual, env, res.Attribute)
	if !ok {
		fail(res, "%s", notProduced(env, res.Attribute))
		return
	}
	text, _ := asText(got)
	res.Actual, res.Expected = text, want
	entries, msg, unified, ok := judge("", want, text)
	res.IsCorrect = ok
	if !ok {
		d := &Diff{Summary: msg, Unified: unified}
		for _, e := range entries {
			addEntry(d, e)
		}
		res.Diff = d
	}
}

// expectedSource names where a check's expected value came from.
func expectedSource(spec checkspec.CheckSpec) string {
	if spec.ExpectedFrom != "" {
		return "expected_from " + spec.ExpectedFrom
	}
	if len(spec.Values) > 0 {
		return "values"
	}
	return "value"
}

// judgeAssertion judges one text (the attribute, or one value json_path
// selected, named by label) against the expected value.
func judgeAssertion(spec checkspec.CheckSpec, base string, neg bool, attr, label string, want any, got string) (entries []DiffEntry, msg, unified string, ok bool) {
	where, at := attr, attr
	if label != "" {
		where, at = label+" in "+attr, label
	}
	ignoreCase := spec.IgnoreCase || base == "icontains"
	norm := func(s string) string { return NormalizeText(s, spec.IgnoreWhitespace, ignoreCase) }
	g := norm(got)

	if !listKind(base) {
		w := norm(valueText(want))
		switch base {
		case "equals":
			if (w == g) != neg {
				return nil, "", "", true
			}
			if neg {
				return []DiffEntry{{Path: at, Op: "mismatch", Expected: "anything but " + clip(w, 200), Actual: clip(g, 200)}},
					fmt.Sprintf("%s equals %q, which it must not", where, clip(w, 80)), "", false
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
		case "starts-with":
			if strings.HasPrefix(g, w) != neg {
				return nil, "", "", true
			}
			// The start of the text, as long as the prefix.
			start := CutAtRune(g, len(w))
			if neg {
				return []DiffEntry{{Path: at, Op: "extra", Actual: clip(w, 200)}},
					fmt.Sprintf("%s starts with %q, which it must not", where, clip(w, 80)), "", false
			}
			return []DiffEntry{{Path: at, Op: "changed", Expected: clip(w, 200), Actual: clip(start, 200)}},
				fmt.Sprintf("%s does not start with %q (it starts with %q)", where, clip(w, 80), clip(start, 80)), "", false
		}
		return []DiffEntry{{Path: at, Op: "mismatch"}}, fmt.Sprintf("%s: unknown assertion %q", where, base), "", false
	}

	phrases, why := phrasesOf(want)
	if why != "" {
		return []DiffEntry{{Path: at, Op: "mismatch", Expected: want}}, fmt.Sprintf("%s: %s", where, why), "", false
	}
	var found, missing []string
	for _, p := range phrases {
		if strings.Contains(g, norm(p)) {
			found = append(found, p)
		} else {
			missing = append(missing, p)
		}
	}
	n := len(phrases)
	share := float64(len(found)) / float64(n)
	threshold := 1.0
	if spec.Threshold != nil {
		threshold = *spec.Threshold
	}
	var pass bool
	switch {
	case base == "contains-any" && !neg:
		pass = len(found) > 0
	case base == "contains-any" || neg && base != "contains-all":
		// not-contains-any, and not-contains/not-icontains: none of the
		// phrases appears.
		pass = len(found) == 0
	case base == "contains-all" && neg:
		pass = share < threshold
	default:
		// contains, icontains: every phrase; contains-all: the share of
		// phrases found reaches the threshold.
		pass = share >= threshold
	}
	if pass {
		return nil, "", "", true
	}
	if !neg {
		if base == "contains-any" {
			return []DiffEntry{{Path: at, Op: "missing", Expected: phrases}},
				fmt.Sprintf("%s contains none of %s", where, quoteList(phrases)), "", false
		}
		for _, p := range missing {
			entries = append(entries, DiffEntry{Path: at, Op: "missing", Expected: clip(p, 200)})
		}
		switch {
		case spec.Threshold != nil:
			msg = fmt.Sprintf("%s contains %d of %d phrases (%.2f, below the threshold %v); it lacks %s",
				where, len(found), n, share, threshold, quoteList(missing))
		case n == 1:
			msg = fmt.Sprintf("%s does not contain %q", where, clip(missing[0], 80))
		default:
			msg = fmt.Sprintf("%s lacks %d of %d phrases: %s", where, len(missing), n, quoteList(missing))
		}
		return entries, msg, "", false
	}
	for _, p := range found {
		entries = append(entries, DiffEntry{Path: at, Op: "extra", Actual: clip(p, 200)})
	}
	switch {
	case base == "contains-all" && spec.Threshold != nil:
		msg = fmt.Sprintf("%s contains %d of %d phrases (%.2f, reaching the threshold %v), which it must not: %s",
			where, len(found), n, share, threshold, quoteList(found))
	case base == "contains-all":
		msg = fmt.Sprintf("%s contains every one of %s, which it must not", where, quoteList(found))
	default:
		msg = fmt.Sprintf("%s contains %s, which it must not", where, quoteList(found))
	}
	return entries, msg, "", false
}

// quoteList quotes phrases for a summary: the first few, then how many
// more.
func quoteList(ps []string) string {
	const show = 3
	var b strings.Builder
	for i, p := range ps {
		if i == show {
			fmt.Fprintf(&b, " and %d more", len(ps)-show)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", clip(p, 80))
	}
	return b.String()
}

// checkIsJSON passes when the attribute parses as one JSON document (with
// negation, when it does not).
func checkIsJSON(res *AttributeResult, neg bool, actual Actual, env Env) {
	got, ok := actualValue(actual, env, res.Attribute)
	if !ok {
		fail(res, "%s", notProduced(env, res.Attribute))
		return
	}
	text, _ := asText(got)
	res.Actual = clip(text, 200)
	_, err := ParseJSON(text)
	res.IsCorrect = (err == nil) != neg
	switch {
	case res.IsCorrect:
	case neg:
		res.Diff = &Diff{Summary: fmt.Sprintf("%s is valid JSON, which it must not be", res.Attribute),
			Entries: []DiffEntry{{Path: res.Attribute, Op: "mismatch", Expected: "not JSON", Actual: clip(text, 200)}}}
	default:
		res.Diff = &Diff{Summary: fmt.Sprintf("%s is not valid JSON: %v", res.Attribute, err),
			Entries: []DiffEntry{{Path: res.Attribute, Op: "mismatch", Expected: "one JSON document", Actual: clip(text, 200)}}}
	}
}

// checkLatency passes when the case took at most max_seconds.
func checkLatency(res *AttributeResult, spec checkspec.CheckSpec, env Env) {
	if spec.MaxSeconds == nil {
		fail(res, "the latency check needs max_seconds")
		return
	}
	ceiling := *spec.MaxSeconds
	res.Expected = ceiling
	// The run's own measure comes first; an agent's reported wall time
	// stands in where the run has none (a verifier plugin, say).
	who, path, elapsedAt := "the case", "elapsed_s", env.Elapsed
	if elapsedAt == nil && env.Agent != nil && env.Agent.ElapsedSeconds != nil {
		who, path, elapsedAt = "the agent (its elapsed_seconds)", "elapsed_seconds", env.Agent.ElapsedSeconds
	}
	if elapsedAt == nil {
		fail(res, "the case's elapsed time is not known here, so the latency check cannot judge it")
		return
	}
	elapsed := *elapsedAt
	res.Actual = elapsed
	res.IsCorrect = elapsed <= ceiling
	if !res.IsCorrect {
		res.Diff = &Diff{Summary: fmt.Sprintf("%s took %.3fs, over the ceiling of %vs", who, elapsed, ceiling),
			Entries: []DiffEntry{{Path: path, Op: "changed", Expected: ceiling, Actual: elapsed}}}
	}
}
