package verify

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/checkspec"
)

// pathOutput is the output the json_path tests look into.
const pathOutput = `{"result": {"items": [{"sku": "a", "price": 1.004}, {"sku": "b", "price": 2}], "count": 2},
 "error": "error: no such item \"x\"", "status": {"code": 404}, "odd key": ["first", "last"], "tags": []}`

func TestChecksWithJSONPath(t *testing.T) {
	actual := Actual{Output: pathOutput, Stderr: "warning: 3 retries\n"}
	fullExpected := map[string]any{"output": map[string]any{
		"result": map[string]any{"items": []any{map[string]any{"sku": "a", "price": 1}, map[string]any{"sku": "b", "price": 2}}, "count": 2},
		"error":  "^error: no such item",
		"status": map[string]any{"code": 404},
	}}
	tests := []struct {
		name     string
		spec     checkspec.CheckSpec
		expected map[string]any
		correct  bool
		summary  string   // substring of the diff summary when incorrect
		entries  []string // "path op" of each entry, when given
	}{
		// regex
		{"regex on a field", checkspec.CheckSpec{Kind: "regex", JSONPath: "$.error", Pattern: `^error: no such item "\w+"$`}, nil, true, "", nil},
		{"regex on a field fails", checkspec.CheckSpec{Kind: "regex", JSONPath: "$.error", Pattern: `^fatal`}, nil, false,
			"$.error in output does not match /^fatal/", []string{"$.error mismatch"}},
		{"regex on a number", checkspec.CheckSpec{Kind: "regex", JSONPath: "$.status.code", Pattern: `^4\d\d$`}, nil, true, "", nil},
		{"regex on an object", checkspec.CheckSpec{Kind: "regex", JSONPath: "$.status", Pattern: `^\{"code":404\}$`}, nil, true, "", nil},
		{"regex with a quoted key and negative index", checkspec.CheckSpec{Kind: "regex", JSONPath: "$['odd key'][-1]", Pattern: `^last$`}, nil, true, "", nil},
		{"regex pattern from the expected document at the path", checkspec.CheckSpec{Kind: "regex", JSONPath: "$.error"}, fullExpected, true, "", nil},
		{"regex pattern from expected_from", checkspec.CheckSpec{Kind: "regex", JSONPath: "$.error", ExpectedFrom: "expected.error_pattern"},
			map[string]any{"error_pattern": "no such item"}, true, "", nil},
		{"regex pattern from expected_from fails", checkspec.CheckSpec{Kind: "regex", JSONPath: "$.error", ExpectedFrom: "expected.error_pattern"},
			map[string]any{"error_pattern": "^permission denied"}, false, `$.error in output does not match /^permission denied/`, []string{"$.error mismatch"}},
		{"regex on stderr from expected_from", checkspec.CheckSpec{Kind: "regex", Attribute: "stderr", ExpectedFrom: "expected.stderr_pattern"},
			map[string]any{"stderr_pattern": `^warning: \d+ retries$`}, false, `stderr does not match /^warning: \d+ retries$/`, []string{"stderr mismatch"}},
		{"regex on stderr from expected_from, multiline", checkspec.CheckSpec{Kind: "regex", Attribute: "stderr", ExpectedFrom: "expected.stderr_pattern"},
			map[string]any{"stderr_pattern": `(?m)^warning: \d+ retries$`}, true, "", nil},
		{"regex pattern inside an expected file", checkspec.CheckSpec{Kind: "regex", JSONPath: "$.error", ExpectedFrom: `expected.files["patterns.json"].error`},
			map[string]any{"files": map[string]any{"patterns.json": `{"error": "^error:"}`}}, true, "", nil},
		{"regex with a missing expected_from", checkspec.CheckSpec{Kind: "regex", JSONPath: "$.error", ExpectedFrom: "expected.error_pattern"},
			map[string]any{"output": "x"}, false, `expected_from expected.error_pattern: not found in the case's expected values (expected has no member "error_pattern")`, nil},
		{"regex with expected_from that is not text", checkspec.CheckSpec{Kind: "regex", ExpectedFrom: "expected.n"},
			map[string]any{"n": 3}, false, "expected_from expected.n is a number, not a pattern", nil},
		{"regex with an invalid expected pattern", checkspec.CheckSpec{Kind: "regex", ExpectedFrom: "expected.p"},
			map[string]any{"p": "("}, false, `expected_from expected.p: invalid pattern "("`, nil},
		{"regex over a wildcard", checkspec.CheckSpec{Kind: "regex", JSONPath: "$.result.items[*].sku", Pattern: `^[a-z]$`}, nil, true, "", nil},
		{"regex over a wildcard, one fails", checkspec.CheckSpec{Kind: "regex", JSONPath: "$.result.items[*].sku", Pattern: `^a$`}, nil, false,
			"$.result.items[1].sku in output does not match /^a$/; 1 of 2 values at $.result.items[*].sku differ", []string{"$.result.items[1].sku mismatch"}},
		{"regex over a wildcard that selects nothing", checkspec.CheckSpec{Kind: "regex", JSONPath: "$.result.none[*]", Pattern: `x`}, nil, false,
			`$.result.none[*]: not found in output ($.result has no member "none")`, nil},
		{"regex over a wildcard on a number", checkspec.CheckSpec{Kind: "regex", JSONPath: "$.status.code[*]", Pattern: `x`}, nil, false,
			"$.status.code[*]: not found in output ($.status.code is a number, not an array or object)", []string{"$.status.code[*] missing"}},

		{"regex over a wildcard on an empty list", checkspec.CheckSpec{Kind: "regex", JSONPath: "$.tags[*]", Pattern: `x`}, nil, false,
			"$.tags[*]: selects nothing in output", []string{"$.tags[*] missing"}},

		// text
		{"text on a field", checkspec.CheckSpec{Kind: "text", JSONPath: "$.result.items[0].sku"},
			map[string]any{"output": `{"result": {"items": [{"sku": "a"}]}}`}, true, "", nil},
		{"text on a field differs", checkspec.CheckSpec{Kind: "text", JSONPath: "$.result.items[1].sku"},
			map[string]any{"output": `{"result": {"items": [{"sku": "a"}, {"sku": "c"}]}}`}, false,
			"$.result.items[1].sku: 1 line differs (line 1)", []string{"$.result.items[1].sku (line 1) changed"}},
		{"text on a field, normalised", checkspec.CheckSpec{Kind: "text", JSONPath: "$.error", IgnoreCase: true, ExpectedFrom: "expected.message"},
			map[string]any{"message": `ERROR: No such item "x"`}, true, "", nil},
		{"text on a number compares its JSON text", checkspec.CheckSpec{Kind: "text", JSONPath: "$.result.count", ExpectedFrom: "expected.count"},
			map[string]any{"count": 2}, true, "", nil},
		{"text on an object compares compact JSON", checkspec.CheckSpec{Kind: "text", JSONPath: "$.status", ExpectedFrom: "expected.status"},
			map[string]any{"status": `{"code":404}`}, true, "", nil},
		{"text from expected_from without a path compares the whole attribute", checkspec.CheckSpec{Kind: "text", Attribute: "stderr", ExpectedFrom: "expected.log.first"},
			map[string]any{"log": map[string]any{"first": "warning: 3 retries\n"}}, true, "", nil},
		{"text at a path not in the output", checkspec.CheckSpec{Kind: "text", JSONPath: "$.result.total", ExpectedFrom: "expected.t"},
			map[string]any{"t": "3"}, false, `$.result.total: not found in output ($.result has no member "total")`, []string{"$.result.total missing"}},

		// json
		{"json on a sub-tree with tolerance", checkspec.CheckSpec{Kind: "json", JSONPath: "$.result.items", Tolerance: 0.01}, fullExpected, true, "", nil},
		{"json on a sub-tree differs", checkspec.CheckSpec{Kind: "json", JSONPath: "$.result.items"}, fullExpected, false,
			"$.result.items[0].price: expected 1, got 1.004", []string{"$.result.items[0].price changed"}},
		{"json on a sub-tree from expected_from", checkspec.CheckSpec{Kind: "json", JSONPath: "$.result", ExpectedFrom: "expected.summary", IgnoreKeys: []string{"items"}},
			map[string]any{"summary": map[string]any{"count": 3}}, false, "$.result.count: expected 3, got 2", nil},
		{"json expected written as text at the path", checkspec.CheckSpec{Kind: "json", JSONPath: "$.status"},
			map[string]any{"output": `{"status": {"code": 404}}`}, true, "", nil},
		{"json with expected_from and no path", checkspec.CheckSpec{Kind: "json", ExpectedFrom: "expected.whole", IgnoreKeys: []string{"result", "error", "odd key", "tags"}},
			map[string]any{"whole": `{"status": {"code": 404}}`}, true, "", nil},
		{"json over a wildcard", checkspec.CheckSpec{Kind: "json", JSONPath: "$.result.items[*].price", Tolerance: 0.01}, fullExpected, true, "", nil},
		{"json over a wildcard pairs by path", checkspec.CheckSpec{Kind: "json", JSONPath: "$.result.items[*].price", Tolerance: 0.01},
			map[string]any{"output": `{"result": {"items": [{"price": 1}, {"price": 2}, {"price": 3}]}}`}, false,
			"$.result.items[2].price: not found in output", []string{"$.result.items[2].price missing"}},
		{"json over a wildcard, output has more", checkspec.CheckSpec{Kind: "json", JSONPath: "$.result.items[*].price", Tolerance: 0.01},
			map[string]any{"output": `{"result": {"items": [{"price": 1}]}}`}, false,
			"$.result.items[1].price: found in output but not in expected output", []string{"$.result.items[1].price extra"}},
		{"json over a wildcard, output lacks the list", checkspec.CheckSpec{Kind: "json", JSONPath: "$.items[*]"},
			map[string]any{"output": `{"items": []}`}, false, `$.items[*]: not found in output ($ has no member "items")`, []string{"$.items[*] missing"}},
		{"json over a wildcard, both lists empty", checkspec.CheckSpec{Kind: "json", JSONPath: "$.tags[*]"},
			map[string]any{"output": `{"tags": []}`}, true, "", nil},
		{"json at a path missing from the expected document", checkspec.CheckSpec{Kind: "json", JSONPath: "$.result.count"},
			map[string]any{"output": `{"result": {}}`}, false, `$.result.count: found in output but not in expected output ($.result has no member "count")`, []string{"$.result.count extra"}},
		{"json at a path missing on both sides", checkspec.CheckSpec{Kind: "json", JSONPath: "$.a.b"},
			map[string]any{"output": `{}`}, false, `$.a.b: not found in expected output nor in output`, []string{"$.a.b missing"}},
		{"json with an expected output that is not JSON", checkspec.CheckSpec{Kind: "json", JSONPath: "$.a"},
			map[string]any{"output": "plain text"}, false, "expected output is not JSON, so json_path cannot select from it", nil},
		{"json without an expected output", checkspec.CheckSpec{Kind: "json", JSONPath: "$.a"},
			nil, false, "no expected value for output", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Run(tt.spec, actual, tt.expected, Env{})
			if res.IsCorrect != tt.correct {
				t.Fatalf("is_correct=%v, want %v (diff %+v)", res.IsCorrect, tt.correct, res.Diff)
			}
			if tt.correct {
				if res.Diff != nil {
					t.Errorf("a correct attribute has no diff, got %+v", res.Diff)
				}
				return
			}
			if res.Diff == nil || !strings.Contains(res.Diff.Summary, tt.summary) {
				t.Fatalf("diff summary %+v, want it to contain %q", res.Diff, tt.summary)
			}
			if tt.entries != nil {
				var got []string
				for _, e := range res.Diff.Entries {
					got = append(got, e.Path+" "+e.Op)
				}
				if strings.Join(got, ", ") != strings.Join(tt.entries, ", ") {
					t.Errorf("entries %v, want %v", got, tt.entries)
				}
			}
			// Every verdict must encode, as reports and journals do.
			if _, err := json.Marshal(res); err != nil {
				t.Errorf("verdict does not encode: %v", err)
			}
		})
	}
}

