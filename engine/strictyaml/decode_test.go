package strictyaml

import (
	"fmt"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/engine/diag"
)

// An integer key given a fraction is refused at its line; yaml.v3 alone
// would have stored 1.5 as 1. Integral floats keep their exact value.
func TestIntegersAreNotTruncated(t *testing.T) {
	type doc struct {
		Version *int  `yaml:"version"`
		Cap     int64 `yaml:"cap"`
	}
	for text, want := range map[string]string{
		"version: 1.5\n":          `f.yaml:1: version: expected an integer, got "1.5"`,
		"cap: -0.25\n":            `f.yaml:1: cap: expected an integer, got "-0.25"`,
		"version: .inf\n":         `f.yaml:1: version: expected an integer, got ".inf"`,
		"version: .nan\n":         `f.yaml:1: version: expected an integer, got ".nan"`,
		"\nversion: zero\n":       `f.yaml:2: version: expected an integer, got "zero"`,
		"version: \"2\"\n":        `f.yaml:1: version: expected an integer, got "2"`,
		"version: 1.0\n":          "",
		"version: 1e3\n":          "",
		"version: 7\ncap: 0x10\n": "",
	} {
		var errs diag.List
		node, ok := ParseBytes("f.yaml", []byte(text), &errs)
		if !ok {
			t.Fatalf("%q: %v", text, errs)
		}
		var d doc
		(&Decoder{File: "f.yaml", Errs: &errs}).Decode(node, "", &d)
		got := ""
		if err := errs.Err(); err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("%q: got %q, want %q", text, got, want)
		}
		if want == "" && d.Version != nil && *d.Version != 1 && *d.Version != 1000 && *d.Version != 7 {
			t.Errorf("%q: version %d", text, *d.Version)
		}
	}
}

// The version a problem records is the one written.
func TestIntegralFloatKeepsItsValue(t *testing.T) {
	var errs diag.List
	node, _ := ParseBytes("f.yaml", []byte("version: 3.0\n"), &errs)
	var d struct {
		Version int `yaml:"version"`
	}
	(&Decoder{File: "f.yaml", Errs: &errs}).Decode(node, "", &d)
	if len(errs) > 0 || d.Version != 3 {
		t.Fatalf("version %d, %v", d.Version, errs)
	}
}

// Pairs resolves aliases and applies merges where the << is written,
// the mapping's own keys winning and the first merged mapping after them.
func TestPairs(t *testing.T) {
	var errs diag.List
	node, ok := ParseBytes("f.yaml", []byte("base: &b {x: 1, y: 2}\nother: &o {y: 3, z: 4}\nk: &k key\nm: {a: 0, <<: [*b, *o], *k : v, x: 9}\n"), &errs)
	if !ok {
		t.Fatal(errs)
	}
	m := MappingPairs(node)[3][1]
	var got []string
	for _, kv := range MappingPairs(m) {
		got = append(got, kv[0].Value+"="+kv[1].Value)
	}
	if want := "a=0 y=2 z=4 key=v x=9"; strings.Join(got, " ") != want {
		t.Errorf("pairs %v, want %s", got, want)
	}
}

// Merges are worked out once per mapping merged: layers of mappings that
// each merge the one before (each layer's keys its own) and mappings that
// merge the one before twice over are read in what they hold, and only
// a mapping named by very many merges passes MaxMerged.
func TestMergesCostWhatTheyHold(t *testing.T) {
	parse := func(t *testing.T, doc string) *yaml.Node {
		t.Helper()
		var errs diag.List
		node, ok := ParseBytes("f.yaml", []byte(doc), &errs)
		if !ok {
			t.Fatal(errs.Err())
		}
		return node
	}
	last := func(node *yaml.Node) *yaml.Node {
		own := MappingPairs(node)
		return own[len(own)-1][1]
	}
	t.Run("layers", func(t *testing.T) {
		var b strings.Builder
		for l := 0; l < 4; l++ {
			fmt.Fprintf(&b, "l%d: &l%d {", l, l)
			if l > 0 {
				fmt.Fprintf(&b, "<<: *l%d, ", l-1)
			}
			for k := 0; k < 3000; k++ {
				fmt.Fprintf(&b, "k%d_%d: %d, ", l, k, k)
			}
			b.WriteString("end: 0}\n")
		}
		got, err := Pairs(last(parse(t, b.String())))
		if err != nil || len(got) != 4*3000+1 {
			t.Fatalf("Pairs of four layers of 3,000 keys: %d pairs, %v; want %d", len(got), err, 4*3000+1)
		}
	})
	t.Run("twice-over", func(t *testing.T) {
		doc := "a: &a {k0: 1, k1: 1, k2: 1}\n"
		prev := "a"
		for i := 0; i < 13; i++ { // naming each layer again would be 2^13 merges of the first
			doc += fmt.Sprintf("l%d: &l%d {<<: [*%s, *%s], own%d: 1}\n", i, i, prev, prev, i)
			prev = fmt.Sprintf("l%d", i)
		}
		got, err := Pairs(last(parse(t, doc)))
		if err != nil || len(got) != 3+13 {
			t.Fatalf("Pairs: %d pairs, %v; want %d", len(got), err, 3+13)
		}
	})
	t.Run("named-by-many", func(t *testing.T) {
		doc := "a: &a {k0: 1, k1: 1, k2: 1, k3: 1, k4: 1, k5: 1, k6: 1, k7: 1, k8: 1, k9: 1}\nm:\n  <<: [" +
			strings.Repeat("*a, ", MaxMerged/10) + "*a]\n"
		_, err := Pairs(last(parse(t, doc)))
		if want := fmt.Sprintf("line 3: the merges (<<) bring more than %d keys", MaxMerged); err == nil || err.Error() != want {
			t.Fatalf("Pairs = %v, want %q", err, want)
		}
	})
}

