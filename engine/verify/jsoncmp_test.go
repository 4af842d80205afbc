package verify

import (
	"encoding/json"
	"reflect"
	"testing"
)

func mustJSON(t *testing.T, s string) any {
	t.Helper()
	v, err := ParseJSON(s)
	if err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	return v
}

func TestCompareJSON(t *testing.T) {
	tests := []struct {
		name      string
		want, got string
		opts      JSONOptions
		entries   []DiffEntry
	}{
		{name: "equal", want: `{"a":1,"b":[1,2]}`, got: `{"b":[1,2],"a":1}`},
		{name: "int and float are the same number", want: `{"n":1}`, got: `{"n":1.0}`},
		{name: "exponent form", want: `100`, got: `1e2`},
		{name: "changed nested", want: `{"a":{"b":[1,2,3]}}`, got: `{"a":{"b":[1,5,3]}}`,
			entries: []DiffEntry{{Path: "$.a.b[1]", Op: "changed", Expected: json.Number("2"), Actual: json.Number("5")}}},
		{name: "missing and extra keys", want: `{"a":1,"b":2}`, got: `{"a":1,"c":3}`,
			entries: []DiffEntry{{Path: "$.b", Op: "missing", Expected: json.Number("2")}, {Path: "$.c", Op: "extra", Actual: json.Number("3")}}},
		{name: "quoted key", want: `{"total value":1}`, got: `{"total value":2}`,
			entries: []DiffEntry{{Path: `$["total value"]`, Op: "changed", Expected: json.Number("1"), Actual: json.Number("2")}}},
		{name: "type mismatch", want: `{"a":"1"}`, got: `{"a":1}`,
			entries: []DiffEntry{{Path: "$.a", Op: "type", Expected: "1", Actual: json.Number("1")}}},
		{name: "null vs missing value", want: `{"a":null}`, got: `{"a":false}`,
			entries: []DiffEntry{{Path: "$.a", Op: "type", Expected: nil, Actual: false}}},
		{name: "list too short", want: `[1,2,3]`, got: `[1]`,
			entries: []DiffEntry{{Path: "$[1]", Op: "missing", Expected: json.Number("2")}, {Path: "$[2]", Op: "missing", Expected: json.Number("3")}}},
		{name: "absolute tolerance", want: `{"x":23.47}`, got: `{"x":23.474}`, opts: JSONOptions{Tolerance: 0.005}},
		{name: "outside tolerance", want: `{"x":23.47}`, got: `{"x":23.48}`, opts: JSONOptions{Tolerance: 0.005},
			entries: []DiffEntry{{Path: "$.x", Op: "changed", Expected: json.Number("23.47"), Actual: json.Number("23.48")}}},
		{name: "relative tolerance", want: `1000000`, got: `1000900`, opts: JSONOptions{RelTolerance: 0.001}},
		{name: "big integers compare exactly", want: `9007199254740993`, got: `9007199254740992`,
			entries: []DiffEntry{{Path: "$", Op: "changed", Expected: json.Number("9007199254740993"), Actual: json.Number("9007199254740992")}}},
		{name: "ignored keys at any depth", want: `{"id":1,"x":{"ts":5,"v":1}}`, got: `{"id":2,"x":{"ts":9,"v":1}}`,
			opts: JSONOptions{IgnoreKeys: []string{"id", "ts"}}},
		{name: "unordered lists", want: `{"l":[1,2,{"a":[3,4]}]}`, got: `{"l":[{"a":[4,3]},2,1]}`, opts: JSONOptions{UnorderedLists: true}},
		{name: "unordered multiset counts duplicates", want: `[1,1,2]`, got: `[1,2,2]`, opts: JSONOptions{UnorderedLists: true},
			entries: []DiffEntry{{Path: "$[1]", Op: "missing", Expected: json.Number("1")}, {Path: "$[2]", Op: "extra", Actual: json.Number("2")}}},
		{name: "ordered list order matters", want: `[1,2]`, got: `[2,1]`,
			entries: []DiffEntry{{Path: "$[0]", Op: "changed", Expected: json.Number("1"), Actual: json.Number("2")}, {Path: "$[1]", Op: "changed", Expected: json.Number("2"), Actual: json.Number("1")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries, truncated := CompareJSON(mustJSON(t, tt.want), mustJSON(t, tt.got), tt.opts)
			if truncated {
				t.Error("unexpected truncation")
			}
			if !reflect.DeepEqual(entries, tt.entries) {
				t.Errorf("entries:\n got %#v\nwant %#v", entries, tt.entries)
			}
		})
	}
}

func TestCompareJSONCapsEntries(t *testing.T) {
	want := make([]any, 200)
	got := make([]any, 200)
	for i := range want {
		want[i], got[i] = json.Number("1"), json.Number("2")
	}
	entries, truncated := CompareJSON(want, got, JSONOptions{})
	if len(entries) != MaxDiffEntries || !truncated {
		t.Fatalf("got %d entries truncated=%v, want %d and truncated", len(entries), truncated, MaxDiffEntries)
	}
}

func TestParseJSONRejectsTrailingData(t *testing.T) {
	if _, err := ParseJSON(`{"a":1} {"b":2}`); err == nil {
		t.Fatal("two documents must not parse as one")
	}
	if _, err := ParseJSON("  {\"a\":1}\n"); err != nil {
		t.Fatalf("surrounding whitespace is fine: %v", err)
	}
}

func TestNormalizeJSONFromYAMLTypes(t *testing.T) {
	v, err := NormalizeJSON(map[string]any{"n": 3, "f": 2.5, "l": []any{1, "x"}})
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := CompareJSON(v, mustJSON(t, `{"n":3.0,"f":2.5,"l":[1,"x"]}`), JSONOptions{})
	if len(entries) != 0 {
		t.Fatalf("YAML-typed value should equal its JSON form: %+v", entries)
	}
}

// Numbers that are integers by value compare exactly however they are
// written; others compare as float64s; tolerances apply to the exact
// difference of two integers.
func TestNumbersCompareByValue(t *testing.T) {
	n := func(s string) any { return json.Number(s) }
	for _, tc := range []struct {
		want, got string
		opts      JSONOptions
		equal     bool
	}{
		{"12345678901234567890123", "12345678901234567890124", JSONOptions{}, false},
		{"1.2345678901234567890123e22", "12345678901234567890124", JSONOptions{}, false},
		{"12345678901234567890123", "12345678901234567890124.0", JSONOptions{}, false},
		{"9007199254740992", "9007199254740993.0", JSONOptions{}, false},
		{"1000000000000000000000000000001", "1e30", JSONOptions{}, false},
		{"1.2345678901234567890124e22", "12345678901234567890124.000", JSONOptions{}, true},
		{"1", "1.0", JSONOptions{}, true},
		{"100", "1E+2", JSONOptions{}, true},
		{"0", "-0.0", JSONOptions{}, true},
		{"0.1", "0.10000000000000001", JSONOptions{}, true}, // one float64
		{"187.5", "187.0", JSONOptions{}, false},
		{"1.2345678901234567890123e22", "12345678901234567890124", JSONOptions{Tolerance: 0.5}, false},
		{"1.2345678901234567890123e22", "12345678901234567890124", JSONOptions{Tolerance: 1}, true},
		{"1e999", "1e999", JSONOptions{}, true},
		{"1e999", "2e999", JSONOptions{}, false},
		{"1e1000000000", "1e1000000000", JSONOptions{}, true},
	} {
		entries, _ := CompareJSON(n(tc.want), n(tc.got), tc.opts)
		if (len(entries) == 0) != tc.equal {
			t.Errorf("%s against %s (%+v): equal %v, want %v", tc.want, tc.got, tc.opts, len(entries) == 0, tc.equal)
		}
	}
}
