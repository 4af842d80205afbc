package html

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/plugins/abi"
)

// A case whose group has mock services carries the requests they received
// (Execution.MockCalls). The page lists them under "Mock calls", a table
// per case: one row per call — mock, method, path with query, status, and
// whether no route matched or the mock faulted, both marked — with the
// request's headers and body folded under it. Everything in a call is the
// submission's text: the template escapes it, and it is bounded like a
// transcript — a body shown up to maxMockBody, a header or path up to
// maxMockHeader, a case's calls up to maxMockCaseBytes of text and
// maxMockCallsShown rows, the page's first MaxMockCases cases; what is
// left out is said. The journal and
// results.parquet have every call whole.

// Limits of the mock calls section.
const (
	MaxMockCases      = 500
	maxMockCallsShown = 100
	maxMockBody       = maxTranscriptValue
	maxMockHeader     = 1 << 10
	maxMockCaseBytes  = 64 << 10
	// maxMockHeaderLines caps a call's header lines: empty values cost
	// the allowance nothing.
	maxMockHeaderLines = 50
)

type mockCaseData struct {
	Key, Anchor string
	// Received counts every call, the ones not kept included.
	Received, Unmatched, Faulted int
	Calls                        []mockCallData
	// Hidden counts the kept calls past maxMockCallsShown, Dropped those
	// received but not kept in the record (MockCallsDropped); More both.
	Hidden, Dropped, More int
}

type mockCallData struct {
	N                    int
	Mock, Method, Path   string
	Status               int
	Unmatched            bool
	Fault                string
	Class                string
	Headers              []mockHeader
	Body, BodyNote       string
	NoBody, OverTheLimit bool
	// MoreHeaders counts the header lines past maxMockHeaderLines.
	MoreHeaders int
}

type mockHeader struct{ Name, Value string }

// mockSummary is what a case's row and failure details say of its calls.
type mockSummary struct {
	Anchor                       string
	Received, Unmatched, Faulted int
}

func mockSummaryOf(r *result.CaseRecord, key string) *mockSummary {
	x := &r.Result
	if len(x.MockCalls) == 0 && x.MockCallsDropped == 0 {
		return nil
	}
	u, f := report.MockCounts(r)
	return &mockSummary{Anchor: mockAnchor(key), Received: len(x.MockCalls) + x.MockCallsDropped, Unmatched: u, Faulted: f}
}

// mockCaseOf builds a case's table of calls.
func mockCaseOf(r *result.CaseRecord, key string) mockCaseData {
	x := &r.Result
	md := mockCaseData{Key: key, Anchor: mockAnchor(key), Received: len(x.MockCalls) + x.MockCallsDropped}
	md.Unmatched, md.Faulted = report.MockCounts(r)
	b := &budget{left: maxMockCaseBytes}
	for i := range x.MockCalls {
		if i == maxMockCallsShown || b.spent() {
			md.Hidden = len(x.MockCalls) - i
			break
		}
		md.Calls = append(md.Calls, mockCallOf(&x.MockCalls[i], i+1, b))
	}
	md.Dropped = max(x.MockCallsDropped, 0)
	md.More = md.Hidden + md.Dropped
	return md
}

func mockCallOf(c *abi.MockCall, n int, b *budget) mockCallData {
	cd := mockCallData{N: n, Mock: printable(report.Truncate(c.Mock, 100)), Method: printable(report.Truncate(c.Method, 100)),
		Path: printable(report.Truncate(report.MockPath(c), maxMockHeader)), Status: c.Status, Unmatched: c.Unmatched,
		Fault: printable(report.Truncate(c.Fault, maxMockHeader)), Class: "call"}
	// The row's own text counts against the case's allowance too.
	b.left -= len(cd.Mock) + len(cd.Method) + len(cd.Path) + len(cd.Fault)
	if c.Unmatched {
		cd.Class += " unmatched"
	}
	if c.Fault != "" {
		cd.Class += " fault"
	}
	names := make([]string, 0, len(c.Headers))
	for name := range c.Headers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, v := range c.Headers[name] {
			switch {
			case len(cd.Headers) == maxMockHeaderLines:
				cd.MoreHeaders++
			case b.spent():
				cd.OverTheLimit = true
			default:
				h := mockHeader{printable(report.Truncate(name, 200)), printable(report.Truncate(v, maxMockHeader))}
				b.left -= len(h.Name) + len(h.Value)
				cd.Headers = append(cd.Headers, h)
			}
		}
	}
	body, note := mockBody(c)
	switch {
	case body == "":
		cd.NoBody = true
	case b.spent():
		cd.OverTheLimit = true
	default:
		shown := b.take(body) // cut at maxMockBody (the budget's value limit) or what is left
		if len(shown) < len(body) {
			note = strings.TrimPrefix(note+fmt.Sprintf("; its first %s shown", size(int64(min(maxMockBody, len(shown))))), "; ")
		}
		cd.Body, cd.BodyNote = printable(shown), note
	}
	return cd
}

// mockBody is a call's body as it is shown: text as sent (JSON indented,
// so a reader sees its fields), bytes that are not text as base64 — and
// a note saying which.
func mockBody(c *abi.MockCall) (body, note string) {
	if c.BodyBase64 != "" {
		return c.BodyBase64, fmt.Sprintf("not text: %s as base64", size(int64(len(c.BodyBase64)/4*3)))
	}
	if c.Body == "" {
		return "", ""
	}
	note = size(int64(len(c.Body)))
	if len(c.Body) <= 1<<20 && json.Valid([]byte(c.Body)) {
		var buf bytes.Buffer
		if json.Indent(&buf, []byte(c.Body), "", "  ") == nil && buf.Len() > len(c.Body) {
			return buf.String(), note + ", JSON indented"
		}
	}
	return c.Body, note
}

func mockAnchor(key string) string { return "mk-" + anchor(key) }