func TestJSONPathOnOutputThatIsNotJSON(t *testing.T) {
	for _, kind := range []string{"text", "json", "regex"} {
		spec := checkspec.CheckSpec{Kind: kind, JSONPath: "$.a.b", ExpectedFrom: "expected.v"}
		res := Run(spec, Actual{Output: "Traceback (most recent call last):"}, map[string]any{"v": "x"}, Env{})
		if res.IsCorrect || res.Diff == nil || !strings.Contains(res.Diff.Summary, "output is not valid JSON, so json_path $.a.b finds nothing in it") {
			t.Errorf("%s: %+v", kind, res.Diff)
		}
		if len(res.Diff.Entries) != 1 || res.Diff.Entries[0].Op != "mismatch" {
			t.Errorf("%s: entries %+v", kind, res.Diff.Entries)
		}
	}
	// Without json_path a json check with expected_from says what the
	// plain json check says.
	res := Run(checkspec.CheckSpec{Kind: "json", ExpectedFrom: "expected.v"}, Actual{Output: "{"}, map[string]any{"v": "{}"}, Env{})
	if res.IsCorrect || !strings.HasPrefix(res.Diff.Summary, "output is not valid JSON: ") {
		t.Errorf("%+v", res.Diff)
	}
}

// A wildcard over many values keeps at most MaxDiffEntries entries and says
// how many values differ.
func TestJSONPathWildcardIsCapped(t *testing.T) {
	var items []string
	for i := 0; i < 120; i++ {
		items = append(items, `{"v": "x"}`)
	}
	out := `{"items": [` + strings.Join(items, ",") + `]}`
	res := Run(checkspec.CheckSpec{Kind: "regex", JSONPath: "$.items[*].v", Pattern: "^y$"}, Actual{Output: out}, nil, Env{})
	if res.IsCorrect || len(res.Diff.Entries) != MaxDiffEntries || !res.Diff.Truncated ||
		!strings.HasSuffix(res.Diff.Summary, "; 120 of 120 values at $.items[*].v differ") {
		t.Errorf("entries %d, truncated %v, summary %q", len(res.Diff.Entries), res.Diff.Truncated, res.Diff.Summary)
	}
	if got, _ := res.Actual.([]any); len(got) != 120 {
		t.Errorf("actual %T of %d", res.Actual, len(got))
	}
}