// A tree that holds a mapping merging itself (which ParseBytes refuses
// before anything walks it) is an error for Pairs, not endless recursion.
func TestPairsRefuseAMappingMergingItself(t *testing.T) {
	m := &yaml.Node{Kind: yaml.MappingNode, Line: 1}
	m.Content = []*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!merge", Value: "<<", Line: 1}, {Kind: yaml.AliasNode, Alias: m, Line: 1}}
	if _, err := Pairs(m); err == nil || !strings.Contains(err.Error(), "cannot merge itself") {
		t.Errorf("Pairs = %v, want a refusal", err)
	}
	var errs diag.List
	if _, ok := ParseBytes("f.yaml", []byte("a: &a [1, {b: *a}]\n"), &errs); ok || !strings.Contains(errs.Err().Error(), "f.yaml:1: the alias *a is inside the value &a names") {
		t.Errorf("ParseBytes of a value that contains itself: %v", errs.Err())
	}
}

// An alias of an anchor that is not defined above it is reported at the
// line that uses it; yaml.v3's message names none.
func TestUnknownAnchorHasALine(t *testing.T) {
	var errs diag.List
	if _, ok := ParseBytes("f.yaml", []byte("a: 1\nb: {<<: *nope}\nc: &nope {x: 1}\n"), &errs); ok {
		t.Fatal("parsed")
	}
	if got := errs.Err().Error(); !strings.Contains(got, "f.yaml:2: malformed YAML: unknown anchor 'nope' referenced") {
		t.Errorf("got %s", got)
	}
}

// A file named .json is JSON: what YAML alone would read into another
// value (017 as the octal 15) is an error at its line.
func TestJSONFilesAreJSON(t *testing.T) {
	for text, want := range map[string]string{
		"{\"a\": 1,\n \"b\": 017}\n": "c.json:2: malformed JSON: invalid character '1' after object key:value pair",
		"{\"a\": NaN}\n":             "c.json:1: malformed JSON: invalid character 'N' looking for beginning of value",
		"a: 1\n":                     "c.json:1: malformed JSON: invalid character 'a' looking for beginning of value",
	} {
		var errs diag.List
		if _, ok := ParseBytes("c.json", []byte(text), &errs); ok || !strings.Contains(fmt.Sprint(errs.Err()), want) {
			t.Errorf("%q: %v, want %s", text, errs.Err(), want)
		}
	}
	var errs diag.List
	if n, ok := ParseBytes("c.json", []byte("\ufeff{\"a\": 1e400, \"b\": [0.5]}"), &errs); !ok || n.Kind != yaml.MappingNode {
		t.Errorf("valid JSON refused: %v", errs.Err())
	}
}

// A number setting written .nan or .inf is refused at its line: it
// compares with nothing, and the results that record it have no JSON
// form for it.
func TestNonFiniteNumbersAreRefused(t *testing.T) {
	for _, v := range []string{".nan", ".inf", "-.Inf", ".NaN"} {
		var errs diag.List
		node, ok := ParseBytes("f.yaml", []byte("a: 1\nmax: "+v+"\n"), &errs)
		if !ok {
			t.Fatal(errs.Err())
		}
		var got struct {
			A   int      `yaml:"a"`
			Max *float64 `yaml:"max"`
		}
		(&Decoder{File: "f.yaml", Errs: &errs}).Decode(node, "", &got)
		if want := `f.yaml:2: max: expected a finite number, got "` + v + `"`; errs.Err() == nil || errs.Err().Error() != want || got.Max != nil {
			t.Errorf("max: %s decoded as %v, %v; want %q", v, got.Max, errs.Err(), want)
		}
	}
}
