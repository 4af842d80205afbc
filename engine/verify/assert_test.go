package verify

import (
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/checkspec"
)

func ptr(f float64) *float64 { return &f }

// Every assertion and its negation, on the whole attribute, with
// json_path and with expected_from: the verdict, the diff's summary and
// its entries.
func TestAssertions(t *testing.T) {
	actual := Actual{
		Output:  "Hello, World! The answer is 42.\n",
		Stderr:  "warning: slow disk\n",
		Files:   map[string]any{"report.json": `{"status": "ok", "msg": "All Done", "n": 3}`},
		Headers: map[string]string{"content-type": "application/json; charset=utf-8"},
	}
	expected := map[string]any{
		"output":   "Hello, World! The answer is 42.",
		"greeting": "hello",
		"words":    []any{"Hello", "answer", 42},
		"bad":      map[string]any{"a": 1},
		"stderr":   "warning",
	}
	type tc struct {
		name    string
		spec    checkspec.CheckSpec
		correct bool
		summary string   // substring of the diff summary when incorrect
		entries []string // "path op" of each entry, when given
	}
	tests := []tc{
		// equals
		{name: "equals value", spec: checkspec.CheckSpec{Kind: "equals", Value: "Hello, World! The answer is 42.\n"}, correct: true},
		{name: "equals normalised", spec: checkspec.CheckSpec{Kind: "equals", Value: "hello,   world! the answer is 42.", IgnoreCase: true, IgnoreWhitespace: true}, correct: true},
		{name: "equals differs", spec: checkspec.CheckSpec{Kind: "equals", Value: "Hello"}, summary: "line", entries: []string{"line 1 changed"}},
		{name: "equals expected attribute", spec: checkspec.CheckSpec{Kind: "equals", IgnoreWhitespace: true}, correct: true},
		{name: "not-equals", spec: checkspec.CheckSpec{Kind: "not-equals", Value: "Hello"}, correct: true},
		{name: "not-equals fails", spec: checkspec.CheckSpec{Kind: "not-equals", Value: "hello, world! the answer is 42.\n", IgnoreCase: true},
			summary: `output equals "hello, world! the answer is 42.\n", which it must not`, entries: []string{"output mismatch"}},
		{name: "equals json_path", spec: checkspec.CheckSpec{Kind: "equals", Attribute: "files-report.json", JSONPath: "$.n", Value: 3}, correct: true},
		{name: "equals json_path differs", spec: checkspec.CheckSpec{Kind: "equals", Attribute: "files-report.json", JSONPath: "$.status", Value: "fine"},
			summary: "$.status: 1 line differs", entries: []string{"$.status (line 1) changed"}},

		// contains, icontains
		{name: "contains", spec: checkspec.CheckSpec{Kind: "contains", Value: "World"}, correct: true},
		{name: "contains missing", spec: checkspec.CheckSpec{Kind: "contains", Value: "world"},
			summary: `output does not contain "world"`, entries: []string{"output missing"}},
		{name: "contains ignore_case", spec: checkspec.CheckSpec{Kind: "contains", Value: "world", IgnoreCase: true}, correct: true},
		{name: "contains number", spec: checkspec.CheckSpec{Kind: "contains", Value: 42}, correct: true},
		{name: "contains values", spec: checkspec.CheckSpec{Kind: "contains", Values: []any{"Hello", "kiwi", "pear"}},
			summary: `output lacks 2 of 3 phrases: "kiwi", "pear"`, entries: []string{"output missing", "output missing"}},
		{name: "not-contains", spec: checkspec.CheckSpec{Kind: "not-contains", Value: "error"}, correct: true},
		{name: "not-contains fails", spec: checkspec.CheckSpec{Kind: "not-contains", Value: "answer"},
			summary: `output contains "answer", which it must not`, entries: []string{"output extra"}},
		{name: "not-contains values: none may appear", spec: checkspec.CheckSpec{Kind: "not-contains", Values: []any{"kiwi", "World"}},
			summary: `output contains "World", which it must not`, entries: []string{"output extra"}},
		{name: "icontains", spec: checkspec.CheckSpec{Kind: "icontains", Value: "WORLD"}, correct: true},
		{name: "icontains missing", spec: checkspec.CheckSpec{Kind: "icontains", Value: "kiwi"}, summary: `does not contain "kiwi"`},
		{name: "not-icontains", spec: checkspec.CheckSpec{Kind: "not-icontains", Value: "ERROR"}, correct: true},
		{name: "not-icontains fails", spec: checkspec.CheckSpec{Kind: "not-icontains", Value: "HELLO"}, summary: `output contains "HELLO", which it must not`},
		{name: "contains stderr", spec: checkspec.CheckSpec{Kind: "contains", Attribute: "stderr", Value: "slow"}, correct: true},
		{name: "contains header", spec: checkspec.CheckSpec{Kind: "contains", Attribute: "headers-content-type", Value: "json"}, correct: true},
		{name: "contains expected attribute", spec: checkspec.CheckSpec{Kind: "contains", Attribute: "stderr"}, correct: true},
		{name: "contains expected_from", spec: checkspec.CheckSpec{Kind: "icontains", ExpectedFrom: "expected.greeting"}, correct: true},
		{name: "icontains json_path", spec: checkspec.CheckSpec{Kind: "icontains", Attribute: "files-report.json", JSONPath: "$.msg", Value: "done"}, correct: true},
		{name: "contains json_path fails", spec: checkspec.CheckSpec{Kind: "contains", Attribute: "files-report.json", JSONPath: "$.msg", Value: "done"},
			summary: `$.msg in files-report.json does not contain "done"`, entries: []string{"$.msg missing"}},

		// contains-all
		{name: "contains-all", spec: checkspec.CheckSpec{Kind: "contains-all", Values: []any{"Hello", "answer", 42}}, correct: true},
		{name: "contains-all missing", spec: checkspec.CheckSpec{Kind: "contains-all", Values: []any{"Hello", "kiwi"}},
			summary: `output lacks 1 of 2 phrases: "kiwi"`, entries: []string{"output missing"}},
		{name: "contains-all threshold met", spec: checkspec.CheckSpec{Kind: "contains-all", Values: []any{"Hello", "answer", "kiwi"}, Threshold: ptr(0.6)}, correct: true},
		{name: "contains-all threshold not met", spec: checkspec.CheckSpec{Kind: "contains-all", Values: []any{"Hello", "pear", "kiwi"}, Threshold: ptr(0.5)},
			summary: `output contains 1 of 3 phrases (0.33, below the threshold 0.5); it lacks "pear", "kiwi"`, entries: []string{"output missing", "output missing"}},
		{name: "contains-all expected_from", spec: checkspec.CheckSpec{Kind: "contains-all", ExpectedFrom: "expected.words"}, correct: true},
		{name: "contains-all expected_from not phrases", spec: checkspec.CheckSpec{Kind: "contains-all", ExpectedFrom: "expected.bad"},
			summary: "expected_from expected.bad: the expected value is an object"},
		{name: "not-contains-all", spec: checkspec.CheckSpec{Kind: "not-contains-all", Values: []any{"Hello", "kiwi"}}, correct: true},
		{name: "not-contains-all fails", spec: checkspec.CheckSpec{Kind: "not-contains-all", Values: []any{"Hello", "answer"}},
			summary: `output contains every one of "Hello", "answer", which it must not`, entries: []string{"output extra", "output extra"}},
		{name: "not-contains-all threshold", spec: checkspec.CheckSpec{Kind: "not-contains-all", Values: []any{"Hello", "kiwi"}, Threshold: ptr(0.5)},
			summary: "reaching the threshold 0.5"},

		// contains-any
		{name: "contains-any", spec: checkspec.CheckSpec{Kind: "contains-any", Values: []any{"kiwi", "answer"}}, correct: true},
		{name: "contains-any none", spec: checkspec.CheckSpec{Kind: "contains-any", Values: []any{"kiwi", "pear"}},
			summary: `output contains none of "kiwi", "pear"`, entries: []string{"output missing"}},
		{name: "contains-any ignore_case", spec: checkspec.CheckSpec{Kind: "contains-any", Values: []any{"kiwi", "WORLD"}, IgnoreCase: true}, correct: true},
		{name: "not-contains-any", spec: checkspec.CheckSpec{Kind: "not-contains-any", Values: []any{"kiwi", "pear"}}, correct: true},
		{name: "not-contains-any fails", spec: checkspec.CheckSpec{Kind: "not-contains-any", Values: []any{"kiwi", "World", "answer"}},
			summary: `output contains "World", "answer", which it must not`, entries: []string{"output extra", "output extra"}},

		// starts-with
		{name: "starts-with", spec: checkspec.CheckSpec{Kind: "starts-with", Value: "Hello,"}, correct: true},
		{name: "starts-with fails", spec: checkspec.CheckSpec{Kind: "starts-with", Value: "Goodbye"},
			summary: `output does not start with "Goodbye" (it starts with "Hello, ")`, entries: []string{"output changed"}},
		{name: "starts-with ignore_case", spec: checkspec.CheckSpec{Kind: "starts-with", Value: "HELLO", IgnoreCase: true}, correct: true},
		{name: "not-starts-with", spec: checkspec.CheckSpec{Kind: "not-starts-with", Value: "Error"}, correct: true},
		{name: "not-starts-with fails", spec: checkspec.CheckSpec{Kind: "not-starts-with", Value: "Hello"},
			summary: `output starts with "Hello", which it must not`, entries: []string{"output extra"}},
		{name: "starts-with header", spec: checkspec.CheckSpec{Kind: "starts-with", Attribute: "headers-content-type", Value: "application/json"}, correct: true},

		// is-json
		{name: "is-json fails", spec: checkspec.CheckSpec{Kind: "is-json"}, summary: "output is not valid JSON", entries: []string{"output mismatch"}},
		{name: "is-json file", spec: checkspec.CheckSpec{Kind: "is-json", Attribute: "files-report.json"}, correct: true},
		{name: "not-is-json", spec: checkspec.CheckSpec{Kind: "not-is-json"}, correct: true},
		{name: "not-is-json fails", spec: checkspec.CheckSpec{Kind: "not-is-json", Attribute: "files-report.json"},
			summary: "files-report.json is valid JSON, which it must not be", entries: []string{"files-report.json mismatch"}},

		// what is not there
		{name: "no expected value", spec: checkspec.CheckSpec{Kind: "contains", Attribute: "files-report.json"}, summary: "no expected value for files-report.json"},
		{name: "attribute not produced", spec: checkspec.CheckSpec{Kind: "contains", Attribute: "files-nope", Value: "x"}, summary: "attribute files-nope was not produced"},
		{name: "json_path not found", spec: checkspec.CheckSpec{Kind: "contains", Attribute: "files-report.json", JSONPath: "$.nope", Value: "x"},
			summary: "$.nope: not found in files-report.json", entries: []string{"$.nope missing"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if errs := Validate(tt.spec); len(errs) > 0 {
				t.Fatalf("spec refused: %v", errs)
			}
			res := Run(tt.spec, actual, expected, Env{})
			if res.Check != tt.spec.Kind {
				t.Errorf("check %q, want %q", res.Check, tt.spec.Kind)
			}
			if res.IsCorrect != tt.correct {
				t.Fatalf("correct = %v, want %v (diff %+v)", res.IsCorrect, tt.correct, res.Diff)
			}
			if tt.correct {
				if res.Diff != nil {
					t.Errorf("diff on a correct attribute: %+v", res.Diff)
				}
				return
			}
			if res.Diff == nil || !strings.Contains(res.Diff.Summary, tt.summary) {
				t.Fatalf("summary %+v, want it to contain %q", res.Diff, tt.summary)
			}
			if tt.entries != nil {
				var got []string
				for _, e := range res.Diff.Entries {
					got = append(got, e.Path+" "+e.Op)
				}
				if strings.Join(got, "|") != strings.Join(tt.entries, "|") {
					t.Errorf("entries %q, want %q", got, tt.entries)
				}
			}
		})
	}
}

