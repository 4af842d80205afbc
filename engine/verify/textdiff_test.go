package verify

import (
	"fmt"
	"math/rand"
	"runtime"
	"strings"
	"testing"
)

// applyUnified applies a unified diff of whole lines to text, checking
// that every context and deleted line is where the diff says.
func applyUnified(diff, text string) (string, error) {
	old := strings.SplitAfter(text, "\n")
	if old[len(old)-1] == "" {
		old = old[:len(old)-1]
	}
	var out []string
	next := 0 // index in old of the next line not yet copied
	lines := strings.SplitAfter(diff, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case l == "" || strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ "):
		case strings.HasPrefix(l, "@@ -"):
			var from int
			fmt.Sscanf(l, "@@ -%d", &from)
			if from-1 < next {
				return "", fmt.Errorf("hunk %q overlaps", l)
			}
			out = append(out, old[next:from-1]...)
			next = from - 1
		case l[0] == '+':
			out = append(out, l[1:])
		case l[0] == '-' || l[0] == ' ':
			if next >= len(old) || old[next] != l[1:] {
				return "", fmt.Errorf("line %d is not %q", next+1, l[1:])
			}
			if l[0] == ' ' {
				out = append(out, l[1:])
			}
			next++
		default:
			return "", fmt.Errorf("unexpected diff line %q", l)
		}
	}
	return strings.Join(append(out, old[next:]...), ""), nil
}

func randomText(rng *rand.Rand, lines int) []string {
	words := []string{"a", "b", "c", "alpha", "beta", ""}
	out := make([]string, lines)
	for i := range out {
		out[i] = words[rng.Intn(len(words))]
	}
	return out
}

// Narrowing the diff to what differs keeps it a true diff of the whole
// texts, over many random pairs with repeated lines: the unified diff,
// line numbers included, turns the expected text into the actual one, and
// every entry names the expected line it shows.
func TestTextDiffWindowMatchesFullDiff(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for i := 0; i < 3000; i++ {
		base := randomText(rng, rng.Intn(30))
		other := append([]string(nil), base...)
		for e := rng.Intn(4); e >= 0 && len(other) > 0; e-- {
			j := rng.Intn(len(other))
			switch rng.Intn(3) {
			case 0:
				other[j] = "changed"
			case 1:
				other = append(other[:j], other[j+1:]...)
			default:
				other = append(other[:j], append([]string{"new"}, other[j:]...)...)
			}
		}
		want, got := strings.Join(base, "\n")+"\n", strings.Join(other, "\n")
		if rng.Intn(2) == 0 {
			got += "\n"
		}
		if want == got {
			continue
		}
		d := TextDiff(want, got)
		if d.Summary == "texts differ only in the final newline" {
			continue
		}
		applied, err := applyUnified(d.Unified, want)
		if err != nil || applied != withNewline(got) {
			t.Fatalf("want %q got %q: the diff gives %q (%v):\n%s", want, got, applied, err, d.Unified)
		}
		wantLines := strings.Split(strings.TrimSuffix(want, "\n"), "\n")
		for _, e := range d.Entries {
			var n int
			fmt.Sscanf(e.Path, "line %d", &n)
			if e.Op != "extra" && (n < 1 || n > len(wantLines) || wantLines[n-1] != e.Expected) {
				t.Fatalf("want %q got %q: entry %+v", want, got, e)
			}
		}
	}
}

// A large output that differs from its expected value in one line is
// diffed at the cost of that line's neighbourhood, not of the whole text:
// the entry names the right line, and the diff allocates a small fraction
// of what a diff of the whole texts did (gigabytes for 50 MB).
func TestTextDiffOfLargeTextsIsBounded(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 400000; i++ {
		fmt.Fprintf(&b, "row %d: %s\n", i, strings.Repeat("x", i%40))
	}
	want := b.String()
	got := strings.Replace(want, "row 200000: ", "row 200000! ", 1)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	d := TextDiff(want, got)
	runtime.ReadMemStats(&after)
	if d.Summary != "1 line differs (line 200001)" || len(d.Entries) != 1 || !strings.HasPrefix(fmt.Sprint(d.Entries[0].Actual), "row 200000! ") {
		t.Fatalf("diff: %s %+v", d.Summary, d.Entries)
	}
	if !strings.Contains(d.Unified, "@@ -199998,7 +199998,7 @@") {
		t.Errorf("unified diff with wrong line numbers:\n%s", d.Unified)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(want)) {
		t.Errorf("diffing %d bytes allocated %d", len(want), alloc)
	}
}

// Texts that differ throughout are diffed over their first MiB only, and
// the diff says so; a line longer than an entry's cap is cut with its size.
func TestTextDiffOfTextsDifferingThroughoutIsCut(t *testing.T) {
	want := strings.Repeat("expected line\n", 200000)
	got := strings.Repeat("actual line\n", 200000)
	d := TextDiff(want, got)
	if !d.Truncated || !strings.HasPrefix(d.Summary, "texts differ from line 1 on") || len(d.Entries) != MaxDiffEntries {
		t.Errorf("diff: truncated=%v %q, %d entries", d.Truncated, d.Summary, len(d.Entries))
	}
	long := strings.Repeat("y", 100000)
	d = TextDiff("a\n"+long+"\n", "a\n"+long+"z\n")
	if len(d.Entries) != 1 {
		t.Fatalf("long line: %+v", d.Entries)
	}
	if a := fmt.Sprint(d.Entries[0].Actual); len(a) > maxEntryText+32 || !strings.HasSuffix(a, "…[95905 more bytes]") {
		t.Errorf("long line entry: %d bytes, ends %q", len(a), a[max(0, len(a)-30):])
	}
}
