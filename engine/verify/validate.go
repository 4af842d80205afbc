package verify

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/wasmeval/wasmeval/engine/checkspec"
)

// Validate reports what is wrong with a check declaration, one message per
// problem, so `wasmeval validate` can list them all before anything runs.
func Validate(spec checkspec.CheckSpec) []string {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	base, negated := SplitNegation(spec.Kind)
	if b, ok := strings.CutPrefix(spec.Kind, checkspec.NegationPrefix); ok && !negated && slices.Contains(checkspec.Kinds, b) {
		bad("kind: %q: the %s check has no negation (not- goes before %s)", spec.Kind, b, strings.Join(checkspec.Negatable, ", "))
		return errs
	}
	if !slices.Contains(checkspec.Kinds, base) {
		if spec.Kind == "" {
			bad("kind: missing (expected one of %s)", strings.Join(checkspec.Kinds, ", "))
		} else {
			bad("kind: unknown check kind %q (expected one of %s)", spec.Kind, strings.Join(checkspec.Kinds, ", "))
		}
		return errs
	}
	if spec.Weight != nil && *spec.Weight < 0 {
		bad("weight: must not be negative, got %v", *spec.Weight)
	}
	switch {
	case spec.Kind == "latency" && spec.Attribute != "":
		bad("attribute: the latency check judges the case's elapsed time, not an attribute")
	case spec.Kind == "mock-calls" && spec.Attribute != "" && spec.Attribute != AttrMockCalls:
		bad("attribute: the mock-calls check judges the case's mock_calls, not %q", spec.Attribute)
	case slices.Contains(checkspec.AgentKinds, spec.Kind) && spec.Attribute != "":
		bad("attribute: the %s check judges the agent's result as a whole, not an attribute", spec.Kind)
	case spec.Attribute != "" && !validAttribute(spec.Attribute):
		bad("attribute: %q is not an attribute (expected status_code, output, stderr, files-<path>, headers-<name>, mock_calls, answer or final_reply)", spec.Attribute)
	}
	// Options that belong to another kind are almost always a typo for the
	// kind the author meant, so they are errors rather than silently unused.
	allowed := map[string][]string{
		"status":       {"nonzero"},
		"text":         {"ignore_whitespace", "ignore_case", "json_path", "expected_from"},
		"json":         {"tolerance", "rel_tolerance", "ignore_keys", "unordered_lists", "json_path", "expected_from"},
		"jsonl":        {"tolerance", "rel_tolerance", "ignore_keys", "unordered_lists"},
		"regex":        {"pattern", "json_path", "expected_from"},
		"schema":       {"schema", "schema_file"},
		"file":         {"path", "expected_file", "ignore_whitespace", "ignore_case"},
		"evaluator":    {"plugin", "function", "arguments", "pass_score"},
		"evaluators":   {"conj", "calls", "pass_score"},
		"test":         {"plugin"},
		"equals":       {"value", "ignore_whitespace", "ignore_case", "json_path", "expected_from"},
		"contains":     {"value", "values", "ignore_whitespace", "ignore_case", "json_path", "expected_from"},
		"icontains":    {"value", "values", "ignore_whitespace", "json_path", "expected_from"},
		"contains-all": {"values", "threshold", "ignore_whitespace", "ignore_case", "json_path", "expected_from"},
		"contains-any": {"values", "ignore_whitespace", "ignore_case", "json_path", "expected_from"},
		"starts-with":  {"value", "ignore_whitespace", "ignore_case", "json_path", "expected_from"},
		"is-json":      {},
		"latency":      {"max_seconds"},
		"mock-calls":   {"mock", "method", "path", "count", "body"},
		"tools":        {"values", "match", "empty", "threshold", "expected_from"},
		"tool-output":  {"value", "threshold", "expected_from"},
		"flags":        {"value", "phrases", "expected_from"},
		"cost":         {"max_usd"},
		"tokens":       {"max_tokens", "max_input_tokens", "max_output_tokens"},
	}[base]
	for _, opt := range setOptions(spec) {
		if !slices.Contains(allowed, opt) {
			if len(allowed) == 0 {
				bad("%s: not an option of the %s check (it takes none besides attribute and weight)", opt, spec.Kind)
				continue
			}
			bad("%s: not an option of the %s check (its options: %s)", opt, spec.Kind, strings.Join(allowed, ", "))
		}
	}
	if spec.Tolerance < 0 || spec.RelTolerance < 0 {
		bad("tolerance: must not be negative")
	}
	if spec.JSONPath != "" {
		if _, err := ParseJSONPath(spec.JSONPath); err != nil {
			bad("json_path: %v", err)
		}
	}
	if spec.ExpectedFrom != "" {
		if _, err := ParseExpectedFrom(spec.ExpectedFrom); err != nil {
			bad("expected_from: %v", err)
		}
	}
	if isAssertion(base) && base != "is-json" {
		errs = append(errs, validateAssertion(spec, base, allowed)...)
	}
	if slices.Contains(checkspec.AgentKinds, spec.Kind) {
		errs = append(errs, validateAgentCheck(spec)...)
	}
	switch spec.Kind {
	case "mock-calls":
		errs = append(errs, validateMockCalls(spec)...)
	case "latency":
		switch {
		case spec.MaxSeconds == nil:
			bad("max_seconds: the latency check needs the ceiling on the case's elapsed seconds")
		case *spec.MaxSeconds <= 0:
			bad("max_seconds: must be positive, got %v", *spec.MaxSeconds)
		}
	case "status":
		if spec.Attribute != "" && spec.Attribute != "status_code" {
			bad("attribute: the status check compares status_code, not %q", spec.Attribute)
		}
	case "regex":
		if spec.Pattern != "" {
			if _, err := regexp.Compile(spec.Pattern); err != nil {
				bad("pattern: %v", err)
			}
			if spec.ExpectedFrom != "" {
				bad("expected_from: the regex check takes its pattern from `pattern` or from `expected_from`, not both")
			}
		}
	case "schema":
		switch {
		case spec.Schema == nil && spec.SchemaFile == "":
			bad("schema: the schema check needs `schema` (inline) or `schema_file`")
		case spec.Schema != nil && spec.SchemaFile != "":
			bad("schema: give `schema` or `schema_file`, not both")
		case spec.Schema != nil:
			if text, err := schemaText(spec, Env{}); err != nil {
				bad("schema: %v", err)
			} else if _, err := CompileSchema(text); err != nil {
				bad("schema: invalid JSON Schema: %v", err)
			}
		}
	case "evaluator":
		if spec.Plugin == nil {
			bad("plugin: the evaluator check needs the evaluator plugin ({path, sha256})")
		}
		if spec.Function == "" {
			bad("function: the evaluator check needs the name of the function to call")
		}
		if spec.PassScore != nil && (*spec.PassScore < 0 || *spec.PassScore > 1) {
			bad("pass_score: must be between 0 and 1, got %v", *spec.PassScore)
		}
	case "evaluators":
		if spec.Conj != "and" && spec.Conj != "or" {
			bad("conj: expected and (0 when any call scores 0, else the mean) or or (the highest score), got %q", spec.Conj)
		}
		if len(spec.Calls) == 0 {
			bad("calls: the evaluators check needs at least one call ({plugin, function, arguments})")
		}
		for i, c := range spec.Calls {
			if c.Plugin == nil {
				bad("calls[%d].plugin: each call needs the evaluator plugin ({path, sha256})", i)
			}
			if c.Function == "" {
				bad("calls[%d].function: each call needs the name of the function to call", i)
			}
		}
		if spec.PassScore != nil && (*spec.PassScore < 0 || *spec.PassScore > 1) {
			bad("pass_score: must be between 0 and 1, got %v", *spec.PassScore)
		}
	case "test":
		if spec.Plugin == nil {
			bad("plugin: the test check needs the test-function plugin ({path, sha256})")
		}
		if a := spec.Attribute; a == "status_code" || strings.HasPrefix(a, "headers-") || isAgentAttribute(a) {
			bad("attribute: the test check reads the agent's result JSON from output, stderr or files-<path>, not %s", a)
		}
	case "file":
		if spec.Path == "" {
			bad("path: the file check needs the tracked file's path")
		} else if strings.HasPrefix(spec.Path, "/") || strings.Contains("/"+spec.Path+"/", "/../") {
			bad("path: %q must be relative to the workspace and stay inside it", spec.Path)
		}
		if spec.Attribute != "" && spec.Attribute != FileAttribute(spec.Path) {
			bad("attribute: the file check compares %s, not %q", FileAttribute(spec.Path), spec.Attribute)
		}
	}
	return errs
}

