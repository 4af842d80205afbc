package abi_test

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/wasmeval/wasmeval/engine/verify"
	"github.com/wasmeval/wasmeval/plugins/abi"
)

var corpus = []string{
	`{}`, `[]`, `null`, `true`, `0`, `-0`, `1.5e300`, `-1E-7`, `12345678901234567890123`,
	`"esc\"aped\\ \n \t \u00e9 \ud83d\ude00"`, `"lone \ud800 surrogate"`, "\"raw \xff byte\"",
	`"ünïcödé 😀 e\u0301 <b>&amp;</b> \u2028"`, `{"z":1,"a":[{"y":null,"b":false}],"é":"x"}`,
	`{"items":[{"sku":"A-1","qty":3,"price":1.25,"tags":["x","y"]}],"total":3.75}`,
}

// Attribute's encoder must give the same bytes as encoding/json for
// the values the parser produces.
func TestAttributeEncodesLikeEncodingJSON(t *testing.T) {
	for _, doc := range corpus {
		v, err := verify.ParseJSON(doc)
		if err != nil {
			continue
		}
		attr := abi.Attribute{Attribute: "output", Actual: v, Expected: []any{v, "<&>\u2028", 1e-7, 3.0, map[string]any(nil), []any(nil)}, Weight: 0.5}
		got, err := json.Marshal(attr)
		if err != nil {
			t.Fatal(err)
		}
		type plain abi.Attribute // the same fields, without the custom encoder
		want, err := json.Marshal(plain(attr))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("encoding %s:\n got %s\nwant %s", doc, got, want)
		}
	}
}

func TestAttributeEncoderFloatsAndErrors(t *testing.T) {
	for _, w := range []float64{0, 1, -2.5, 1e-7, 1e21, 123456789, 0.000001, 1e-300} {
		attr := abi.Attribute{Attribute: "a", Actual: w, Expected: map[string]any{"n": w, "i": 3}, Weight: w}
		type plain abi.Attribute
		got, err1 := json.Marshal(attr)
		want, err2 := json.Marshal(plain(attr))
		if err1 != nil || err2 != nil || !bytes.Equal(got, want) {
			t.Errorf("%v: got %s (%v), want %s (%v)", w, got, err1, want, err2)
		}
	}
	if _, err := json.Marshal(abi.Attribute{Actual: math.NaN()}); err == nil {
		t.Error("NaN encoded")
	}
	if _, err := json.Marshal(abi.Attribute{Actual: json.Number("1x")}); err == nil {
		t.Error("invalid json.Number encoded")
	}
}

// FuzzAppendQuoted holds the string encoder to encoding/json.
func FuzzAppendQuoted(f *testing.F) {
	for _, s := range []string{"", "plain", "q\"b\\s/", "\b\f\n\r\t\x00\x1f\x7f", "<&>", "\u2028\u2029", "é😀", "\xff\xfe", "a\xc3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := abi.AppendQuoted(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}
