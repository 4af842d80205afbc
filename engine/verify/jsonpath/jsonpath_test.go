package jsonpath

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []Segment
		text string // canonical form
	}{
		{"$", nil, "$"},
		{"$.a", []Segment{{Kind: Member, Key: "a"}}, "$.a"},
		{"$.result.items[2]", []Segment{{Kind: Member, Key: "result"}, {Kind: Member, Key: "items"}, {Kind: Index, Index: 2}}, "$.result.items[2]"},
		{"$['key with spaces']", []Segment{{Kind: Member, Key: "key with spaces"}}, `$["key with spaces"]`},
		{`$["it's"]['say "hi"']`, []Segment{{Kind: Member, Key: "it's"}, {Kind: Member, Key: `say "hi"`}}, `$["it's"]["say \"hi\""]`},
		{`$['a\'b\\c\u00e9\n']`, []Segment{{Kind: Member, Key: "a'b\\cé\n"}}, `$["a'b\\cé\n"]`},
		{`$['\ud83d\ude00']`, []Segment{{Kind: Member, Key: "😀"}}, `$["😀"]`},
		{"$.items[-1]", []Segment{{Kind: Member, Key: "items"}, {Kind: Index, Index: -1}}, "$.items[-1]"},
		{"$.items[*].price", []Segment{{Kind: Member, Key: "items"}, {Kind: Wildcard}, {Kind: Member, Key: "price"}}, "$.items[*].price"},
		{"$.*", []Segment{{Kind: Wildcard}}, "$[*]"},
		{"$[ 0 ][ 'a' ]", []Segment{{Kind: Index}, {Kind: Member, Key: "a"}}, "$[0].a"},
		{"$.content-type", []Segment{{Kind: Member, Key: "content-type"}}, `$["content-type"]`},
		{"$.2xx", []Segment{{Kind: Member, Key: "2xx"}}, `$["2xx"]`},
		{"$.straße", []Segment{{Kind: Member, Key: "straße"}}, `$["straße"]`},
	} {
		p, err := Parse(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(p.Segments(), tc.want) {
			t.Errorf("%s: segments %+v, want %+v", tc.in, p.Segments(), tc.want)
		}
		if p.String() != tc.text {
			t.Errorf("%s: written %s, want %s", tc.in, p.String(), tc.text)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "empty path"},
		{"a.b", "a path starts with $ (a path is $ followed by .name, ['name'], [index], [-index], [*] or .*); did you mean $.a.b?"},
		{"['a']", "did you mean $['a']?"},
		{"$.a..b", `"$.a..b" at character 4: recursive descent (..) is not supported`},
		{"$..*", "recursive descent"},
		{"$.", "a member name must follow the dot"},
		{"$.a.", "a member name must follow the dot"},
		{"$.@", "'@' cannot start a member name"},
		{"$[", "unclosed ["},
		{"$[0", "unclosed ["},
		{"$['a]", "unterminated quoted name"},
		{"$['a'", "unclosed ["},
		{`$['\x']`, `unknown escape \x`},
		{`$['\u12']`, `invalid \u escape`},
		{"$[?(@.a)]", "filters"},
		{"$[1:2]", "slices"},
		{"$[:2]", "slices"},
		{"$[0,1]", "unions"},
		{"$[-0]", "-0 is not an index"},
		{"$[-]", "expected an index after -"},
		{"$[99999999999999999999]", "too large"},
		{"$[a]", "unexpected 'a' in brackets"},
		{"$ .a", "unexpected ' '"},
		{"$x", "unexpected 'x'"},
		{"$.a\xff", "at character 4: invalid UTF-8"},
	} {
		_, err := Parse(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want it to contain %q", tc.in, err, tc.want)
		}
	}
	if _, err := ParseRooted("output.a", "expected"); err == nil || !strings.Contains(err.Error(), "a path starts with expected (a path is expected followed by .name, ['name'] or [index]); did you mean expected.output.a?") {
		t.Errorf("rooted: %v", err)
	}
}

