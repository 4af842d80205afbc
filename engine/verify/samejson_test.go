package verify

import (
	"reflect"
	"testing"

	"github.com/wasmeval/wasmeval/engine/checkspec"
)

// fullJSONCheck is the JSON check without the same-tokens shortcut.
func fullJSONCheck(want, got string, spec checkspec.CheckSpec) AttributeResult {
	res := AttributeResult{Attribute: "output", Weight: 1}
	w, g, ok := jsonOperands(&res, Actual{Output: got}, map[string]any{"output": want}, func(s string) (any, error) { return ParseJSON(s) })
	if ok {
		finishJSON(&res, w, g, jsonOptions(spec))
	}
	return res
}

var sameJSONPairs = []struct {
	want, got string
	shortcut  bool // whether the shortcut decides the pair
}{
	{`{"a":1,"b":[true,null,"x y"]}`, `{"a":1,"b":[true,null,"x y"]}`, true},
	{`{"a": 1, "b": [true, null]}`, "{\"a\":1,\n\t\"b\":[true,null]}\n", true},
	{`  [1, 2.50, -3e2]  `, `[1,2.50,-3e2]`, true},
	{`"a \"quoted\" word"`, ` "a \"quoted\" word" `, true},
	{`["a\\", 1]`, `["a\\",1]`, true},
	// Different tokens: the full check decides (equal values, or not).
	{`{"a":1,"b":2}`, `{"b":2,"a":1}`, false},
	{`[1.0]`, `[1]`, false},
	{`["\u0041"]`, `["A"]`, false},
	{`[1,2]`, `[1,3]`, false},
	// Whitespace inside a word or number never compares equal.
	{`[1 2]`, `[12]`, false},
	{`[12]`, `[1 2]`, false},
	{`[tr ue]`, `[true]`, false},
	// Invalid JSON on both sides: the full check reports it.
	{`{"a":}`, `{"a":}`, false},
	{`[1,]`, `[1, ]`, false},
	{`{"a":1} trailing`, `{"a":1} trailing`, false},
	{``, ``, false},
	// Strings keep their whitespace.
	{`["a b"]`, `["ab"]`, false},
	{`["a b"]`, `["a  b"]`, false},
}

func TestSameJSONTextAgreesWithFullCheck(t *testing.T) {
	spec := checkspec.CheckSpec{Kind: "json", Attribute: "output", Tolerance: 0.01}
	for _, tc := range sameJSONPairs {
		res := AttributeResult{Attribute: "output", Weight: 1}
		took := sameJSONText(&res, Actual{Output: tc.got}, map[string]any{"output": tc.want})
		if took != tc.shortcut {
			t.Errorf("%q vs %q: shortcut taken %v, want %v", tc.want, tc.got, took, tc.shortcut)
		}
		fast := Run(spec, Actual{Output: tc.got}, map[string]any{"output": tc.want}, Env{})
		full := fullJSONCheck(tc.want, tc.got, spec)
		full.Check = fast.Check
		if !reflect.DeepEqual(fast, full) {
			t.Errorf("%q vs %q:\nwith shortcut %+v\nfull check    %+v", tc.want, tc.got, fast, full)
		}
	}
}

// FuzzSameJSONText holds the shortcut to the full check's verdict.
func FuzzSameJSONText(f *testing.F) {
	for _, tc := range sameJSONPairs {
		f.Add(tc.want, tc.got)
	}
	spec := checkspec.CheckSpec{Kind: "json", Attribute: "output"}
	f.Fuzz(func(t *testing.T, want, got string) {
		fast := Run(spec, Actual{Output: got}, map[string]any{"output": want}, Env{})
		full := fullJSONCheck(want, got, spec)
		full.Check = fast.Check
		if !reflect.DeepEqual(fast, full) {
			t.Fatalf("%q vs %q:\nwith shortcut %+v\nfull check    %+v", want, got, fast, full)
		}
	})
}
