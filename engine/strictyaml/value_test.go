package strictyaml

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func valueOf(t *testing.T, src string) (any, error) {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	return JSONValue(&doc)
}

// Numbers keep their text; YAML's other number forms are written as JSON
// writes them; merges and aliases are YAML's.
func TestJSONValue(t *testing.T) {
	got, err := valueOf(t, `
id: 12345678901234567890123
total: 187.0
exp: 1E+2
neg: -0.50
hex: 0x1F
oct: 0o17
half: .5
inf: .inf
text: "187.0"
plus: +12345678901234567890123
grouped: 12_345_678_901_234_567_890_123.0
huge: 1e999
quoted: "1e999"
tagged: !!str 1e3
yes: true
none: null
~: null key
0x1F: hex key
day: 2024-01-01
stamp: 2024-01-01T10:00:00+02:00
1: one
base: &base {a: 1, b: 2}
merged:
  <<: *base
  b: 3
list: [*base, 2.50]
`)
	if err != nil {
		t.Fatal(err)
	}
	n := func(s string) json.Number { return json.Number(s) }
	want := map[string]any{
		"id": n("12345678901234567890123"), "total": n("187.0"), "exp": n("1E+2"), "neg": n("-0.50"),
		"hex": n("31"), "oct": n("15"), "half": n("0.5"), "inf": math.Inf(1), "text": "187.0",
		"plus": n("12345678901234567890123"), "grouped": n("12345678901234567890123.0"), "huge": n("1e999"),
		"quoted": "1e999", "tagged": "1e3", "yes": true, "none": nil, "~": "null key", "0x1F": "hex key", "day": "2024-01-01", "stamp": "2024-01-01T10:00:00+02:00",
		"1": "one", "base": map[string]any{"a": n("1"), "b": n("2")}, "merged": map[string]any{"a": n("1"), "b": n("3")},
		"list": []any{map[string]any{"a": n("1"), "b": n("2")}, n("2.50")},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %#v\nwant %#v", got, want)
	}
}

// A few lines that alias each other ten times at each of nine levels
// would expand into a billion values: refused, quickly, as yaml.v3 refuses
// them when it decodes.
func TestJSONValueRefusesAliasBombs(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 10; i++ {
		prev := "*a" + string(rune('0'+i-1))
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(prev)
		}
		b.WriteString("]\n")
	}
	_, err := valueOf(t, b.String())
	if err == nil || !strings.Contains(err.Error(), "too many values") {
		t.Fatalf("got %v, want the aliases refused", err)
	}
}

func TestJSONValueRefusesDuplicateKeys(t *testing.T) {
	_, err := valueOf(t, "a: 1\nb: 2\na: 3\n")
	if err == nil || !strings.Contains(err.Error(), `line 3: mapping key "a" already defined`) {
		t.Fatalf("got %v", err)
	}
}

// NodeOf writes a json.Number as a number, which decodes back to itself.
func TestNodeOfRoundTrips(t *testing.T) {
	v := map[string]any{"n": json.Number("187.0"), "i": json.Number("12345678901234567890123"), "s": "5", "l": []any{json.Number("1"), true, nil}}
	node, err := NodeOf(v)
	if err != nil {
		t.Fatal(err)
	}
	back, err := JSONValue(node)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, v) {
		t.Errorf("got %#v, want %#v", back, v)
	}
	var timeout float64
	if err := node.Content[5].Decode(&timeout); err != nil || timeout != 187 {
		t.Errorf("a number decodes into a float64 field: %v %v", timeout, err)
	}
}

// A file that holds one value (an expected_output.yaml) gets the checks
// a case file gets, each error with its line.
func TestDocumentValue(t *testing.T) {
	for text, want := range map[string]string{
		"a: 1\nb: &o {k: *o}\n": "2: the alias *o is inside the value &o names",
		"a: 1\nb: *nope\n":      "2: malformed YAML: unknown anchor 'nope' referenced",
		"a: 1\na: 2\n":          `2: mapping key "a" already defined`,
		"":                      "0: <nil>",
	} {
		_, line, err := DocumentValue([]byte(text))
		if got := fmt.Sprintf("%d: %v", line, err); !strings.HasPrefix(got, want) {
			t.Errorf("%q: got %s, want %s", text, got, want)
		}
	}
}
