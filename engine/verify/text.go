package verify

import (
	"fmt"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/wasmeval/wasmeval/engine/checkspec"
)

// checkText compares an attribute as text, optionally normalised.
func checkText(res *AttributeResult, spec checkspec.CheckSpec, actual Actual, expected map[string]any, env Env) {
	got, ok := actualValue(actual, res.Attribute)
	if !ok {
		fail(res, "attribute %s was not produced", res.Attribute)
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

// TextDiff describes how got differs from want, line by line: entries name
// the line (of the expected text) and the two versions, and a unified diff
// shows the context.
func TextDiff(want, got string) *Diff {
	wantNL, gotNL := withNewline(want), withNewline(got)
	edits := udiff.Lines(wantNL, gotNL)
	d := &Diff{}
	ud, err := udiff.ToUnifiedDiff("expected", "actual", wantNL, edits, 0)
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
				e := DiffEntry{Path: fmt.Sprintf("line %d", h.FromLine+min(i, max(len(del)-1, 0)))}
				switch {
				case i < len(del) && i < len(ins):
					e.Op, e.Expected, e.Actual = "changed", del[i], ins[i]
				case i < len(del):
					e.Op, e.Expected = "missing", del[i]
				default:
					e.Op, e.Actual = "extra", ins[i]
				}
				addEntry(d, e)
			}
		}
		full, _ := udiff.ToUnified("expected", "actual", wantNL, edits, 3)
		if len(full) > maxUnified {
			full = full[:maxUnified] + "\n[diff truncated]\n"
			d.Truncated = true
		}
		d.Unified = full
	}
	switch {
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
