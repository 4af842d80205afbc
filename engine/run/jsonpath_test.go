package run

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/result"
)

// jsonPathsConfig is the config of a problem whose output is a JSON
// document checked in parts: the items with a tolerance (the timing in
// meta is never compared), the count as text, the error message and the
// standard error against patterns each case gives in its expected values,
// and a field with an awkward name against a fixed pattern.
const jsonPathsConfig = `name: paths
command: "sh main.sh"
checkpoints:
  c1:
    groups:
      lookup:
        type: Core
        case_defaults:
          expected: {error_pattern: '^$', stderr_pattern: '^$'}
        checks:
          - kind: json
            json_path: $.result.items
            tolerance: 0.001
          - kind: text
            json_path: $.result.count
          - kind: regex
            json_path: $.error
            expected_from: expected.error_pattern
          - kind: regex
            json_path: $['request id']
            pattern: '^req-\d+$'
          - kind: regex
            attribute: stderr
            expected_from: expected.stderr_pattern
`

var jsonPathsProblem = map[string]string{
	"config.yaml":                        jsonPathsConfig,
	"c1/lookup/apple/ARGS":               "lookup apple",
	"c1/lookup/apple/EXPECTED.json":      `{"request id": "req-1", "meta": {"took_ms": 0}, "result": {"items": [{"name": "apple", "price": 1.0}], "count": 1}, "error": ""}`,
	"c1/lookup/pear/ARGS":                "lookup pear",
	"c1/lookup/pear/EXPECTED.json":       `{"request id": "req-2", "meta": {"took_ms": 0}, "result": {"items": [{"name": "pear", "price": 2.5}, {"name": "nashi pear", "price": 3}], "count": 2}, "error": ""}`,
	"c1/lookup/cherry/ARGS":              "lookup cherry",
	"c1/lookup/cherry/EXPECTED.json":     `{"request id": "req-3", "meta": {"took_ms": 0}, "result": {"items": [{"name": "cherry", "price": 0.2}], "count": 1}, "error": ""}`,
	"c1/lookup/kiwi/ARGS":                "lookup kiwi",
	"c1/lookup/kiwi/EXPECTED.json":       `{"request id": "req-4", "meta": {"took_ms": 0}, "result": {"items": [], "count": 0}, "error": "no such fruit"}`,
	"c1/lookup/kiwi/META.yaml":           "expected:\n  error_pattern: '^no such fruit: kiwi$'\n  stderr_pattern: '^warning: kiwi is not stocked\\n?$'\n",
	"c1/lookup/README.md":                "not a case\n",
	"c1/lookup/cherry/notes-for-authors": "an input file, ignored by the submission\n",
}

// jsonPathsSubmission answers every case right; its timings differ from
// the expected ones, which no check compares.
const jsonPathsSubmission = `set -e
case "$2" in
apple) printf '{"request id": "req-1", "meta": {"took_ms": %d}, "result": {"items": [{"name": "apple", "price": 1.0001}], "count": 1}, "error": ""}\n' $$ ;;
pear) printf '{"request id": "req-2", "meta": {"took_ms": 5}, "result": {"count": 2, "items": [{"price": 2.5, "name": "pear"}, {"name": "nashi pear", "price": 3.0}]}, "error": ""}\n' ;;
cherry) printf '{"request id": "req-3", "meta": {"took_ms": 1}, "result": {"items": [{"name": "cherry", "price": 0.2}], "count": 1}, "error": ""}\n' ;;
kiwi) echo "warning: kiwi is not stocked" >&2
  printf '{"request id": "req-4", "meta": {"took_ms": 2}, "result": {"items": [], "count": 0}, "error": "no such fruit: kiwi"}\n' ;;
esac
`

func runJSONPaths(t *testing.T, files map[string]string, script string) map[string]*result.CaseRecord {
	t.Helper()
	_, all := runFiles(t, files, script)
	recs := byID(all)
	if len(recs) != 4 {
		t.Fatalf("%d cases run, want 4", len(recs))
	}
	return recs
}