func TestValidateJSONPathOptions(t *testing.T) {
	for _, tc := range []struct {
		spec checkspec.CheckSpec
		want string // "" when valid
	}{
		{checkspec.CheckSpec{Kind: "regex", JSONPath: "$.error", Pattern: "x"}, ""},
		{checkspec.CheckSpec{Kind: "text", JSONPath: "$['a b'][0]", ExpectedFrom: "expected.ab"}, ""},
		{checkspec.CheckSpec{Kind: "json", JSONPath: "$.items[*].price", Tolerance: 0.1}, ""},
		{checkspec.CheckSpec{Kind: "regex", Attribute: "stderr", ExpectedFrom: "expected.stderr_pattern"}, ""},
		{checkspec.CheckSpec{Kind: "regex", JSONPath: "$..error", Pattern: "x"}, `json_path: "$..error" at character 2: recursive descent (..) is not supported`},
		{checkspec.CheckSpec{Kind: "json", JSONPath: "result.items"}, `json_path: "result.items" at character 1: a path starts with $`},
		{checkspec.CheckSpec{Kind: "json", JSONPath: "$.items[?(@.a)]"}, "json_path: \"$.items[?(@.a)]\" at character 9: filters ([?...]) are not supported"},
		{checkspec.CheckSpec{Kind: "jsonl", JSONPath: "$.a"}, "json_path: not an option of the jsonl check"},
		{checkspec.CheckSpec{Kind: "file", Path: "out.json", JSONPath: "$.a"}, "json_path: not an option of the file check"},
		{checkspec.CheckSpec{Kind: "status", ExpectedFrom: "expected.code"}, "expected_from: not an option of the status check"},
		{checkspec.CheckSpec{Kind: "regex", Pattern: "x", ExpectedFrom: "expected.p"}, "expected_from: the regex check takes its pattern from `pattern` or from `expected_from`, not both"},
		{checkspec.CheckSpec{Kind: "regex", ExpectedFrom: "stderr_pattern"}, `expected_from: "stderr_pattern" at character 1: a path starts with expected`},
		{checkspec.CheckSpec{Kind: "regex", ExpectedFrom: "expected"}, "expected_from: \"expected\" names no expected value"},
		{checkspec.CheckSpec{Kind: "regex", ExpectedFrom: "expected[0]"}, "expected_from: \"expected[0]\": expected values are named by key"},
		{checkspec.CheckSpec{Kind: "json", ExpectedFrom: "expected.output.items[*]"}, "expected_from: \"expected.output.items[*]\": expected_from names one value"},
	} {
		errs := Validate(tc.spec)
		got := strings.Join(errs, "; ")
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%+v: got %q, want %q", tc.spec, got, tc.want)
		}
	}
}

