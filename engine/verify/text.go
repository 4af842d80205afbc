package verify

import (
	"fmt"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/wasmeval/wasmeval/engine/checkspec"
)

// checkText compares an attribute as text, optionally normalised.
func checkText(res *AttributeResult, spec checkspec.CheckSpec, actual Actual, expected map[string]any, env Env) {
	if spec.JSONPath != "" || spec.ExpectedFrom != "" {
		checkTextSelected(res, spec, actual, expected, env)
		return
	}
	got, ok := actualValue(actual, env, res.Attribute)
	if !ok {
		fail(res, "%s", notProduced(env, res.Attribute))
		return
	}
	want, ok := expectedValue(expected, res.Attribute)
	if !ok {
		fail(res, "no expected value for %s", res.Attribute)
		return
	}
	gotText, _ := asText(got)
	wantText, ok := asText(want)
	if !ok {
		fail(res, "no expected value for %s", res.Attribute)
		return
	}
	res.Actual, res.Expected = gotText, wantText
	compareText(res, wantText, gotText, spec.IgnoreWhitespace, spec.IgnoreCase)
}

// compareText sets the verdict and, when the texts differ, a line diff.
func compareText(res *AttributeResult, want, got string, ignoreWhitespace, ignoreCase bool) {
	w, g := NormalizeText(want, ignoreWhitespace, ignoreCase), NormalizeText(got, ignoreWhitespace, ignoreCase)
	res.IsCorrect = w == g
	if !res.IsCorrect {
		res.Diff = TextDiff(w, g)
	}
}

// NormalizeText applies the text check's normalisations. Whitespace-
// insensitive comparison collapses runs of spaces and tabs inside a line,
// trims each line and drops blank lines, so line structure still shows in
// the diff; case-insensitive comparison folds to lower case.
func NormalizeText(s string, ignoreWhitespace, ignoreCase bool) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if ignoreCase {
		s = strings.ToLower(s)
	}
	if !ignoreWhitespace {
		return s
	}
	var lines []string
	for _, line := range strings.Split(s, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			lines = append(lines, strings.Join(f, " "))
		}
	}
	return strings.Join(lines, "\n")
}

// maxUnified caps the unified diff kept in a report.
const maxUnified = 32 << 10

// maxDiffWindow bounds the text, on each side, that the line diff is
// computed on once the lines both texts share at their start and end are
// set aside. A diff holds every line it compares in memory several times
// over (a 50 MB output took gigabytes), and past this size it says nothing
// a reader could use: the first differences are shown, and the diff says it
// is truncated.
const maxDiffWindow = 1 << 20

// diffContext is how many unchanged lines the unified diff shows around
// each change.
const diffContext = 3

// maxEntryText caps the expected and actual text of one diff entry (one
// line, which can be a whole minified document).
const maxEntryText = 4 << 10

// TextDiff describes how got differs from want, line by line: entries name
// the line (of the expected text) and the two versions, and a unified diff
// shows the context.
func TextDiff(want, got string) *Diff {
	wantNL, gotNL := withNewline(want), withNewline(got)
	// Only the part between the shared first and last lines (with its
	// context) is diffed; line numbers count from the start of the text.
	pre := sharedLinePrefix(wantNL, gotNL)
	suf := sharedLineSuffix(wantNL[pre:], gotNL[pre:])
	pre = backLines(wantNL, pre, diffContext)
	suf = forwardLines(wantNL[len(wantNL)-suf:], diffContext)
	w, g := wantNL[pre:len(wantNL)-suf], gotNL[pre:len(gotNL)-suf]
	skipped := strings.Count(wantNL[:pre], "\n")
	d := &Diff{}
	cut := false
	if len(w) > maxDiffWindow {
		w, cut = cutAtLine(w, maxDiffWindow), true
	}
	if len(g) > maxDiffWindow {
		g, cut = cutAtLine(g, maxDiffWindow), true
	}
	edits := udiff.Lines(w, g)
	ud, err := udiff.ToUnifiedDiff("expected", "actual", w, edits, 0)
	changed := 0
	if err == nil {
		for _, h := range ud.Hunks {
			var del, ins []string
			for _, l := range h.Lines {
				switch l.Kind {
				case udiff.Delete:
					del = append(del, strings.TrimSuffix(l.Content, "\n"))
				case udiff.Insert:
					ins = append(ins, strings.TrimSuffix(l.Content, "\n"))
				}
			}
			for i := 0; i < len(del) || i < len(ins); i++ {
				changed++
				e := DiffEntry{Path: fmt.Sprintf("line %d", skipped+h.FromLine+min(i, max(len(del)-1, 0)))}
				switch {
				case i < len(del) && i < len(ins):
					e.Op, e.Expected, e.Actual = "changed", clipLine(del[i]), clipLine(ins[i])
				case i < len(del):
					e.Op, e.Expected = "missing", clipLine(del[i])
				default:
					e.Op, e.Actual = "extra", clipLine(ins[i])
				}
				addEntry(d, e)
			}
		}
		if full, err := udiff.ToUnifiedDiff("expected", "actual", w, edits, diffContext); err == nil {
			if !cut {
				borrowContext(full.Hunks, wantNL[:pre], wantNL[len(wantNL)-suf:])
			}
			for _, h := range full.Hunks {
				h.FromLine += skipped
				h.ToLine += skipped
			}
			text := full.String()
			if len(text) > maxUnified {
				text = text[:maxUnified] + "\n[diff truncated]\n"
				d.Truncated = true
			}
			d.Unified = text
		}
	}
	switch {
	case cut:
		d.Truncated = true
		d.Summary = fmt.Sprintf("texts differ from line %d on (%d and %d bytes there); the diff covers the first %d KiB", skipped+1, len(wantNL)-pre-suf, len(gotNL)-pre-suf, maxDiffWindow>>10)
	case changed == 0 && want != got:
		d.Summary = "texts differ only in the final newline"
		d.Entries = []DiffEntry{{Path: "end", Op: "changed", Expected: want[max(0, len(want)-1):], Actual: got[max(0, len(got)-1):]}}
	case changed == 1:
		d.Summary = fmt.Sprintf("1 line differs (%s)", d.Entries[0].Path)
	default:
		d.Summary = fmt.Sprintf("%d lines differ", changed)
	}
	return d
}

