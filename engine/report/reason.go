package report

import (
	"fmt"
	"strings"

	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// What went wrong with a case is said the same way in every report: the
// execution's own message (Execution.Error) is kept with whatever status
// it explains — a timeout says which step or request timed out, a failed
// browser step says which step and why, a harness error says what broke —
// so no report shows a bare "timed out" while the journal holds why.

// RunProblem is what went wrong while the case ran, before any verdict:
// the adapter's error, a timeout, a memory kill, a crash (a signal), a
// failed step, each with the execution's message; "" when the submission ran and answered.
// Plugin faults and wrong attributes are not included (see FailureText
// and Reason).
func RunProblem(r *result.CaseRecord) string {
	x := r.Result
	var head string
	switch {
	case x.AdapterError && r.Case == nil:
		head = "could not be loaded (an error of the harness, not judged)"
	case x.AdapterError:
		head = "could not run (an error of the harness, not judged)"
	case x.TimedOut && result.ErrorKindOf(r) == result.ErrorTimeout:
		head = "timed out (the problem counts timeouts as errors)"
	case x.TimedOut:
		head = "timed out"
	case x.OOMKilled:
		head = "killed at its memory limit"
	case x.Signal != "":
		// A crash: the signal says more than the exit status it makes.
		head = "killed by a signal (" + x.Signal + ")"
	}
	switch {
	case head == "":
		return x.Error
	case x.Error == "":
		return head
	}
	return head + ": " + x.Error
}

// Status is a case's outcome in a word or two, as the console and the
// HTML table show it: pass, fail, timed out, out of memory, error: <kind>,
// unscored.
func Status(r *result.CaseRecord) string {
	switch o := result.OutcomeOf(r); {
	case o == result.OutcomePassed:
		return "pass"
	case o == result.OutcomeUnscored:
		return "unscored"
	case o == result.OutcomeError:
		return "error: " + string(result.ErrorKindOf(r))
	case r.Result.TimedOut:
		return "timed out"
	case r.Result.OOMKilled:
		return "out of memory"
	}
	return "fail"
}

// Reason says in one line why a case did not pass: a mock's fault (an
// error of kind mock: "mock payments: …"), else the run's problem
// (RunProblem), else the plugin's fault, else why it is unscored, else its
// first incorrect attribute with its diff's first line, and how many more
// attributes are wrong; then its unmatched mock calls, if any (MockNote). Cut at limit bytes (0: no limit). "" for a case
// that passed.
func Reason(r *result.CaseRecord, limit int) string {
	if result.OutcomeOf(r) == result.OutcomePassed {
		return ""
	}
	var s string
	x := r.Result
	switch {
	case result.ErrorKindOf(r) == result.ErrorMock:
		// The mock's fault is why: the submission was not given the
		// upstream the problem promised.
		return OneLine(MockProblem(r), limit)
	case RunProblem(r) != "" && (x.AdapterError || x.TimedOut || x.OOMKilled || x.Signal != "" || x.PluginError == ""):
		s = RunProblem(r)
	case x.PluginError != "":
		s = "plugin error: " + x.PluginError
	case r.Unscored != "":
		s = "unscored: " + r.Unscored
	}
	if s != "" {
		return withMockNote(r, s, limit)
	}
	var wrong []verify.AttributeResult
	for _, a := range r.Attributes {
		if !a.IsCorrect {
			wrong = append(wrong, a)
		}
	}
	if len(wrong) == 0 {
		return withMockNote(r, fmt.Sprintf("score %.2f", r.Score), limit)
	}
	s = AttributeName(wrong[0]) + ": " + firstDiffLine(wrong[0])
	if len(wrong) > 1 {
		s += fmt.Sprintf(" (and %d more incorrect)", len(wrong)-1)
	}
	return withMockNote(r, s, limit)
}

// withMockNote is the line s, then what went wrong with the case's mock
// calls (MockNote) after a semicolon, cut at limit bytes: a request no
// route matched often explains a wrong answer.
func withMockNote(r *result.CaseRecord, s string, limit int) string {
	if note := MockNote(r); note != "" {
		s = OneLine(s, 0) + "; " + note
	}
	return OneLine(s, limit)
}

// firstDiffLine is the first line that tells an attribute's verdict: the
// diff's summary, else its first entry, else its first changed line, else
// the expected and actual values.
func firstDiffLine(a verify.AttributeResult) string {
	if d := a.Diff; d != nil {
		switch {
		case d.Summary != "":
			return d.Summary
		case len(d.Entries) > 0:
			e := d.Entries[0]
			return e.Path + " " + e.Op + ": expected " + Compact(e.Expected, 200) + ", got " + Compact(e.Actual, 200)
		case d.Unified != "":
			for _, l := range strings.Split(d.Unified, "\n") {
				if (strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "---")) || (strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++")) {
					return l
				}
			}
		}
	}
	return "expected " + Compact(a.Expected, 200) + ", got " + Compact(a.Actual, 200)
}

// OneLine keeps s's first line, marks that more followed, and cuts it at
// limit bytes (0: no limit). Control characters become U+FFFD: the line
// goes to terminals and XML attributes.
func OneLine(s string, limit int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimRight(s[:i], "\r") + " …"
	}
	s = strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' || r == 0x7f {
			return '\uFFFD'
		}
		return r
	}, s)
	if limit > 0 && len(s) > limit {
		s = verify.CutAtRune(s, max(limit-len("…"), 0)) + "…"
	}
	return s
}