// validateAssertion checks an assertion's value, values and threshold.
func validateAssertion(spec checkspec.CheckSpec, base string, allowed []string) []string {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	hasValue, hasValues := spec.Value != nil, len(spec.Values) > 0
	if hasValue && hasValues {
		bad("value: give value (one text) or values (a list of phrases), not both")
	}
	if spec.ExpectedFrom != "" && (hasValue || hasValues) {
		bad("expected_from: the %s check takes its expected value from value/values or from expected_from, not both", spec.Kind)
	}
	if hasValue && slices.Contains(allowed, "value") {
		switch v := spec.Value.(type) {
		case []any, map[string]any:
			hint := ""
			if slices.Contains(allowed, "values") {
				hint = " (several phrases go in values)"
			}
			bad("value: is %s; the %s check takes one text, number or boolean%s", describeValue(v), spec.Kind, hint)
		case string:
			if v == "" && base != "equals" {
				bad("value: is empty, and every text %s it", map[bool]string{true: "starts with", false: "contains"}[base == "starts-with"])
			}
		}
	}
	if spec.Values != nil && !hasValues && slices.Contains(allowed, "values") {
		bad("values: is empty; give at least one phrase")
	}
	if hasValues && slices.Contains(allowed, "values") {
		for i, v := range spec.Values {
			switch t := v.(type) {
			case nil, []any, map[string]any:
				bad("values[%d]: is %s, not a phrase (text, a number or a boolean)", i, describeValue(v))
			case string:
				if t == "" {
					bad("values[%d]: is empty, and every text contains it", i)
				}
			}
		}
	}
	if t := spec.Threshold; t != nil && (*t < 0 || *t > 1) {
		bad("threshold: must be between 0 and 1 (the share of phrases found), got %v", *t)
	}
	return errs
}

