package wasmeval

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// The canonical encoding is defined as encoding/json's output for the same
// value; check that on documents full of escapes and number forms.
func TestEncodeMatchesEncodingJSON(t *testing.T) {
	docs := []string{
		`{"z":1,"a":[1.0,-0,1e300,1E-7,12345678901234567890123],"é":"ü","A":null,"html":"<a href='x'>&</a>","ctl":"\u0000\u001f\u007f","b":true,"":"e","😀":"\ud83d\ude00","ﬀ":1,"～":3,"ls":"\u2028\u2029","lone":"\ud800"}`,
		`[[],{},"",0,-1.5e-10,"tab\tnl\nbs\\q\"","\b\f\r"]`,
	}
	for _, d := range docs {
		v, err := ParseJSON([]byte(d))
		if err != nil {
			t.Fatal(err)
		}
		got, err := EncodeJSON(v)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(v)
		if string(got) != string(want) {
			t.Errorf("encode %s\n got %s\nwant %s", d, got, want)
		}
	}
	for _, f := range []float64{0.1 + 0.2, 1e21, 1e-7, 123, 1.2345678901234569e+23, 1e-6, 5e-324, math.Copysign(0, -1), -2.5} {
		got, _ := EncodeJSON(f)
		want, _ := json.Marshal(f)
		if string(got) != string(want) {
			t.Errorf("float %v: got %s want %s", f, got, want)
		}
	}
	if _, err := EncodeJSON(math.Inf(1)); err == nil || err.Error() != "cannot encode a non-finite number as JSON" {
		t.Errorf("Inf: %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1,}`:                "invalid JSON at byte 7: unexpected byte 0x7d",
		`[1,2`:                    "invalid JSON at byte 4: unexpected end of input",
		`{"a":01}`:                "invalid JSON at byte 6: unexpected byte 0x31",
		`{"a":-}`:                 "invalid JSON at byte 5: invalid number",
		`"\x"`:                    "invalid JSON at byte 1: invalid escape",
		"\"a\x01\"":               "invalid JSON at byte 2: control character in string",
		"\"caf\xe9\"":             "invalid JSON at byte 4: invalid UTF-8",
		`1 2`:                     "invalid JSON at byte 2: unexpected data after the value",
		``:                        "invalid JSON at byte 0: unexpected end of input",
		`tru`:                     "invalid JSON at byte 3: unexpected end of input",
		strings.Repeat("[", 1001): "invalid JSON at byte 1000: nesting deeper than 1000",
		"[1,] \"\xff\"":           "invalid JSON at byte 6: invalid UTF-8",
		"\"a\\\"b\xff\"":          "invalid JSON at byte 5: invalid UTF-8",
	} {
		_, err := ParseJSON([]byte(in))
		if err == nil || err.Error() != want {
			t.Errorf("%q: got %v, want %s", in, err, want)
		}
	}
}

// The SDK's diff must be the engine's json check diff, entry for entry and
// word for word.
func TestCompareMatchesEngine(t *testing.T) {
	pairs := [][2]string{
		{`{"total":23.47,"name":"café","tags":["a","b"],"n":1,"nested":{"x":[1,2]}}`, `{"total":21,"tags":["a"],"n":"1","nested":{"x":[1,2,3]},"extra key":true}`},
		{`[1,2,3]`, `[1,2,3]`},
		{`{"id":9007199254740993}`, `{"id":9007199254740992}`},
		{`{"s":"` + strings.Repeat("ü", 40) + `"}`, `{"s":"x\ny\u200b"}`},
		{`[` + strings.Repeat("1,", 59) + `1]`, `[` + strings.Repeat("2,", 59) + `2]`},
		{`{"a":null}`, `{"a":false,"b":null}`},
		{`{"a":0.3}`, `{"a":0.30000000000000004}`},
	}
	for _, tol := range []float64{0, 1e-9} {
		for _, p := range pairs {
			spec := problem.CheckSpec{Kind: "json", Attribute: "output", Tolerance: tol}
			res := verify.Run(spec, verify.Actual{Output: p[1]}, map[string]any{"output": p[0]}, verify.Env{})
			want, _ := ParseJSON([]byte(p[0]))
			got, _ := ParseJSON([]byte(p[1]))
			d := CompareJSON(want, got, JSONOptions{Tolerance: tol})
			if (d == nil) != res.IsCorrect {
				t.Fatalf("%s vs %s: sdk diff %v, engine correct %v", p[0], p[1], d, res.IsCorrect)
			}
			if d == nil {
				continue
			}
			a, _ := json.Marshal(d)
			b, _ := json.Marshal(res.Diff)
			if string(a) != string(b) {
				t.Errorf("%s vs %s:\n sdk    %s\n engine %s", p[0], p[1], a, b)
			}
		}
	}
}

func TestDecodeNamesTheField(t *testing.T) {
	_, err := HandleVerify([]byte(`{"case":{"id":"x","env":{"A":"1","B":2}}}`), func(*VerifyInput) (*VerifyOutput, error) { return nil, nil })
	if err == nil || err.Error() != "invalid input: $.case.env.B is a number, expected a string" {
		t.Fatalf("got %v", err)
	}
	out, err := HandleTest([]byte(`{"result":{"task_result":"42"}}`), func(in *TestInput) (*TestOutput, error) {
		a := FindAnswer(&in.Result)
		return &TestOutput{Passed: a.Value == "42", Feedback: "é <ok>"}, nil
	})
	if err != nil || string(out) != `{"feedback":"é \u003cok\u003e","passed":true}` {
		t.Fatalf("got %s %v", out, err)
	}
}

// An object that appears twice (a passing verdict's actual and expected) is
// encoded once and copied; the bytes are those of two separate objects.
func TestEncodeRepeatedObject(t *testing.T) {
	shared := map[string]any{"b": []any{json.Number("1"), map[string]any{"z": "x", "a": nil}}, "a": true}
	twin := map[string]any{"b": []any{json.Number("1"), map[string]any{"z": "x", "a": nil}}, "a": true}
	got, err := EncodeJSON(map[string]any{"actual": shared, "expected": shared, "other": map[string]any{"k": shared}})
	if err != nil {
		t.Fatal(err)
	}
	want, err := EncodeJSON(map[string]any{"actual": twin, "expected": map[string]any{"b": []any{json.Number("1"), map[string]any{"z": "x", "a": nil}}, "a": true},
		"other": map[string]any{"k": map[string]any{"a": true, "b": []any{json.Number("1"), map[string]any{"a": nil, "z": "x"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) || !strings.Contains(string(got), `"actual":{"a":true,"b":[1,{"a":null,"z":"x"}]}`) {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestEncodeRawMessage(t *testing.T) {
	raw := json.RawMessage(`{"b": [1, 2.50], "a": "x"}`)
	got, err := EncodeJSON(map[string]any{"actual": raw, "expected": raw, "none": json.RawMessage(nil)})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"actual":{"b": [1, 2.50], "a": "x"},"expected":{"b": [1, 2.50], "a": "x"},"none":null}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// FuzzParseJSON holds the parser to encoding/json (with UseNumber): the same
// documents accepted, the same values.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e3,"x\"y\u00e9\ud83d\ude00"],"b":null}`, `"a\\b\/c\n"`, `["\ud800x"]`, "\"caf\xc3\xa9\"",
		`["` + strings.Repeat(`a\"b`, 30) + `","` + strings.Repeat(`a\"b`, 30) + `","` + strings.Repeat(`a\"b`, 30) + `c"]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.Count(s, "[")+strings.Count(s, "{") > MaxDepth {
			return // the SDK nests less deeply than encoding/json
		}
		got, err := ParseJSON([]byte(s))
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		var want any
		werr := d.Decode(&want)
		if werr == nil && strings.TrimLeft(s[d.InputOffset():], " \t\r\n") != "" {
			werr = errors.New("trailing data")
		}
		if werr == nil && !utf8.ValidString(s) {
			werr = errors.New("invalid UTF-8") // the SDK refuses what encoding/json would replace
		}
		if (err == nil) != (werr == nil) {
			t.Fatalf("%q: ParseJSON error %v, encoding/json error %v", s, err, werr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: got %#v, want %#v", s, got, want)
		}
	})
}

func TestParseRepeatedLongStrings(t *testing.T) {
	long := `{\"sku\":\"SKU-001\",\"name\":\"caf\u00e9 \\\\ item\"}` + strings.Repeat(" pad", 20)
	doc := `["` + long + `","` + long + `","` + long + `x","short"]`
	got, err := ParseJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var want any
	d := json.NewDecoder(strings.NewReader(doc))
	d.UseNumber()
	if err := d.Decode(&want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func TestEncodeVerifyOutputMatchesItsMap(t *testing.T) {
	shared := map[string]any{"b": []any{json.Number("1")}, "a": "x"}
	for _, out := range []VerifyOutput{
		{},
		{Error: "bad config"},
		{Unscored: "no reference <output> ✓"},
		{Error: "bad config", Unscored: "and no reference"},
		{Attributes: []Attribute{{Attribute: "output", Actual: shared, Expected: shared, IsCorrect: true, Weight: 1}}},
		{Attributes: []Attribute{
			{Attribute: "status_code", Actual: 2, Expected: json.Number("0"), Weight: 0.5,
				Diff: &Diff{Summary: "expected 0, got 2", Unified: "-0\n+2\n", Truncated: true,
					Entries: []DiffEntry{{Path: "$", Op: "changed", Expected: json.Number("0"), Actual: 2}, {Path: "$.x", Op: "missing"}}}},
			{Attribute: "raw", Actual: json.RawMessage(`{"z": 1, "a": 2}`), Expected: nil, IsCorrect: true, Weight: 1},
		}, Error: "also this"},
		{Attributes: []Attribute{{Attribute: "status_code", Actual: 0, Expected: json.Number("0"), IsCorrect: true, Weight: 1}},
			Unscored: "no expected output"},
	} {
		got, err := EncodeJSON(&out)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := toValue(out)
		want, err := EncodeJSON(m)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("direct  %s\nvia map %s", got, want)
		}
	}
}

// An input envelope's string values may be raw strings ('LEN:BYTES); a
// JSON document parsed for its own sake may not hold one, and a raw
// string that is not one (short, its length spelt wrong, ending inside a
// character, not UTF-8) fails the envelope.
func TestParseEnvelopeRawStrings(t *testing.T) {
	out := `{"a": [1, "x\"y"]}` + "\n"
	in := `{"actual":{"output":'` + fmt.Sprint(len(out)) + `:` + out + `,"stderr":'0:},"list":['1:"]}`
	v, err := parseEnvelope([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"actual": map[string]any{"output": out, "stderr": ""}, "list": []any{`"`}}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("parsed %#v, want %#v", v, want)
	}
	if end, ok := skipValue([]byte(in), 0); !ok || end != len(in) {
		t.Errorf("skipValue = %d, %v, want %d, true", end, ok, len(in))
	}
	if _, err := ParseJSON([]byte(in)); err == nil {
		t.Error("ParseJSON took a raw string")
	}
	for _, bad := range []string{`{"a":'5:abc}`, `{"a":'03:abc}`, `{"a":'1:` + "é}", `{"a":'1:` + "\xff}", `{"a":'x}`} {
		if _, err := parseEnvelope([]byte(bad)); err == nil {
			t.Errorf("parseEnvelope(%q) took it", bad)
		}
	}
}
