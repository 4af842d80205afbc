package jsonvalue

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzValidText holds the checking mode of the fast parser to the full
// parser on valid UTF-8, and ValueEnd to where a value's text ends.
func FuzzValidText(f *testing.F) {
	for _, s := range parseCorpus {
		f.Add(s)
	}
	for _, s := range []string{`{"a":[1,-0.5e+3,{"b":"\u00e9\n"},true,false,null]}`, ` [ ] `, `{"a" 1}`, `[1,]`, `{"a":1,}`, `01`, `1.`, `-`, `"\x"`, "\"\x01\"", `[tru]`, `{}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, err := Parse(s)
		got := ValidText(s)
		if got && err != nil {
			t.Fatalf("%q: ValidText accepts what Parse refuses: %v", s, err)
		}
		if utf8.ValidString(s) && got != (err == nil) {
			t.Fatalf("%q: ValidText %v, Parse error %v", s, got, err)
		}
		i := SkipSpace(s, 0)
		if end, ok := ValueEnd(s, i); ok {
			if _, err := Parse(s[i:end]); err != nil {
				t.Fatalf("%q: ValueEnd accepted %q, which Parse refuses: %v", s, s[i:end], err)
			}
			if got != (SkipSpace(s, end) == len(s)) {
				t.Fatalf("%q: ValueEnd stops at %d, ValidText %v", s, end, got)
			}
		} else if got {
			t.Fatalf("%q: ValueEnd refused a valid document", s)
		}
	})
}

// Both parsers allow the same nesting as encoding/json.
func TestNestingLimit(t *testing.T) {
	for _, depth := range []int{MaxDepth, MaxDepth + 1} {
		for _, open := range []string{"[", `{"a":`} {
			closer := map[string]string{"[": "]", `{"a":`: "}"}[open]
			doc := strings.Repeat(open, depth) + "1" + strings.Repeat(closer, depth)
			_, err := Parse(doc)
			if ok := ValidText(doc); ok != (depth <= MaxDepth) || (err == nil) != ok {
				t.Errorf("%s × %d: ValidText %v, Parse %v", open, depth, ok, err)
			}
		}
	}
}
