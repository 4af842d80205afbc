package verify

import (
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
)

// stdParse is the reference: encoding/json with UseNumber, one document.
func stdParse(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, io.ErrUnexpectedEOF
	}
	return v, nil
}

var parseCorpus = []string{
	`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `1.5e300`, `-1E-7`, `12345678901234567890123`,
	`"plain"`, `"esc\"aped\\ \n \t \u00e9 \ud83d\ude00"`, `"lone \ud800 surrogate"`, "\"raw \xff byte\"",
	`"ünïcödé 😀 e\u0301"`, `{"a":1,"a":2}`, ` { "k" : [ 1 , 2 , { "n" : null } ] } `,
	`{"items":[{"sku":"A-1","qty":3,"price":1.25,"tags":["x","y"]}],"total":3.75}`,
	// Invalid documents: the fast parser must not accept what encoding/json rejects.
	`{`, `[1,]`, `{"a":1,}`, `01`, `1.`, `.5`, `1e`, `-`, `+1`, `tru`, `nul`, `"unterminated`, "\"ctl \x01\"",
	`{"a" 1}`, `{1:2}`, `[1 2]`, `1 2`, `{} x`, `NaN`, `"\x"`, `"\u12"`, `[` + strings.Repeat("[", 20000),
}

func checkParse(t *testing.T, doc string) {
	t.Helper()
	fast, ok := parseJSONFast(doc)
	want, stdErr := stdParse(doc)
	if ok && stdErr != nil {
		t.Fatalf("fast parser accepted %q, which encoding/json rejects: %v", clip(doc, 60), stdErr)
	}
	if ok && !reflect.DeepEqual(fast, want) {
		t.Fatalf("fast parser gave %#v for %q, encoding/json %#v", fast, clip(doc, 60), want)
	}
	got, err := ParseJSON(doc)
	if (err == nil) != (stdErr == nil) || (err == nil && !reflect.DeepEqual(got, want)) {
		t.Fatalf("ParseJSON(%q) = %#v, %v; want %#v, %v", clip(doc, 60), got, err, want, stdErr)
	}
}

func TestParseJSONAgreesWithEncodingJSON(t *testing.T) {
	for _, doc := range parseCorpus {
		checkParse(t, doc)
	}
	// The plain documents take the fast path (the point of it).
	for _, doc := range []string{`{"a":[1,2.5,"x",true,null]}`, `"ünïcödé"`} {
		if _, ok := parseJSONFast(doc); !ok {
			t.Errorf("fast path not taken for %s", doc)
		}
	}
}

func FuzzParseJSON(f *testing.F) {
	for _, doc := range parseCorpus {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, doc string) { checkParse(t, doc) })
}