func TestRunJSONPathChecks(t *testing.T) {
	for id, r := range runJSONPaths(t, jsonPathsProblem, jsonPathsSubmission) {
		if !r.Passed || len(r.Attributes) != 5 {
			t.Errorf("%s: passed %v with %d attributes: %+v", id, r.Passed, len(r.Attributes), r.Attributes)
		}
	}

	// A wrong answer: apple's price is off by more than the tolerance,
	// pear's output lacks the count, kiwi's error message says something
	// else. Each fails that check alone, and its diff names the path;
	// cherry passes.
	wrong := strings.NewReplacer(
		`"price": 1.0001`, `"price": 1.5`,
		`"result": {"count": 2, `, `"result": {`,
		`"error": "no such fruit: kiwi"`, `"error": "unknown fruit kiwi"`,
	).Replace(jsonPathsSubmission)
	if wrong == jsonPathsSubmission {
		t.Fatal("the wrong submission is the right one")
	}
	recs := runJSONPaths(t, jsonPathsProblem, wrong)
	type failure struct{ check, summary, entry string }
	want := map[string]failure{
		"apple": {"json", "$.result.items[0].price: expected 1.0, got 1.5", "$.result.items[0].price changed"},
		"pear":  {"text", "$.result.count: not found in output", "$.result.count missing"},
		"kiwi":  {"regex", "$.error in output does not match /^no such fruit: kiwi$/", "$.error mismatch"},
	}
	for id, r := range recs {
		w, shouldFail := want[id]
		if r.Passed == shouldFail {
			t.Errorf("%s: passed %v", id, r.Passed)
		}
		var wrongAttrs []string
		for _, a := range r.Attributes {
			if a.IsCorrect {
				continue
			}
			wrongAttrs = append(wrongAttrs, a.Check)
			if !shouldFail || a.Check != w.check {
				t.Errorf("%s: the %s check on %s is wrong: %+v", id, a.Check, a.Attribute, a.Diff)
				continue
			}
			if a.Diff == nil || !strings.Contains(a.Diff.Summary, w.summary) {
				t.Errorf("%s: summary %+v, want %q", id, a.Diff, w.summary)
				continue
			}
			if len(a.Diff.Entries) != 1 || a.Diff.Entries[0].Path+" "+a.Diff.Entries[0].Op != w.entry {
				t.Errorf("%s: entries %+v, want %q", id, a.Diff.Entries, w.entry)
			}
		}
		if shouldFail && len(wrongAttrs) != 1 {
			t.Errorf("%s: %d checks failed (%v), want the %s check alone", id, len(wrongAttrs), wrongAttrs, w.check)
		}
	}
}

// Bad paths and options are refused when the problem loads, at their check's
// line; a case whose expected values lack what a check reads is refused by
// validation, naming the case and the check.
func TestJSONPathValidation(t *testing.T) {
	bad := strings.NewReplacer(
		"json_path: $.result.items\n", "json_path: $..items\n",
		"pattern: '^req-\\d+$'", "pattern: '^req-\\d+$'\n            expected_from: expected.request_pattern",
	).Replace(jsonPathsConfig)
	files := map[string]string{}
	for k, v := range jsonPathsProblem {
		files[k] = v
	}
	files["config.yaml"] = bad
	_, err := LoadProblem(writeFiles(t, files))
	var list diag.List
	if !errors.As(err, &list) || len(list) != 2 {
		t.Fatalf("got %v", err)
	}
	for i, w := range []struct {
		line int
		path string
		msg  string
	}{
		{11, "checkpoints.c1.groups.lookup.checks[0]", `json_path: "$..items" at character 2: recursive descent (..) is not supported`},
		{19, "checkpoints.c1.groups.lookup.checks[3]", "expected_from: the regex check takes its pattern from `pattern` or from `expected_from`, not both"},
	} {
		e := list[i]
		if filepath.Base(e.File) != "config.yaml" || e.Line != w.line || e.Path != w.path || !strings.HasPrefix(e.Msg, w.msg) {
			t.Errorf("error %d: %s:%d: %s: %s\nwant line %d, %s and %q", i, e.File, e.Line, e.Path, e.Msg, w.line, w.path, w.msg)
		}
	}

	// The config is right but for the key the stderr check reads, which no
	// case gives, and pear's expected output lacks the count the text
	// check compares.
	files["config.yaml"] = strings.Replace(jsonPathsConfig, "expected.stderr_pattern", "expected.stderr_regex", 1)
	files["c1/lookup/pear/EXPECTED.json"] = strings.Replace(files["c1/lookup/pear/EXPECTED.json"], `, "count": 2`, "", 1)
	p, err := LoadProblem(writeFiles(t, files))
	if err != nil {
		t.Fatal(err)
	}
	err = Validate(context.Background(), p, BuiltinLoader, nil)
	if !errors.As(err, &list) {
		t.Fatalf("got %v", err)
	}
	var got []string
	for _, e := range list {
		got = append(got, filepath.Base(e.File)+": "+e.Path+": "+e.Msg)
	}
	text := strings.Join(got, "\n")
	for _, want := range []string{
		`pear: checks[1]: case pear: json_path: $.result.count: not found in expected output ($.result has no member "count")`,
		// One error for the check the four cases share, naming them.
		`checks[4]: 4 cases (apple, cherry, kiwi, pear): expected_from: expected.stderr_regex: not found in the case's expected values (expected has no member "stderr_regex")`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("validation says:\n%s\nwant it to contain %q", text, want)
		}
	}
	if len(list) != 2 {
		t.Errorf("%d errors, want 2 (pear's count, and the stderr_regex the cases lack):\n%s", len(list), text)
	}
}
