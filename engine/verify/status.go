package verify

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/wasmeval/wasmeval/engine/checkspec"
)

// checkStatus compares the exit status (or HTTP status) with the expected
// one, or accepts any non-zero status when the check says nonzero.
func checkStatus(res *AttributeResult, spec checkspec.CheckSpec, actual Actual, expected map[string]any) {
	got, _ := actualValue(actual, Env{}, res.Attribute)
	res.Actual = got
	gotInt, ok := IntegerValue(got)
	if !ok {
		fail(res, "attribute %s is not available as a number", res.Attribute)
		return
	}
	if spec.NonZero {
		res.Expected = "non-zero"
		res.IsCorrect = gotInt != 0
		if !res.IsCorrect {
			res.Diff = &Diff{Summary: "expected a non-zero status, got 0",
				Entries: []DiffEntry{{Path: res.Attribute, Op: "changed", Expected: "non-zero", Actual: gotInt}}}
		}
		return
	}
	want := any(0) // a case that says nothing expects success
	if v, ok := expectedValue(expected, res.Attribute); ok {
		want = v
	}
	res.Expected = want
	wantInt, ok := IntegerValue(want)
	if !ok {
		fail(res, "expected %s must be an integer, got %v", res.Attribute, want)
		return
	}
	res.IsCorrect = gotInt == wantInt
	if !res.IsCorrect {
		res.Diff = &Diff{Summary: fmt.Sprintf("status %d, expected %d", gotInt, wantInt),
			Entries: []DiffEntry{{Path: res.Attribute, Op: "changed", Expected: wantInt, Actual: gotInt}}}
	}
}

// IntegerValue is v as an integer when it is one in any form YAML, JSON
// and Go produce (2, 2.0, 1e3, "2" excluded): what the status check and
// the validation of a case's expected status code accept.
func IntegerValue(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int64:
		return n, true
	case uint64:
		return int64(n), n < 1<<63
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<63 {
			return int64(n), true
		}
	case json.Number:
		if i, err := n.Int64(); err == nil {
			return i, true
		}
		if f, err := n.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<63 {
			return int64(f), true // 2.0, 1e3, as a float64 was taken
		}
	}
	return 0, false
}
