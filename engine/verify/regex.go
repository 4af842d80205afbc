package verify

import (
	"fmt"
	"regexp"

	"github.com/wasmeval/wasmeval/engine/checkspec"
)

// checkRegex passes when the pattern matches anywhere in the attribute
// (anchor with ^ and $ to match the whole text; (?m) for per-line anchors).
// With json_path it applies to the values the path selects, and with
// expected_from the pattern comes from the case's expected values (see
// selected.go).
func checkRegex(res *AttributeResult, spec checkspec.CheckSpec, actual Actual, expected map[string]any, env Env) {
	if spec.JSONPath != "" || spec.ExpectedFrom != "" {
		checkRegexSelected(res, spec, actual, expected, env)
		return
	}
	pattern := spec.Pattern
	if pattern == "" {
		v, ok := expectedValue(expected, res.Attribute)
		s, isText := v.(string)
		if !ok || !isText {
			fail(res, "regex check on %s has no pattern and no expected text to use as one", res.Attribute)
			return
		}
		pattern = s
	}
	res.Expected = pattern
	re, err := regexp.Compile(pattern)
	if err != nil {
		fail(res, "invalid pattern %q: %v", pattern, err)
		return
	}
	got, ok := actualValue(actual, env, res.Attribute)
	if !ok {
		fail(res, "%s", notProduced(env, res.Attribute))
		return
	}
	text, _ := asText(got)
	res.Actual = text
	res.IsCorrect = re.MatchString(text)
	if !res.IsCorrect {
		res.Diff = &Diff{Summary: fmt.Sprintf("%s does not match /%s/", res.Attribute, pattern),
			Entries: []DiffEntry{{Path: res.Attribute, Op: "mismatch", Expected: pattern, Actual: clip(text, 200)}}}
	}
}