// validateAgentCheck checks the options of tools, tool-output, flags,
// cost and tokens.
func validateAgentCheck(spec checkspec.CheckSpec) []string {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	if t := spec.Threshold; t != nil && (*t < 0 || *t > 1) {
		bad("threshold: must be between 0 and 1 (the share of the named tools), got %v", *t)
	}
	own := "value"
	if spec.Kind == "tools" {
		own = "values"
	}
	if spec.ExpectedFrom != "" && (spec.Value != nil && own == "value" || spec.Values != nil && own == "values") {
		bad("expected_from: the %s check takes its expected value from %s or from expected_from, not both", spec.Kind, own)
	}
	switch spec.Kind {
	case "tools":
		for i, v := range spec.Values {
			switch t := v.(type) {
			case string:
				if t == "" {
					bad("values[%d]: is empty, not a tool name", i)
				}
			default:
				bad("values[%d]: is %s, not a tool name", i, describeValue(v))
			}
		}
		if spec.Match != "" && !slices.Contains(toolMatches, spec.Match) {
			bad("match: unknown mode %q (expected one of %s)", spec.Match, strings.Join(toolMatches, ", "))
		}
		if spec.Empty != "" && !slices.Contains(toolEmpties, spec.Empty) {
			bad("empty: unknown meaning %q (expected %s)", spec.Empty, strings.Join(toolEmpties, " or "))
		} else if spec.Empty != "" && len(spec.Values) > 0 {
			bad("empty: says what an empty list of tools means, but values lists %d", len(spec.Values))
		}
		if spec.Threshold != nil && (spec.Match == "exact" || spec.Match == "any") {
			bad("threshold: only with match all or in-order (the share of the tools called, or called in order), not with match %s", spec.Match)
		}
	case "flags":
		// {} is allowed, and asks nothing: eval datasets write
		// expected_flags: {} for "no flags", and their cases become
		// checks with that value.
		if spec.Value != nil {
			if _, why := flagsOf(spec.Value); why != "" {
				bad("value: %s", why)
			}
		}
		if spec.Phrases != nil && len(spec.Phrases) == 0 {
			bad("phrases: is empty; leave it out to use the default disclaimers")
		}
		for i, p := range spec.Phrases {
			if strings.TrimSpace(p) == "" {
				bad("phrases[%d]: is empty, and every reply contains it", i)
			}
		}
	case "tool-output":
		if spec.Value != nil {
			if _, why := toolOutputs(spec.Value); why != "" {
				bad("value: %s", why)
			}
		}
	case "cost":
		switch {
		case spec.MaxUSD == nil:
			bad("max_usd: the cost check needs the ceiling on the agent's cost in US dollars")
		case *spec.MaxUSD < 0:
			bad("max_usd: must not be negative, got %v", *spec.MaxUSD)
		}
	case "tokens":
		if spec.MaxTokens == nil && spec.MaxInputTokens == nil && spec.MaxOutputTokens == nil {
			bad("max_tokens: the tokens check needs max_tokens (on total tokens), max_input_tokens or max_output_tokens")
		}
		for _, c := range []struct {
			name string
			v    *int64
		}{{"max_tokens", spec.MaxTokens}, {"max_input_tokens", spec.MaxInputTokens}, {"max_output_tokens", spec.MaxOutputTokens}} {
			if c.v != nil && *c.v <= 0 {
				bad("%s: must be positive, got %d", c.name, *c.v)
			}
		}
	}
	return errs
}

