package wasmeval

import (
	"strings"
	"testing"
)

var canonicalDocs = []string{
	`{"z":1,"a":[1.0,-0,1e300,1E-7,12345678901234567890123],"é":"ü","A":null,"html":"<a href='x'>&</a>","ctl":"\u0000\u001f\u007f","b":true,"":"e","😀":"\ud83d\ude00","ﬀ":1,"～":3,"ls":"\u2028\u2029","lone":"\ud800"}`,
	`[[],{},"",0,-1.5e-10,"tab\tnl\nbs\\q\"","\b\f\r"]`,
	` {"b" : [ 1 , 2 ] , "a" : { "d" : null , "c" : false } } `,
	`{"a":1,"b":2,"a":3}`,
	`{"k":{"y":1,"x":2},"k":{"q":[3]}}`,
	`{"a\u0062":1,"ab":2,"\u0061a":3}`,
	"{\"\u2028\":\"\u2029\",\"\xef\xbf\xbd\":\"\xef\xbf\xbd\"}",
	`{"currency":"EUR","total":1234.5,"items":[{"sku":"SKU-000","name":"item 0","qty":0,"price":1.25,"tags":["a","b"]}]}`,
	`"just a string"`, `12`, `-0.5e+7`, `true`, `null`, `false`, `[]`, `{}`,
	`{"deep":` + strings.Repeat("[", 999) + strings.Repeat("]", 999) + `}`,
	strings.Repeat("[", 1000) + strings.Repeat("]", 1000),
	strings.Repeat("[", 1001) + strings.Repeat("]", 1001),
	// Not JSON.
	``, ` `, `{`, `{"a":1,}`, `[1,2`, `{"a":01}`, `{"a":-}`, `"\x"`, "\"a\x01\"", "\"caf\xe9\"", `1 2`, `tru`,
	`{"a" 1}`, `{1:2}`, `[1 2]`, `"\u12"`, `nul`, `-`, `1.`, `1e`, `.5`, "[\"\xff\"]", "\xff", `"abc`, `{"a":1`,
}

// The canonical text is what ParseJSON and EncodeJSON make of the document,
// and a document is refused exactly when ParseJSON refuses it.
func checkCanonical(t *testing.T, doc string) {
	t.Helper()
	got, ok := AppendCanonicalJSON([]byte("x"), doc)
	v, err := ParseJSON([]byte(doc))
	if (err == nil) != ok {
		t.Fatalf("%q: canonical ok %v, ParseJSON error %v", doc, ok, err)
	}
	if !ok {
		if string(got) != "x" {
			t.Fatalf("%q: refused, but dst is %q", doc, got)
		}
		return
	}
	want, err := AppendJSON([]byte("x"), v)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("%q:\n got %s\nwant %s", doc, got, want)
	}
}

func TestAppendCanonicalJSON(t *testing.T) {
	for _, doc := range canonicalDocs {
		checkCanonical(t, doc)
	}
}

func FuzzCanonicalJSON(f *testing.F) {
	for _, doc := range canonicalDocs {
		f.Add(doc)
	}
	f.Fuzz(checkCanonical)
}

func TestSameJSON(t *testing.T) {
	for _, tc := range []struct {
		want, got string
		same      bool
	}{
		{`{"a":1,"b":[1,2]}`, `{"a":1,"b":[1,2]}`, true},
		{`{"a":1,"b":[1,2]}`, " {\"b\" : [1,\n2], \"a\":1}", true},
		{`{"a":"\u0041"}`, `{"a":"A"}`, true},
		{`{"a":1,"a":2}`, `{"a":2}`, true},
		{`{"a":1.0}`, `{"a":1}`, false},
		{`{"a":1}`, `{"a":1,"b":null}`, false},
		{`[1,2]`, `[2,1]`, false},
		{`{"a":1}`, `{"a":1`, false},
		{`{"a":1`, `{"a":1`, false},
		{`"x"`, `"x"`, true},
	} {
		got, ok := SameJSON(tc.want, tc.got)
		if ok != tc.same {
			t.Errorf("SameJSON(%q, %q) = %v", tc.want, tc.got, ok)
			continue
		}
		if !ok {
			continue
		}
		w, _ := ParseJSON([]byte(tc.want))
		g, _ := ParseJSON([]byte(tc.got))
		if d := CompareJSON(w, g, JSONOptions{}); d != nil {
			t.Errorf("SameJSON(%q, %q): CompareJSON finds %s", tc.want, tc.got, d.Summary)
		}
		enc, _ := EncodeJSON(g)
		if string(got) != string(enc) {
			t.Errorf("SameJSON(%q, %q) = %s, want %s", tc.want, tc.got, got, enc)
		}
	}
}
