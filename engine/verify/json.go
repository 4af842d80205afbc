package verify

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/wasmeval/wasmeval/engine/checkspec"
	"github.com/wasmeval/wasmeval/plugins/abi/jsonvalue"
)

func jsonOptions(spec checkspec.CheckSpec) JSONOptions {
	return JSONOptions{Tolerance: spec.Tolerance, RelTolerance: spec.RelTolerance,
		IgnoreKeys: spec.IgnoreKeys, UnorderedLists: spec.UnorderedLists}
}

// checkJSON parses the attribute as one JSON document and deep-compares it
// with the expected value.
func checkJSON(res *AttributeResult, spec checkspec.CheckSpec, actual Actual, expected map[string]any, env Env) {
	if spec.JSONPath != "" || spec.ExpectedFrom != "" {
		checkJSONSelected(res, spec, actual, expected, env)
		return
	}
	if sameJSONText(res, actual, expected, env) {
		return
	}
	want, got, ok := jsonOperands(res, actual, expected, env, func(s string) (any, error) { return ParseJSON(s) })
	if !ok {
		return
	}
	finishJSON(res, want, got, jsonOptions(spec))
}

// checkJSONL compares JSON Lines record by record ($[i] is record i).
func checkJSONL(res *AttributeResult, spec checkspec.CheckSpec, actual Actual, expected map[string]any, env Env) {
	want, got, ok := jsonOperands(res, actual, expected, env, ParseJSONL)
	if !ok {
		return
	}
	finishJSON(res, want, got, jsonOptions(spec))
}

// jsonOperands resolves both sides to canonical JSON values; on failure it
// has already recorded why on res.
func jsonOperands(res *AttributeResult, actual Actual, expected map[string]any, env Env, parse func(string) (any, error)) (want, got any, ok bool) {
	rawGot, ok := actualValue(actual, env, res.Attribute)
	if !ok {
		fail(res, "%s", notProduced(env, res.Attribute))
		return nil, nil, false
	}
	rawWant, ok := expectedValue(expected, res.Attribute)
	if !ok {
		fail(res, "no expected value for %s", res.Attribute)
		return nil, nil, false
	}
	// An expected value written as a string holds the document's text; one
	// written as YAML/JSON structure is the document itself.
	if s, isText := rawWant.(string); isText {
		if v, err := parse(s); err == nil {
			want = v
		} else {
			want = s
		}
	} else if v, err := NormalizeJSON(rawWant); err == nil {
		want = v
	} else {
		fail(res, "expected %s is not representable as JSON: %v", res.Attribute, err)
		return nil, nil, false
	}
	res.Expected = want
	text, _ := asText(rawGot)
	got, err := parse(text)
	if err != nil {
		res.Actual = text
		res.IsCorrect = false
		res.Diff = &Diff{Summary: fmt.Sprintf("%s is not valid JSON: %v", res.Attribute, err),
			Entries: []DiffEntry{{Path: "$", Op: "mismatch", Expected: want, Actual: clip(text, 200)}}}
		return nil, nil, false
	}
	res.Actual = got
	return want, got, true
}

func finishJSON(res *AttributeResult, want, got any, opts JSONOptions) {
	entries, truncated := CompareJSON(want, got, opts)
	res.IsCorrect = len(entries) == 0
	if !res.IsCorrect {
		res.Diff = &Diff{Summary: summarize(entries, truncated), Entries: entries, Truncated: truncated}
	}
}

