package jsonvalue

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
	fast, ok := parseFast(doc, false)
	want, stdErr := stdParse(doc)
	if ok && stdErr != nil {
		t.Fatalf("fast parser accepted %q, which encoding/json rejects: %v", short(doc), stdErr)
	}
	if ok && !reflect.DeepEqual(fast, want) {
		t.Fatalf("fast parser gave %#v for %q, encoding/json %#v", fast, short(doc), want)
	}
	got, err := Parse(doc)
	if (err == nil) != (stdErr == nil) || (err == nil && !reflect.DeepEqual(got, want)) {
		t.Fatalf("Parse(%q) = %#v, %v; want %#v, %v", short(doc), got, err, want, stdErr)
	}
}

func TestParseAgreesWithEncodingJSON(t *testing.T) {
	for _, doc := range parseCorpus {
		checkParse(t, doc)
	}
	// The plain documents take the fast path (the point of it).
	for _, doc := range []string{`{"a":[1,2.5,"x",true,null]}`, `"ünïcödé"`} {
		if _, ok := parseFast(doc, false); !ok {
			t.Errorf("fast path not taken for %s", doc)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, doc := range parseCorpus {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, doc string) { checkParse(t, doc) })
}

func TestParseSharedReusesRepeatedValues(t *testing.T) {
	var items []string
	for i := 0; i < 20; i++ {
		items = append(items, fmt.Sprintf(`{"sku":"SKU-%03d","qty":%d}`, i, i))
	}
	doc := "[" + strings.Join(items, ",") + "]"
	verdict := `{"attributes":[{"actual":` + doc + `,"expected":` + doc + `,"other":` + doc[:len(doc)-1] + `,1]}]}`
	shared, err := ParseShared(verdict)
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := Parse(verdict)
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

// FuzzParseShared holds sharing to the plain parse.
func FuzzParseShared(f *testing.F) {
	big := `{"k":"` + strings.Repeat("x", 300) + `"}`
	f.Add(`[` + big + `,` + big + `]`)
	f.Add(`{"a":` + big + `,"b":` + big + `,"c":[` + big + `]}`)
	f.Add(`[` + big + `,` + big[:len(big)-1] + `,"z":1}]`)
	f.Fuzz(func(t *testing.T, s string) {
		shared, serr := ParseShared(s)
		plain, perr := Parse(s)
		if (serr == nil) != (perr == nil) || !reflect.DeepEqual(shared, plain) {
			t.Fatalf("%q: shared %v (%v), plain %v (%v)", s, shared, serr, plain, perr)
		}
	})
}

// short keeps a failing document's message readable.
func short(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
