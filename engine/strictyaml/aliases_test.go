package strictyaml

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/diag"
)

// casesNaming is a group file of n cases that each give the anchored
// value of `values` numbers as their stdin, the first case holding it.
func casesNaming(n, values int) string {
	var b strings.Builder
	b.WriteString("first:\n  stdin: &big [")
	for i := 0; i < values; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("1")
	}
	b.WriteString("]\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "c%d:\n  stdin: *big\n", i)
	}
	return b.String()
}

// Each alias stays within what one value may expand into, but together
// they would expand the file thousands of times over: refused at the
// alias that takes it past, naming the limit and the file's own size.
func TestAFileIsBoundedByWhatItsAliasesExpandInto(t *testing.T) {
	text := casesNaming(3000, 90_000)
	var errs diag.List
	if _, ok := ParseBytes("errors.yaml", []byte(text), &errs); ok {
		t.Fatal("a file expanding into 270 million values was parsed")
	}
	// The file has the document, its mapping, the first case's key,
	// mapping and stdin key, the list and its 90,000 numbers, then four
	// values a case (its key and mapping, stdin's key, the alias): the
	// limit is ten times that, which the eleventh alias passes (case c10,
	// line 4 + 2*10).
	own := 6 + 90_000 + 3000*4
	want := fmt.Sprintf("errors.yaml:24: the alias *big takes the file past %d values once its aliases are expanded (the file itself has %d)", 10*own, own)
	if got := errs.Err().Error(); !strings.Contains(got, want) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// The same message for a document read as one value.
	if _, line, err := DocumentValue([]byte(text)); line != 24 || err == nil || !strings.Contains(err.Error(), "the alias *big takes the file past") {
		t.Errorf("DocumentValue: line %d, %v", line, err)
	}
}

// What anchors are for stays well within the bound: a small value named
// by every case of a large file, and a large value named a few times.
func TestAliasesWithinTheBoundAreParsed(t *testing.T) {
	for name, text := range map[string]string{
		"defaults in 100,000 cases":              casesNaming(100_000, 20),
		"a large value named nine times":         casesNaming(9, 100_000),
		"a small file's aliases up to the floor": casesNaming(90, 10_000),
	} {
		var errs diag.List
		if _, ok := ParseBytes("f.yaml", []byte(text), &errs); !ok {
			t.Errorf("%s: %v", name, errs.Err())
		}
	}
}

// A chain of anchors that each name the one before ten times is counted
// without expanding it: refused at once, however deep.
func TestNestedAliasesAreCountedWithoutExpanding(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 60; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [", i, i)
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	var errs diag.List
	if _, ok := ParseBytes("f.yaml", []byte(b.String()), &errs); ok {
		t.Fatal("parsed")
	}
	// a5 expands into 1,111,111 values, past the floor, at its first alias.
	if got := errs.Err().Error(); !strings.Contains(got, "f.yaml:6: the alias *a4 takes the file past 1000000 values") {
		t.Errorf("got %s", got)
	}
}