// sameJSONText settles the common passing case cheaply: the expected value
// is a document's text and the output is the same sequence of JSON tokens
// (only the whitespace between tokens may differ). Then one parse gives both
// values and nothing needs comparing; the verdict is the one the full path
// reaches. It reports false, having recorded nothing, whenever the full path
// must decide (different tokens, invalid JSON, a structured expectation).
// With env.RawJSON, both values are the text itself.
func sameJSONText(res *AttributeResult, actual Actual, expected map[string]any, env Env) bool {
	raw := env.RawJSON
	rawGot, ok := actualValue(actual, env, res.Attribute)
	if !ok {
		return false
	}
	rawWant, ok := expectedValue(expected, res.Attribute)
	want, isText := rawWant.(string)
	if !ok || !isText {
		return false
	}
	got, _ := asText(rawGot)
	if !sameTokens(want, got) {
		return false
	}
	var v any
	if raw && jsonvalue.ValidText(got) {
		v = json.RawMessage(got)
	} else if parsed, err := ParseJSON(got); err == nil {
		v = parsed
	} else {
		return false
	}
	// Both sides hold the one parsed value: verdicts are never modified
	// after they are made, so sharing it is safe.
	res.Expected, res.Actual, res.IsCorrect = v, v, true
	return true
}

// sameTokens reports whether a and b are the same bytes once whitespace
// between JSON tokens is dropped. Whitespace that separates two characters
// of bare words or numbers ("1 2") ends the comparison with false, so equal
// results mean equal token sequences, and a document that parses on one side
// parses to the same value on the other.
func sameTokens(a, b string) bool {
	if a == b {
		// Byte-identical, the usual passing case: equal tokens, unless
		// whitespace splits a word, which no valid document has (the
		// caller parses the text either way).
		return true
	}
	i, j := 0, 0
	inString, escaped := false, false
	var prev byte // the last character compared outside strings
	for {
		if !inString {
			si, sj := i, j
			for i < len(a) && jsonvalue.IsSpace(a[i]) {
				i++
			}
			for j < len(b) && jsonvalue.IsSpace(b[j]) {
				j++
			}
			if (i > si || j > sj) && isWordByte(prev) && (i < len(a) && isWordByte(a[i]) || j < len(b) && isWordByte(b[j])) {
				return false
			}
		}
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		c := a[i]
		if c != b[j] {
			return false
		}
		i++
		j++
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		}
		if !inString {
			prev = c
		}
	}
}

// isWordByte reports whether c can be part of a number or a bare word
// (true, false, null, or the invalid words a wrong output may hold).
func isWordByte(c byte) bool {
	switch c {
	case 0, '{', '}', '[', ']', ',', ':', '"', ' ', '\t', '\n', '\r':
		return false
	}
	return true
}

// ParseJSONL decodes JSON Lines into a list of records; blank lines are
// skipped and a bad line is reported with its number.
func ParseJSONL(s string) (any, error) {
	records := []any{}
	for i, line := range strings.Split(s, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		v, err := ParseJSON(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		records = append(records, v)
	}
	return records, nil
}

// summarize says what differs in one line: the first difference and how
// many more there are.
func summarize(entries []DiffEntry, truncated bool) string {
	if len(entries) == 0 {
		return ""
	}
	e := entries[0]
	var first string
	switch e.Op {
	case "missing":
		first = fmt.Sprintf("%s missing (expected %s)", e.Path, brief(e.Expected))
	case "extra":
		first = fmt.Sprintf("%s unexpected (%s)", e.Path, brief(e.Actual))
	case "type":
		first = fmt.Sprintf("%s is %s, expected %s", e.Path, jsonType(e.Actual), jsonType(e.Expected))
	default:
		first = fmt.Sprintf("%s: expected %s, got %s", e.Path, brief(e.Expected), brief(e.Actual))
	}
	more := len(entries) - 1
	switch {
	case truncated:
		return fmt.Sprintf("%s; and more than %d other differences", first, more)
	case more == 1:
		return first + "; and 1 other difference"
	case more > 1:
		return fmt.Sprintf("%s; and %d other differences", first, more)
	}
	return first
}

// brief renders a value compactly for a summary line.
func brief(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return fmt.Sprintf("%q", clip(v.(string), 60))
	case nil:
		return "null"
	}
	return clip(fmt.Sprint(v), 60)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return CutAtRune(s, n) + "…"
}

// CutAtRune returns the longest prefix of s of at most n bytes that does
// not split a UTF-8 sequence.
func CutAtRune(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
