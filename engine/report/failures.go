package report

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// EachCase streams the run's records in journal order, each case once
// (see ReadUnique). Reports that list cases read the journal this way, one
// record at a time, so a long run's outputs and diffs are never all in
// memory.
func EachCase(dir string, fn func(*result.CaseRecord) error) error {
	_, err := ReadUnique(filepath.Join(dir, journal.FileName), fn)
	return err
}

// FailureText describes why a case failed in plain text: what went wrong
// while it ran (RunProblem: a timeout or a failed step with its message,
// a memory kill), a mock's fault, a plugin's fault, the mock calls that
// went wrong (unmatched or faulted, MockText), then each incorrect
// attribute with its diff (or expected and actual) — none for a case that
// could not run at all.
func FailureText(r *result.CaseRecord, limit int) string {
	var b strings.Builder
	o := r.Result
	mock := ""
	if result.ErrorKindOf(r) == result.ErrorMock {
		mock = MockProblem(r)
		b.WriteString(mock + "\n")
	}
	if p := RunProblem(r); p != "" && p != mock {
		b.WriteString(p)
		if !strings.HasSuffix(p, "\n") {
			b.WriteString("\n")
		}
	}
	if o.AdapterError {
		// The submission gave no answer: its attributes' verdicts on the
		// empty result would read as a wrong one.
		return Truncate(b.String(), limit)
	}
	if o.PluginError != "" {
		b.WriteString("plugin error: " + o.PluginError + "\n")
	}
	b.WriteString(MockText(r))
	for _, a := range r.Attributes {
		if a.IsCorrect {
			continue
		}
		b.WriteString(a.Attribute + ": ")
		if a.Diff != nil && a.Diff.Summary != "" {
			b.WriteString(a.Diff.Summary)
		} else {
			b.WriteString("incorrect")
		}
		b.WriteString("\n")
		if a.Diff != nil {
			for _, e := range a.Diff.Entries {
				b.WriteString("  " + e.Path + " " + e.Op + ": expected " + Compact(e.Expected, 200) + ", got " + Compact(e.Actual, 200) + "\n")
			}
		}
		if a.Diff != nil && a.Diff.Unified != "" {
			b.WriteString(a.Diff.Unified)
			if !strings.HasSuffix(a.Diff.Unified, "\n") {
				b.WriteString("\n")
			}
		} else if a.Diff == nil || len(a.Diff.Entries) == 0 {
			b.WriteString("  expected: " + Compact(a.Expected, 2000) + "\n  actual:   " + Compact(a.Actual, 2000) + "\n")
		}
	}
	return Truncate(b.String(), limit)
}

// Truncate cuts s to limit bytes (on a rune boundary) and says so.
func Truncate(s string, limit int) string {
	if limit <= 0 || len(s) <= limit {
		return s
	}
	return verify.CutAtRune(s, limit) + "\n[... truncated]"
}

// Compact renders a value as one-line JSON, cut at limit bytes.
func Compact(v any, limit int) string {
	data, err := json.Marshal(v)
	if err != nil {
		return "<unprintable>"
	}
	return Truncate(string(data), limit)
}

// EpochName is how reports name a case's record: its id (or key), with
// " [epoch N]" after it in a run with --epochs, so each epoch's line has
// a name of its own.
func EpochName(name string, epoch int) string {
	if epoch < 1 {
		return name
	}
	return fmt.Sprintf("%s [epoch %d]", name, epoch)
}

// AttributeName names an attribute verdict in lists of what was wrong:
// the attribute, and the check that judged it when known ("output
// (contains)"), since several checks may judge one attribute.
func AttributeName(a verify.AttributeResult) string {
	if a.Check == "" || a.Check == a.Attribute {
		return a.Attribute
	}
	return a.Attribute + " (" + a.Check + ")"
}
