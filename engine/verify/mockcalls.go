package verify

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/wasmeval/wasmeval/engine/checkspec"
	"github.com/wasmeval/wasmeval/engine/pathpattern"
	"github.com/wasmeval/wasmeval/plugins/abi"
)

// AttrMockCalls is the attribute holding the requests a case's mock
// services received.
const AttrMockCalls = "mock_calls"

// MockCallsValue is the mock_calls attribute: the calls as canonical JSON
// values, each an object as abi.MockCall encodes it, except that a body
// that is JSON is that JSON value rather than its text, so that json,
// schema and json_path checks can look inside it. A body that is not JSON
// stays text. No calls make an empty list: "no calls" is an answer, which
// a check may expect.
func MockCallsValue(calls []abi.MockCall) []any {
	out := make([]any, 0, len(calls))
	for i := range calls {
		data, err := json.Marshal(&calls[i])
		if err != nil {
			continue // a MockCall always encodes
		}
		v, err := ParseJSON(string(data))
		if err != nil {
			continue
		}
		m, _ := v.(map[string]any)
		if body, ok := callBody(&calls[i]); ok {
			m["body"] = body
		}
		out = append(out, m)
	}
	return out
}

// callBody is a call's body as a JSON value, when it is text holding one.
func callBody(c *abi.MockCall) (any, bool) {
	if c.Body == "" || c.BodyBase64 != "" {
		return nil, false
	}
	v, err := ParseJSON(c.Body)
	if err != nil {
		return nil, false
	}
	return v, true
}

// checkMockCalls selects the calls to one mock service (optionally by
// method and path pattern) and asserts how many there were and what every
// one's body contained.
func checkMockCalls(res *AttributeResult, spec checkspec.CheckSpec, actual Actual) {
	label := mockCallsLabel(spec)
	var want any
	if spec.Body != nil {
		w, err := NormalizeJSON(spec.Body)
		if err != nil {
			fail(res, "body: not representable as JSON: %v", err)
			return
		}
		want = w
	}
	var selected []int // indexes into actual.MockCalls
	var others []string
	for i, c := range actual.MockCalls {
		if c.Mock != spec.Mock {
			continue
		}
		if (spec.Method == "" || strings.EqualFold(spec.Method, c.Method)) &&
			(spec.Path == "" || pathpattern.Match(spec.Path, c.Path)) {
			selected = append(selected, i)
		} else {
			others = append(others, c.Method+" "+c.Path)
		}
	}
	n := len(selected)
	res.Actual = n
	if spec.Count != nil {
		res.Expected = *spec.Count
	} else {
		res.Expected = "at least 1"
	}
	d := &Diff{}
	var msgs []string
	switch {
	case spec.Count != nil && n != *spec.Count:
		msgs = append(msgs, fmt.Sprintf("%s: %s, expected %d", label, callCount(n), *spec.Count))
		addEntry(d, DiffEntry{Path: "count", Op: "changed", Expected: *spec.Count, Actual: n})
	case spec.Count == nil && n == 0:
		msgs = append(msgs, fmt.Sprintf("%s: no calls, expected at least one", label))
		addEntry(d, DiffEntry{Path: "count", Op: "missing", Expected: "at least 1", Actual: 0})
	}
	if len(msgs) > 0 && len(others) > 0 {
		msgs[0] += " (" + spec.Mock + " received " + strings.Join(firstOf(others, 3), ", ") + ")"
	}
	if want != nil {
		var failedBody any
		for k, i := range selected {
			c := &actual.MockCalls[i]
			root := "$[" + strconv.Itoa(i) + "].body"
			got, ok := callBody(c)
			if !ok {
				why := "is not JSON"
				switch {
				case c.BodyBase64 != "":
					why = "is not text"
				case c.Body == "":
					why = "is empty"
				}
				msgs = append(msgs, fmt.Sprintf("call %d's body %s, expected JSON containing %s", k+1, why, clip(valueText(want), 80)))
				addEntry(d, DiffEntry{Path: root, Op: "mismatch", Expected: want, Actual: clip(c.Body, 200)})
				if failedBody == nil {
					failedBody = clip(c.Body, 200)
				}
				continue
			}
			entries := MatchSubset(root, want, got)
			if len(entries) == 0 {
				continue
			}
			msgs = append(msgs, fmt.Sprintf("call %d's body: %s", k+1, bodyReason(entries[0], root)))
			for _, e := range entries {
				addEntry(d, e)
			}
			if failedBody == nil {
				failedBody = got
			}
		}
		if failedBody != nil {
			// The first body that lacks the subset, beside the subset.
			res.Actual, res.Expected = failedBody, want
		}
	}
	res.IsCorrect = len(msgs) == 0
	if res.IsCorrect {
		return
	}
	d.Summary = msgs[0]
	if len(msgs) > 1 {
		d.Summary += "; " + msgs[1]
	}
	if len(msgs) > 2 {
		d.Summary += fmt.Sprintf(" (and %d more)", len(msgs)-2)
	}
	res.Diff = d
}

