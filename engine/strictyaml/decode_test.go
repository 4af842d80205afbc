package strictyaml

import (
	"testing"

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
