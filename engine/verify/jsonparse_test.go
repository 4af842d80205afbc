package verify

import (
	"encoding/json"
	"fmt"
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
	fast, ok := parseJSONFast(doc, false)
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
		if _, ok := parseJSONFast(doc, false); !ok {
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

func TestParseJSONSharedReusesRepeatedValues(t *testing.T) {
	var items []string
	for i := 0; i < 20; i++ {
		items = append(items, fmt.Sprintf(`{"sku":"SKU-%03d","qty":%d}`, i, i))
	}
	doc := "[" + strings.Join(items, ",") + "]"
	verdict := `{"attributes":[{"actual":` + doc + `,"expected":` + doc + `,"other":` + doc[:len(doc)-1] + `,1]}]}`
	shared, err := ParseJSONShared(verdict)
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := ParseJSON(verdict)
	if !reflect.DeepEqual(shared, plain) {
		t.Fatalf("shared parse differs:\n%v\n%v", shared, plain)
	}
	a := shared.(map[string]any)["attributes"].([]any)[0].(map[string]any)
	actual, expected, other := a["actual"].([]any), a["expected"].([]any), a["other"].([]any)
	if &actual[0] != &expected[0] {
		t.Error("the repeated document is parsed twice")
	}
	if len(other) != 21 || &other[0] == &actual[0] {
		t.Errorf("a value that only starts like the last one is its own: %d items", len(other))
	}
}

// FuzzParseJSONShared holds sharing to the plain parse.
func FuzzParseJSONShared(f *testing.F) {
	big := `{"k":"` + strings.Repeat("x", 300) + `"}`
	f.Add(`[` + big + `,` + big + `]`)
	f.Add(`{"a":` + big + `,"b":` + big + `,"c":[` + big + `]}`)
	f.Add(`[` + big + `,` + big[:len(big)-1] + `,"z":1}]`)
	f.Fuzz(func(t *testing.T, s string) {
		shared, serr := ParseJSONShared(s)
		plain, perr := ParseJSON(s)
		if (serr == nil) != (perr == nil) || !reflect.DeepEqual(shared, plain) {
			t.Fatalf("%q: shared %v (%v), plain %v (%v)", s, shared, serr, plain, perr)
		}
	})
}
