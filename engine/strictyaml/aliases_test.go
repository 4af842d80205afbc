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
	const n, values = 3000, 90_000
	text := casesNaming(n, values)
	var errs diag.List
	if _, ok := ParseBytes("errors.yaml", []byte(text), &errs); ok {
		t.Fatal("a file expanding into 270 million values was parsed")
	}
	// Each value counts its text and one byte: the document and its
	// mapping (1 each), the first case's key, mapping and stdin key (6,
	// 1, 6), the list (1) and its numbers (2 each), then a case's key
	// (1 + its name), mapping (1), stdin key (6) and alias (1 + "big").
	before := 1 + 1 + 6 + 1 + 6 + 1 + 2*values
	big := 1 + 2*values
	own := before
	for i := 0; i < n; i++ {
		own += 1 + len(fmt.Sprintf("c%d", i)) + 1 + 6 + 4
	}
	limit := max(MaxExpanded, ExpansionFactor*own)
	line, count := 0, before
	for i := 0; line == 0; i++ {
		if count += 1 + len(fmt.Sprintf("c%d", i)) + 1 + 6 + big; count > limit {
			line = 4 + 2*i // case ci's stdin
		}
	}
	want := fmt.Sprintf("errors.yaml:%d: the alias *big takes the file past %d bytes of values once its aliases are expanded (the file itself has %d)", line, limit, own)
	if got := errs.Err().Error(); !strings.Contains(got, want) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// The same message for a document read as one value.
	if _, l, err := DocumentValue([]byte(text)); l != line || err == nil || !strings.Contains(err.Error(), "the alias *big takes the file past") {
		t.Errorf("DocumentValue: line %d, %v", l, err)
	}
}

// Values count by their size: one long string named by a few hundred
// cases is refused as a long list would be.
func TestLongTextCountsByItsBytes(t *testing.T) {
	text := "first: {stdin: &big " + strings.Repeat("x", 1<<20) + "}\n"
	for i := 0; i < 40; i++ {
		text += fmt.Sprintf("c%d: {stdin: *big}\n", i)
	}
	var errs diag.List
	if _, ok := ParseBytes("f.yaml", []byte(text), &errs); ok {
		t.Fatal("a 1 MB string named 40 times was parsed")
	}
	// 1 MiB a case: the tenth alias takes the file past ten times its size.
	if got := errs.Err().Error(); !strings.Contains(got, "f.yaml:11: the alias *big takes the file past") {
		t.Errorf("got %s", got)
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
	// a5 is 2,111,111 bytes of values (a0 is 21, and each is ten of the
	// one before and 1): the first alias of it passes the floor.
	if got := errs.Err().Error(); !strings.Contains(got, "f.yaml:7: the alias *a5 takes the file past 4194304 bytes of values") {
		t.Errorf("got %s", got)
	}
}