func TestLatency(t *testing.T) {
	spec := checkspec.CheckSpec{Kind: "latency", MaxSeconds: ptr(2)}
	res := Run(spec, Actual{}, nil, Env{Elapsed: ptr(1.5)})
	if !res.IsCorrect || res.Attribute != "latency" || res.Actual != 1.5 || res.Expected != 2.0 {
		t.Fatalf("got %+v", res)
	}
	res = Run(spec, Actual{}, nil, Env{Elapsed: ptr(2.5)})
	if res.IsCorrect || res.Diff == nil || res.Diff.Summary != "the case took 2.500s, over the ceiling of 2s" ||
		len(res.Diff.Entries) != 1 || res.Diff.Entries[0].Path != "elapsed_s" || res.Diff.Entries[0].Op != "changed" {
		t.Fatalf("got %+v", res.Diff)
	}
	res = Run(spec, Actual{}, nil, Env{})
	if res.IsCorrect || !strings.Contains(res.Diff.Summary, "elapsed time is not known") {
		t.Fatalf("got %+v", res)
	}
}

func TestValidateAssertions(t *testing.T) {
	tests := []struct {
		spec checkspec.CheckSpec
		want string // substring of the one error; "" for none
	}{
		{checkspec.CheckSpec{Kind: "not-contains", Value: "x"}, ""},
		{checkspec.CheckSpec{Kind: "contains-any", Values: []any{"a", 1, true}}, ""},
		{checkspec.CheckSpec{Kind: "not-is-json"}, ""},
		{checkspec.CheckSpec{Kind: "latency", MaxSeconds: ptr(1)}, ""},
		{checkspec.CheckSpec{Kind: "contains"}, ""}, // from the expected attribute
		{checkspec.CheckSpec{Kind: "not-latency", MaxSeconds: ptr(1)}, `kind: "not-latency": the latency check has no negation`},
		{checkspec.CheckSpec{Kind: "not-text"}, `the text check has no negation`},
		{checkspec.CheckSpec{Kind: "not-frobnicate"}, `unknown check kind "not-frobnicate"`},
		{checkspec.CheckSpec{Kind: "contains", Value: []any{"a", "b"}}, "value: is a list; the contains check takes one text, number or boolean (several phrases go in values)"},
		{checkspec.CheckSpec{Kind: "equals", Value: map[string]any{"a": 1}}, "value: is an object"},
		{checkspec.CheckSpec{Kind: "contains", Value: ""}, "value: is empty"},
		{checkspec.CheckSpec{Kind: "contains-all", Value: "x"}, "value: not an option of the contains-all check"},
		{checkspec.CheckSpec{Kind: "contains-any", Values: []any{"a", map[string]any{}}}, "values[1]: is an object, not a phrase"},
		{checkspec.CheckSpec{Kind: "contains", Value: "a", Values: []any{"b"}}, "not both"},
		{checkspec.CheckSpec{Kind: "contains", Value: "a", ExpectedFrom: "expected.x"}, "expected_from: the contains check takes its expected value from value/values or from expected_from, not both"},
		{checkspec.CheckSpec{Kind: "contains-all", Values: []any{"a"}, Threshold: ptr(1.5)}, "threshold: must be between 0 and 1"},
		{checkspec.CheckSpec{Kind: "contains", Value: "a", Threshold: ptr(0.5)}, "threshold: not an option of the contains check"},
		{checkspec.CheckSpec{Kind: "is-json", Value: "a"}, "value: not an option of the is-json check (it takes none"},
		{checkspec.CheckSpec{Kind: "latency"}, "max_seconds: the latency check needs"},
		{checkspec.CheckSpec{Kind: "latency", MaxSeconds: ptr(0)}, "max_seconds: must be positive"},
		{checkspec.CheckSpec{Kind: "latency", MaxSeconds: ptr(1), Attribute: "output"}, "attribute: the latency check judges the case's elapsed time"},
		{checkspec.CheckSpec{Kind: "text", Value: "x"}, "value: not an option of the text check"},
	}
	for _, tt := range tests {
		errs := Validate(tt.spec)
		switch {
		case tt.want == "" && len(errs) > 0:
			t.Errorf("%+v: unexpected errors %v", tt.spec, errs)
		case tt.want != "" && (len(errs) != 1 || !strings.Contains(errs[0], tt.want)):
			t.Errorf("%+v: errors %q, want one containing %q", tt.spec, errs, tt.want)
		}
	}
}

func TestValidateExpectedAssertions(t *testing.T) {
	expected := map[string]any{"words": []any{"a", "b"}, "obj": map[string]any{"a": 1}}
	if errs := ValidateExpected(checkspec.CheckSpec{Kind: "contains-all", ExpectedFrom: "expected.words"}, expected); len(errs) != 0 {
		t.Fatal(errs)
	}
	errs := ValidateExpected(checkspec.CheckSpec{Kind: "contains-all", ExpectedFrom: "expected.obj"}, expected)
	if len(errs) != 1 || !strings.Contains(errs[0], "expected_from: expected.obj: the expected value is an object") {
		t.Fatal(errs)
	}
	errs = ValidateExpected(checkspec.CheckSpec{Kind: "not-contains"}, expected)
	if len(errs) != 1 || !strings.Contains(errs[0], "the case has no expected output") {
		t.Fatal(errs)
	}
	if errs := ValidateExpected(checkspec.CheckSpec{Kind: "contains", Value: "x"}, nil); len(errs) != 0 {
		t.Fatal(errs)
	}
}
