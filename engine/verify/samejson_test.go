package verify

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/wasmeval/wasmeval/engine/checkspec"
)

// fullJSONCheck is the JSON check without the same-tokens shortcut.
func fullJSONCheck(want, got string, spec checkspec.CheckSpec) AttributeResult {
	res := AttributeResult{Attribute: "output", Weight: 1}
	w, g, ok := jsonOperands(&res, Actual{Output: got}, map[string]any{"output": want}, Env{}, func(s string) (any, error) { return ParseJSON(s) })
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
	// Escapes and non-ASCII text: raw text is kept only when it is valid.
	{`{"k\u00e9":"\t\"é\"\/"}`, `{"k\u00e9": "\t\"é\"\/"}`, true},
	{`["\ud800"]`, `["\ud800"]`, true},
	{`["\x"]`, `["\x"]`, false},
	{`["\u12"]`, `["\u12"]`, false},
	{"[\"\xff\"]", "[\"\xff\"]", true},
}

// decodeRaw turns the json.RawMessage values RawJSON leaves into what the
// reader of a verdict decodes from them.
func decodeRaw(t testing.TB, res AttributeResult) AttributeResult {
	for _, v := range []*any{&res.Actual, &res.Expected} {
		if raw, ok := (*v).(json.RawMessage); ok {
			parsed, err := ParseJSON(string(raw))
			if err != nil {
				t.Fatalf("raw value %q does not parse: %v", raw, err)
			}
			*v = parsed
		}
	}
	return res
}

// sameVerdict runs the check with the shortcut, with and without RawJSON,
// and holds both to the full check.
func sameVerdict(t testing.TB, want, got string, spec checkspec.CheckSpec) {
	full := fullJSONCheck(want, got, spec)
	for _, env := range []Env{{}, {RawJSON: true}} {
		fast := Run(spec, Actual{Output: got}, map[string]any{"output": want}, env)
		full.Check = fast.Check
		if !reflect.DeepEqual(decodeRaw(t, fast), full) {
			t.Errorf("%q vs %q (raw %v):\nwith shortcut %+v\nfull check    %+v", want, got, env.RawJSON, fast, full)
		}
	}
}

func TestSameJSONTextAgreesWithFullCheck(t *testing.T) {
	spec := checkspec.CheckSpec{Kind: "json", Attribute: "output", Tolerance: 0.01}
	for _, tc := range sameJSONPairs {
		res := AttributeResult{Attribute: "output", Weight: 1}
		took := sameJSONText(&res, Actual{Output: tc.got}, map[string]any{"output": tc.want}, Env{})
		if took != tc.shortcut {
			t.Errorf("%q vs %q: shortcut taken %v, want %v", tc.want, tc.got, took, tc.shortcut)
		}
		sameVerdict(t, tc.want, tc.got, spec)
	}
}

func TestRawJSONKeepsValidText(t *testing.T) {
	spec := checkspec.CheckSpec{Kind: "json", Attribute: "output"}
	text := `{"b": [1, 2.50], "a": "x\"y"}`
	res := Run(spec, Actual{Output: text}, map[string]any{"output": text}, Env{RawJSON: true})
	if raw, ok := res.Actual.(json.RawMessage); !ok || string(raw) != text || !res.IsCorrect {
		t.Fatalf("the output's own text is the value: %#v", res)
	}
	res = Run(spec, Actual{Output: "[\"\xff\"]"}, map[string]any{"output": "[\"\xff\"]"}, Env{RawJSON: true})
	if _, ok := res.Actual.(json.RawMessage); ok || !res.IsCorrect {
		t.Fatalf("invalid UTF-8 is decoded (the bytes are replaced), not kept: %#v", res)
	}
}

// FuzzSameJSONText holds the shortcut to the full check's verdict.
func FuzzSameJSONText(f *testing.F) {
	for _, tc := range sameJSONPairs {
		f.Add(tc.want, tc.got)
	}
	spec := checkspec.CheckSpec{Kind: "json", Attribute: "output"}
	f.Fuzz(func(t *testing.T, want, got string) {
		sameVerdict(t, want, got, spec)
	})
}