func doc(t *testing.T, s string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestSelect(t *testing.T) {
	d := doc(t, `{"result": {"items": [{"p": 1}, {"p": 2}, {"q": 3}], "empty": []},
		"error": "bad", "n": 4, "odd key": {"b": true}}`)
	for _, tc := range []struct {
		path string
		want string // path=value or path!reason, joined by " | "
	}{
		{"$", `$=map`},
		{"$.error", `$.error=bad`},
		{"$['odd key'].b", `$["odd key"].b=true`},
		{"$.result.items[1].p", `$.result.items[1].p=2`},
		{"$.result.items[-1].q", `$.result.items[-1].q=3`},
		{"$.result.items[-4]", `$.result.items[-4]!$.result.items has 3 elements`},
		{"$.result.items[3].p", `$.result.items[3].p!$.result.items has 3 elements`},
		{"$.a.b", `$.a.b!$ has no member "a"`},
		{"$.n.b[0]", `$.n.b[0]!$.n is a number, not an object`},
		{"$.error[0]", `$.error[0]!$.error is a string, not an array`},
		{"$.result.items[*].p", `$.result.items[0].p=1 | $.result.items[1].p=2 | $.result.items[2].p!$.result.items[2] has no member "p"`},
		{"$.result.empty[*].p", ``},
		{"$.result.*", `$.result.empty=list | $.result.items=list`},
		{"$.n[*].x", `$.n[*].x!$.n is a number, not an array or object`},
	} {
		p, err := Parse(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range p.Select(d, Options{}) {
			if !l.Found {
				got = append(got, l.Path+"!"+l.Reason)
				continue
			}
			v := l.Value
			switch v.(type) {
			case map[string]any:
				v = "map"
			case []any:
				v = "list"
			}
			got = append(got, l.Path+"="+strings.TrimSpace(strings.Trim(jsonText(v), `"`)))
		}
		if s := strings.Join(got, " | "); s != tc.want {
			t.Errorf("%s: got %s\nwant %s", tc.path, s, tc.want)
		}
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestSelectParsesTextOnTheWay(t *testing.T) {
	parse := func(s string) (any, error) {
		var v any
		err := json.Unmarshal([]byte(s), &v)
		return v, err
	}
	d := map[string]any{"files": map[string]any{"out.json": `{"total": 7}`, "notes.txt": "hello"}}
	p, _ := ParseRooted(`expected.files["out.json"].total`, "expected")
	got := p.Select(d, Options{ParseText: parse})
	if len(got) != 1 || !got[0].Found || got[0].Value != 7.0 || got[0].Path != `expected.files["out.json"].total` {
		t.Errorf("got %+v", got)
	}
	p, _ = ParseRooted(`expected.files["notes.txt"].total`, "expected")
	got = p.Select(d, Options{ParseText: parse})
	if len(got) != 1 || got[0].Found || got[0].Reason != `expected.files["notes.txt"] is text that is not JSON` {
		t.Errorf("got %+v", got)
	}
	// Without ParseText a string is a string.
	got = p.Select(d, Options{})
	if len(got) != 1 || got[0].Found || !strings.Contains(got[0].Reason, "is a string, not an object") {
		t.Errorf("got %+v", got)
	}
	// The last step's value is returned as it is, text included.
	p, _ = ParseRooted(`expected.files["out.json"]`, "expected")
	if got := p.Select(d, Options{ParseText: parse}); got[0].Value != `{"total": 7}` {
		t.Errorf("got %+v", got)
	}
}

// FuzzParse holds the parser to three things on any input: it does not
// panic, a path it accepts is written back in a form it parses to the same
// steps, and selecting with it from a small document does not panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"$", "$.a", "$.a.b[0]", "$['a b']", `$["a\"b"]`, "$[-1]", "$[*]", "$.*.x",
		"$..a", "$[?(@.a)]", "$[1:2]", "$[0,1]", `$['\u00e9\ud83d\ude00']`, "$.a-b", "$[ 'x' ]",
		"$['", `$["\`, "$[-", "$.\xff", "$[99999999999]",
	} {
		f.Add(s)
	}
	d := map[string]any{"a": []any{map[string]any{"b": "x"}, 1.0}, "a b": nil, "x": map[string]any{"": true}}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if err != nil {
			return
		}
		again, err := Parse(p.String())
		if err != nil {
			t.Fatalf("%q written as %q, which does not parse: %v", s, p.String(), err)
		}
		if !reflect.DeepEqual(again.Segments(), p.Segments()) {
			t.Fatalf("%q written as %q parses to %+v, not %+v", s, p.String(), again.Segments(), p.Segments())
		}
		locs := p.Select(d, Options{})
		if !p.HasWildcard() && len(locs) != 1 {
			t.Fatalf("%q selected %d locations", s, len(locs))
		}
	})
}