// sharedLinePrefix is the length of the whole lines a and b start with.
func sharedLinePrefix(a, b string) int {
	n, last := 0, 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		if a[n] == '\n' {
			last = n + 1
		}
		n++
	}
	return last
}

// sharedLineSuffix is the length of the whole lines a and b end with.
func sharedLineSuffix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	// Back off to where a line starts in both.
	for n > 0 {
		ia, ib := len(a)-n, len(b)-n
		if (ia == 0 || a[ia-1] == '\n') && (ib == 0 || b[ib-1] == '\n') {
			break
		}
		n--
	}
	return n
}

// borrowContext completes the context of the first and last hunks with
// lines from before and after the diffed part (shared by both texts): where
// a change lies among repeated lines, the diff may place it nearer the edge
// of that part than the context it was given.
func borrowContext(hunks []*udiff.Hunk, before, after string) {
	if len(hunks) == 0 {
		return
	}
	first := hunks[0]
	lead := 0
	for lead < len(first.Lines) && first.Lines[lead].Kind == udiff.Equal {
		lead++
	}
	var borrowed []udiff.Line
	for n := diffContext - lead; n > 0 && before != ""; n-- {
		i := strings.LastIndexByte(before[:len(before)-1], '\n') + 1
		borrowed = append([]udiff.Line{{Kind: udiff.Equal, Content: before[i:]}}, borrowed...)
		before = before[:i]
	}
	first.Lines = append(borrowed, first.Lines...)
	first.FromLine -= len(borrowed)
	first.ToLine -= len(borrowed)

	last := hunks[len(hunks)-1]
	trail := 0
	for trail < len(last.Lines) && last.Lines[len(last.Lines)-1-trail].Kind == udiff.Equal {
		trail++
	}
	for n := diffContext - trail; n > 0 && after != ""; n-- {
		i := strings.IndexByte(after, '\n') + 1
		last.Lines = append(last.Lines, udiff.Line{Kind: udiff.Equal, Content: after[:i]})
		after = after[i:]
	}
}

// backLines moves offset (at a line start) back by up to n lines.
func backLines(s string, offset, n int) int {
	for ; n > 0 && offset > 0; n-- {
		offset = strings.LastIndexByte(s[:offset-1], '\n') + 1
	}
	return offset
}

// forwardLines is the length of what is left of suffix (whole lines) once
// its first n lines are given back to the diff as context.
func forwardLines(suffix string, n int) int {
	for ; n > 0 && suffix != ""; n-- {
		suffix = suffix[strings.IndexByte(suffix, '\n')+1:]
	}
	return len(suffix)
}

// cutAtLine keeps the whole lines of s that fit in limit bytes (at least
// the first line's first limit bytes).
func cutAtLine(s string, limit int) string {
	if i := strings.LastIndexByte(s[:limit], '\n'); i >= 0 {
		return s[:i+1]
	}
	return s[:limit] + "\n"
}

// clipLine caps one entry's text, saying how much was left out.
func clipLine(s string) string {
	if len(s) <= maxEntryText {
		return s
	}
	kept := CutAtRune(s, maxEntryText)
	return kept + fmt.Sprintf("…[%d more bytes]", len(s)-len(kept))
}

func withNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// addEntry appends an entry unless the cap is reached.
func addEntry(d *Diff, e DiffEntry) {
	if len(d.Entries) >= MaxDiffEntries {
		d.Truncated = true
		return
	}
	d.Entries = append(d.Entries, e)
}