// mockCallsLabel names the calls a check selects: "payments POST
// /v1/charges".
func mockCallsLabel(spec checkspec.CheckSpec) string {
	parts := []string{spec.Mock}
	if spec.Method != "" {
		parts = append(parts, strings.ToUpper(spec.Method))
	}
	if spec.Path != "" {
		parts = append(parts, spec.Path)
	}
	return strings.Join(parts, " ")
}

func callCount(n int) string {
	switch n {
	case 0:
		return "no calls"
	case 1:
		return "1 call"
	}
	return strconv.Itoa(n) + " calls"
}

func firstOf(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(s[:n:n], fmt.Sprintf("%d more", len(s)-n))
}

// bodyReason says in words how a body differs from the subset: "amount
// is 2000, expected 1999".
func bodyReason(e DiffEntry, root string) string {
	p := strings.TrimPrefix(strings.TrimPrefix(e.Path, root), ".")
	if p == "" {
		p = "the body"
	}
	switch e.Op {
	case "missing":
		if strings.HasSuffix(e.Path, "]") && !strings.HasSuffix(e.Path, `"]`) {
			return fmt.Sprintf("%s: no element matches %s", p, clip(valueText(e.Expected), 80))
		}
		return fmt.Sprintf("%s is missing (expected %s)", p, clip(valueText(e.Expected), 80))
	case "type":
		return fmt.Sprintf("%s is %s, expected %s", p, describeValue(e.Actual), describeValue(e.Expected))
	}
	return fmt.Sprintf("%s is %s, expected %s", p, clip(valueText(e.Actual), 80), clip(valueText(e.Expected), 80))
}

// methodRE is what the check takes as a method. Mock routes take any
// HTTP token; a check names the methods requests are made with.
var methodRE = regexp.MustCompile(`^[A-Za-z]+$`)

// validateMockCalls checks the options of the mock-calls check.
func validateMockCalls(spec checkspec.CheckSpec) []string {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	if spec.Mock == "" {
		bad("mock: the mock-calls check needs the name of the mock service whose calls it selects")
	}
	if spec.Method != "" && !methodRE.MatchString(spec.Method) {
		bad("method: %q: expected an HTTP method such as GET or POST", spec.Method)
	}
	if spec.Path != "" {
		if err := pathpattern.Check(spec.Path); err != nil {
			bad("%v", err)
		}
	}
	if spec.Count != nil && *spec.Count < 0 {
		bad("count: must not be negative, got %d", *spec.Count)
	}
	if spec.Body != nil {
		switch spec.Body.(type) {
		case map[string]any, []any:
			if _, err := NormalizeJSON(spec.Body); err != nil {
				bad("body: not representable as JSON: %v", err)
			}
			if spec.Count != nil && *spec.Count == 0 {
				bad("body: with count 0 no call is selected, so there is no body to check")
			}
		default:
			bad("body: is %s; expected a mapping or a list (the JSON subset every selected call's body must contain)", describeValue(spec.Body))
		}
	}
	return errs
}