func validAttribute(a string) bool {
	switch a {
	case "status_code", "output", "stderr", AttrMockCalls, AttrAnswer, AttrFinalReply:
		return true
	}
	if h, ok := strings.CutPrefix(a, "headers-"); ok {
		return h != ""
	}
	p, ok := strings.CutPrefix(a, "files-")
	return ok && p != ""
}

// setOptions lists the kind-specific options a declaration sets.
func setOptions(s checkspec.CheckSpec) []string {
	var out []string
	add := func(set bool, name string) {
		if set {
			out = append(out, name)
		}
	}
	add(s.NonZero, "nonzero")
	add(s.IgnoreWhitespace, "ignore_whitespace")
	add(s.IgnoreCase, "ignore_case")
	add(s.Tolerance != 0, "tolerance")
	add(s.RelTolerance != 0, "rel_tolerance")
	add(len(s.IgnoreKeys) > 0, "ignore_keys")
	add(s.UnorderedLists, "unordered_lists")
	add(s.Pattern != "", "pattern")
	add(s.JSONPath != "", "json_path")
	add(s.ExpectedFrom != "", "expected_from")
	add(s.Schema != nil, "schema")
	add(s.SchemaFile != "", "schema_file")
	add(s.Path != "", "path")
	add(s.Mock != "", "mock")
	add(s.Method != "", "method")
	add(s.Count != nil, "count")
	add(s.Body != nil, "body")
	add(s.ExpectedFile != "", "expected_file")
	add(s.Plugin != nil, "plugin")
	add(s.Function != "", "function")
	add(len(s.Arguments) > 0, "arguments")
	add(s.PassScore != nil, "pass_score")
	add(s.Value != nil, "value")
	add(s.Values != nil, "values")
	add(s.Threshold != nil, "threshold")
	add(s.MaxSeconds != nil, "max_seconds")
	add(s.Match != "", "match")
	add(s.Empty != "", "empty")
	add(s.Phrases != nil, "phrases")
	add(s.MaxUSD != nil, "max_usd")
	add(s.MaxTokens != nil, "max_tokens")
	add(s.MaxInputTokens != nil, "max_input_tokens")
	add(s.MaxOutputTokens != nil, "max_output_tokens")
	add(s.Conj != "", "conj")
	add(len(s.Calls) > 0, "calls")
	return out
}
