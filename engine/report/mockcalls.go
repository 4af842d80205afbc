package report

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/plugins/abi"
)

// A case's mock calls (Execution.MockCalls) are evidence like its output:
// every report that says why a case did not pass says what went wrong
// with them — a mock that faulted is why the case is an error, and a
// request no route matched is often why the answer is wrong.

// maxMockCallLines caps the calls a failure's text lists one by one.
const maxMockCallLines = 10

// MockCounts counts a case's kept calls that no route matched and those
// a mock faulted on.
func MockCounts(r *result.CaseRecord) (unmatched, faulted int) {
	for i := range r.Result.MockCalls {
		c := &r.Result.MockCalls[i]
		if c.Unmatched {
			unmatched++
		}
		if c.Fault != "" {
			faulted++
		}
	}
	return unmatched, faulted
}

// MockProblem says why a case is an error of a mock: why the group's
// mocks could not start (Execution.MockError), else "mock NAME: FAULT"
// for the first call a mock faulted on, else the execution's message.
// "" for other cases.
func MockProblem(r *result.CaseRecord) string {
	if r.Result.MockError != "" {
		return r.Result.MockError
	}
	if c := result.MockFault(r.Result.MockCalls); c != nil {
		return "mock " + c.Mock + ": " + c.Fault
	}
	if result.ErrorKindOf(r) != result.ErrorMock {
		return ""
	}
	if r.Result.Error != "" {
		return r.Result.Error
	}
	return "a mock service failed"
}

// MockPath is a call's path with its query, as the request line had it
// (parameters sorted by name).
func MockPath(c *abi.MockCall) string {
	if len(c.Query) == 0 {
		return c.Path
	}
	return c.Path + "?" + url.Values(c.Query).Encode()
}

// MockCallLine is one call in a line: "payments POST /v1/charges?x=1 →
// 501 (unmatched)", with its fault when the mock faulted; at most 300
// bytes, whatever path the submission sent.
func MockCallLine(c *abi.MockCall) string {
	s := fmt.Sprintf("%s %s %s → %d", c.Mock, c.Method, MockPath(c), c.Status)
	switch {
	case c.Fault != "":
		s += " (fault: " + c.Fault + ")"
	case c.Unmatched:
		s += " (unmatched)"
	}
	return OneLine(s, 300)
}

// MockNote is a short line about a case's unmatched calls — how many,
// and the first — for one-line reasons and messages; "" when every call
// matched a route.
func MockNote(r *result.CaseRecord) string {
	unmatched, _ := MockCounts(r)
	if unmatched == 0 {
		return ""
	}
	var first *abi.MockCall
	for i := range r.Result.MockCalls {
		if r.Result.MockCalls[i].Unmatched {
			first = &r.Result.MockCalls[i]
			break
		}
	}
	s := "unmatched mock call: " + first.Mock + " " + first.Method + " " + MockPath(first)
	if unmatched > 1 {
		s = fmt.Sprintf("%d unmatched mock calls, the first: %s %s %s", unmatched, first.Mock, first.Method, MockPath(first))
	}
	return OneLine(s, 200)
}

// MockText is what a failure's text says about the case's mock calls:
// how many there were, then each unmatched or faulted one on a line of
// its own (the first maxMockCallLines); "" when none went wrong.
func MockText(r *result.CaseRecord) string {
	unmatched, faulted := MockCounts(r)
	if unmatched == 0 && faulted == 0 {
		return ""
	}
	x := &r.Result
	var b strings.Builder
	fmt.Fprintf(&b, "mock calls: %d received", len(x.MockCalls)+x.MockCallsDropped)
	if unmatched > 0 {
		fmt.Fprintf(&b, ", %d unmatched", unmatched)
	}
	if faulted > 0 {
		fmt.Fprintf(&b, ", %d faulted", faulted)
	}
	if x.MockCallsDropped > 0 {
		fmt.Fprintf(&b, " (%d not kept)", x.MockCallsDropped)
	}
	b.WriteString("\n")
	listed, more := 0, 0
	for i := range x.MockCalls {
		c := &x.MockCalls[i]
		switch {
		case !c.Unmatched && c.Fault == "":
		case listed == maxMockCallLines:
			more++
		default:
			listed++
			fmt.Fprintf(&b, "  #%d %s\n", i+1, MockCallLine(c))
		}
	}
	if more > 0 {
		fmt.Fprintf(&b, "  … and %d more\n", more)
	}
	return b.String()
}