func TestValidateExpectedForJSONPath(t *testing.T) {
	expected := map[string]any{
		"output":         `{"result": {"items": [{"price": 1}, {"sku": "b"}]}, "error": "^bad"}`,
		"stderr_pattern": "^error:",
		"count":          3,
		"bad_pattern":    "(",
	}
	for _, tc := range []struct {
		spec checkspec.CheckSpec
		want string
	}{
		{checkspec.CheckSpec{Kind: "json", JSONPath: "$.result.items[0]"}, ""},
		{checkspec.CheckSpec{Kind: "regex", JSONPath: "$.error"}, ""},
		{checkspec.CheckSpec{Kind: "regex", Attribute: "stderr", ExpectedFrom: "expected.stderr_pattern"}, ""},
		{checkspec.CheckSpec{Kind: "regex", JSONPath: "$.missing", Pattern: "x"}, ""}, // the pattern is given: nothing to look up
		{checkspec.CheckSpec{Kind: "json", JSONPath: "$.result.total"},
			`json_path: $.result.total: not found in expected output ($.result has no member "total")`},
		{checkspec.CheckSpec{Kind: "json", JSONPath: "$.result.items[*].price"},
			`json_path: $.result.items[1].price: not found in expected output ($.result.items[1] has no member "price")`},
		{checkspec.CheckSpec{Kind: "regex", Attribute: "stderr", ExpectedFrom: "expected.stderr_regex"},
			`expected_from: expected.stderr_regex: not found in the case's expected values (expected has no member "stderr_regex")`},
		{checkspec.CheckSpec{Kind: "regex", ExpectedFrom: "expected.count"}, "expected_from: expected.count is a number, not a pattern (text)"},
		{checkspec.CheckSpec{Kind: "regex", ExpectedFrom: "expected.bad_pattern"}, "expected_from: expected.bad_pattern is not a valid pattern"},
		{checkspec.CheckSpec{Kind: "regex", JSONPath: "$.result"}, "json_path: the expected output at $.result is an object, not a pattern (text)"},
		{checkspec.CheckSpec{Kind: "text", Attribute: "stderr", JSONPath: "$.a"}, "json_path: no expected value for stderr"},
	} {
		got := strings.Join(ValidateExpected(tc.spec, expected), "; ")
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%+v: got %q, want %q", tc.spec, got, tc.want)
		}
	}
	if got := ValidateExpected(checkspec.CheckSpec{Kind: "json", JSONPath: "$.a"}, map[string]any{"output": "not json"}); len(got) != 1 ||
		!strings.Contains(got[0], "json_path: expected output is not JSON") {
		t.Errorf("got %q", got)
	}
}

