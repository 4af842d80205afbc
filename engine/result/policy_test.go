package result

import (
	"testing"

	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/verify"
)

func counts(pairs ...any) Counts {
	c := NewCounts()
	for i := 0; i < len(pairs); i += 3 {
		t := pairs[i].(problem.GroupType)
		c.Passed[t] = pairs[i+1].(int)
		c.Total[t] = pairs[i+2].(int)
	}
	return c
}

func TestPolicies(t *testing.T) {
	allPass := counts(problem.Core, 2, 2, problem.Functionality, 3, 3, problem.Error, 1, 1)
	errorFails := counts(problem.Core, 2, 2, problem.Functionality, 3, 3, problem.Error, 0, 1)
	funcFails := counts(problem.Core, 2, 2, problem.Functionality, 1, 3)
	coreFails := counts(problem.Core, 1, 2, problem.Functionality, 3, 3)
	nothing := counts(problem.Core, 0, 2, problem.Error, 0, 1)
	noCore := counts(problem.Functionality, 3, 3)
	empty := NewCounts()

	tests := []struct {
		policy Policy
		want   []bool // allPass, errorFails, funcFails, coreFails, nothing, noCore, empty
	}{
		{PolicyAny, []bool{true, true, true, true, true, true, true}},
		{PolicyAnyCase, []bool{true, true, true, true, false, true, false}},
		{PolicyAllCases, []bool{true, false, false, false, false, true, false}},
		{PolicyAllNonErrorCases, []bool{true, true, false, false, false, true, false}},
		{PolicyCoreCases, []bool{true, true, true, false, false, false, false}},
		{PolicyAllCoreCases, []bool{true, true, true, false, false, false, false}},
		{PolicyAnyCoreCases, []bool{true, true, true, true, false, false, false}},
	}
	inputs := []Counts{allPass, errorFails, funcFails, coreFails, nothing, noCore, empty}
	for _, tt := range tests {
		for i, in := range inputs {
			if got := tt.policy.Check(in); got != tt.want[i] {
				t.Errorf("%s on input %d: got %v want %v", tt.policy, i, got, tt.want[i])
			}
		}
	}
	if _, err := ParsePolicy("most-cases"); err == nil {
		t.Error("unknown policy accepted")
	}
}

func TestScore(t *testing.T) {
	attrs := []verify.AttributeResult{
		{Attribute: "status_code", IsCorrect: true, Weight: 0.2},
		{Attribute: "output", IsCorrect: false, Weight: 0.8},
	}
	score, passed := Score(attrs)
	if passed || score < 0.1999 || score > 0.2001 {
		t.Fatalf("score %v passed %v", score, passed)
	}
	attrs[1].IsCorrect = true
	if score, passed = Score(attrs); !passed || score != 1 {
		t.Fatalf("score %v passed %v", score, passed)
	}
	if _, passed = Score(nil); passed {
		t.Fatal("a case with nothing verified must not pass")
	}
}