// FuzzJSONPathChecks runs the three kinds with any path over any output and
// expected document: a verdict, never a panic, and an incorrect verdict
// always says why.
func FuzzJSONPathChecks(f *testing.F) {
	f.Add("$.a", `{"a": 1}`, `{"a": 1}`)
	f.Add("$.items[*].p", `{"items": [{"p": 1}, {"q": 2}]}`, `{"items": [{"p": 1}]}`)
	f.Add("$['x y'][-1]", `{"x y": []}`, `{"x y": [1]}`)
	f.Add("$[*][*]", `[[1], {"a": "b"}, 3]`, `not json`)
	f.Add("$..a", `{`, `{}`)
	f.Fuzz(func(t *testing.T, path, output, want string) {
		expected := map[string]any{"output": want, "v": want}
		for _, spec := range []checkspec.CheckSpec{
			{Kind: "json", JSONPath: path},
			{Kind: "text", JSONPath: path},
			{Kind: "regex", JSONPath: path},
			{Kind: "regex", JSONPath: path, Pattern: "."},
			{Kind: "json", JSONPath: path, ExpectedFrom: "expected.v", UnorderedLists: true},
		} {
			res := Run(spec, Actual{Output: output}, expected, Env{})
			if !res.IsCorrect && (res.Diff == nil || res.Diff.Summary == "") {
				t.Fatalf("%+v: incorrect without a reason", spec)
			}
			_ = ValidateExpected(spec, expected)
		}
	})
}
