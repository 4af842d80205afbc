package result

import (
	"testing"

	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/verify"
	"github.com/wasmeval/wasmeval/plugins/abi"
)

// mockCalls is one call of mock "m" per fault given ("" for a call
// answered well).
func mockCalls(faults ...string) []abi.MockCall {
	var out []abi.MockCall
	for _, f := range faults {
		out = append(out, abi.MockCall{Mock: "m", Method: "GET", Path: "/", Status: 200, Fault: f})
		if f != "" {
			out[len(out)-1].Status = 500
		}
	}
	return out
}

// Every path a finished case can take gets the outcome docs/running.md
// lists for it.
func TestClassify(t *testing.T) {
	right := []verify.AttributeResult{{Attribute: "output", IsCorrect: true, Weight: 1}}
	wrong := []verify.AttributeResult{{Attribute: "output", Weight: 1}}
	info := &CaseInfo{Arguments: []string{}}
	tests := []struct {
		name    string
		rec     CaseRecord
		c       Classification
		outcome Outcome
		kind    ErrorKind
	}{
		{"correct answer", CaseRecord{Case: info, Attributes: right}, Classification{}, OutcomePassed, ""},
		{"wrong answer", CaseRecord{Case: info, Attributes: wrong}, Classification{}, OutcomeFailed, ""},
		{"nothing checked", CaseRecord{Case: info}, Classification{}, OutcomeFailed, ""},
		{"non-zero exit that matches", CaseRecord{Case: info, Result: Execution{StatusCode: 3}, Attributes: right}, Classification{}, OutcomePassed, ""},
		{"killed for its memory", CaseRecord{Case: info, Result: Execution{StatusCode: 137, OOMKilled: true}, Attributes: wrong}, Classification{}, OutcomeFailed, ""},
		{"timeout", CaseRecord{Case: info, Result: Execution{TimedOut: true}, Attributes: right}, Classification{}, OutcomeFailed, ""},
		{"timeout counted as error", CaseRecord{Case: info, Result: Execution{TimedOut: true}, Attributes: right}, Classification{TimeoutIsError: true}, OutcomeError, ErrorTimeout},
		{"adapter failure", CaseRecord{Case: info, Result: Execution{AdapterError: true}, Attributes: right}, Classification{}, OutcomeError, ErrorAdapter},
		{"case not loaded", CaseRecord{Result: Execution{AdapterError: true}}, Classification{}, OutcomeError, ErrorLoad},
		{"plugin fault beside a wrong answer", CaseRecord{Case: info, Result: Execution{PluginError: "trap"}, Attributes: wrong}, Classification{}, OutcomeError, ErrorPlugin},
		{"plugin fault before a timeout", CaseRecord{Case: info, Result: Execution{PluginError: "trap", TimedOut: true}}, Classification{}, OutcomeError, ErrorPlugin},
		{"mock fault beside a right answer", CaseRecord{Case: info, Result: Execution{MockCalls: mockCalls("", "trap")}, Attributes: right}, Classification{}, OutcomeError, ErrorMock},
		{"mock fault beside a plugin fault", CaseRecord{Case: info, Result: Execution{PluginError: "trap", MockCalls: mockCalls("trap")}}, Classification{}, OutcomeError, ErrorMock},
		{"unmatched mock call", CaseRecord{Case: info, Result: Execution{MockCalls: []abi.MockCall{{Mock: "m", Status: 501, Route: -1, Unmatched: true}}}, Attributes: right}, Classification{}, OutcomePassed, ""},
		{"unscored", CaseRecord{Case: info, Unscored: "no reference answer", Attributes: right}, Classification{}, OutcomeUnscored, ""},
		{"timeout beats unscored", CaseRecord{Case: info, Unscored: "x", Result: Execution{TimedOut: true}}, Classification{}, OutcomeFailed, ""},
	}
	for _, tt := range tests {
		r := tt.rec
		tt.c.Classify(&r)
		if r.Outcome != tt.outcome || r.ErrorKind != tt.kind {
			t.Errorf("%s: got %s/%s, want %s/%s", tt.name, r.Outcome, r.ErrorKind, tt.outcome, tt.kind)
		}
		if r.Passed != (tt.outcome == OutcomePassed) {
			t.Errorf("%s: passed %v with outcome %s", tt.name, r.Passed, r.Outcome)
		}
	}
}

// A record from before outcomes were recorded gets one from what it does
// carry, and never passes unless it said it passed.
func TestOutcomeOfOldRecords(t *testing.T) {
	right := []verify.AttributeResult{{Attribute: "output", IsCorrect: true, Weight: 1}}
	tests := []struct {
		rec  CaseRecord
		want Outcome
	}{
		{CaseRecord{Case: &CaseInfo{}, Attributes: right, Passed: true}, OutcomePassed},
		{CaseRecord{Case: &CaseInfo{}, Attributes: right, Passed: false}, OutcomeFailed},
		{CaseRecord{Case: &CaseInfo{}, Result: Execution{PluginError: "trap"}}, OutcomeError},
		{CaseRecord{Result: Execution{AdapterError: true}}, OutcomeError},
		{CaseRecord{Outcome: OutcomeUnscored}, OutcomeUnscored},
		{CaseRecord{Case: &CaseInfo{}, Attributes: right, Passed: true, Result: Execution{MockCalls: mockCalls("trap")}}, OutcomeError},
	}
	for i, tt := range tests {
		if got := OutcomeOf(&tt.rec); got != tt.want {
			t.Errorf("record %d: %s, want %s", i, got, tt.want)
		}
	}
}

// Errors never decide a verdict they could not change; where they could,
// the default makes the checkpoint inconclusive, and the other error
// policies count them as failed or leave them out.
func TestDecideWithErrors(t *testing.T) {
	withErrors := func(passed, errs, total int, other ...int) Counts {
		c := NewCounts()
		c.Passed[problem.Core], c.Errors[problem.Core], c.Total[problem.Core] = passed, errs, total
		if len(other) == 2 {
			c.Passed[problem.Error], c.Total[problem.Error] = other[0], other[1]
		}
		return c
	}
	tests := []struct {
		name   string
		policy Policy
		c      Counts
		want   map[ErrorPolicy]Verdict
	}{
		{"no errors, all pass", PolicyCoreCases, withErrors(3, 0, 3),
			map[ErrorPolicy]Verdict{ErrorsInconclusive: VerdictPassed, ErrorsFail: VerdictPassed, ErrorsIgnore: VerdictPassed}},
		{"errors decide", PolicyCoreCases, withErrors(2, 1, 3),
			map[ErrorPolicy]Verdict{ErrorsInconclusive: VerdictInconclusive, ErrorsFail: VerdictFailed, ErrorsIgnore: VerdictPassed}},
		{"a failure whatever the errors", PolicyCoreCases, withErrors(1, 1, 3),
			map[ErrorPolicy]Verdict{ErrorsInconclusive: VerdictFailed, ErrorsFail: VerdictFailed, ErrorsIgnore: VerdictFailed}},
		{"errors only in a type the policy ignores", PolicyCoreCases, withErrors(3, 0, 3, 0, 2),
			map[ErrorPolicy]Verdict{ErrorsInconclusive: VerdictPassed, ErrorsFail: VerdictPassed, ErrorsIgnore: VerdictPassed}},
		{"any-case passes whatever the errors", PolicyAnyCase, withErrors(1, 2, 3),
			map[ErrorPolicy]Verdict{ErrorsInconclusive: VerdictPassed, ErrorsFail: VerdictPassed, ErrorsIgnore: VerdictPassed}},
		{"every case errored", PolicyCoreCases, withErrors(0, 3, 3),
			map[ErrorPolicy]Verdict{ErrorsInconclusive: VerdictInconclusive, ErrorsFail: VerdictFailed, ErrorsIgnore: VerdictFailed}},
	}
	for _, tt := range tests {
		for ep, want := range tt.want {
			if got := tt.policy.Decide(tt.c, ep); got != want {
				t.Errorf("%s under %s/%s: %s, want %s", tt.name, tt.policy, ep, got, want)
			}
		}
	}
	if _, err := ParseErrorPolicy("retry"); err == nil {
		t.Error("unknown error policy accepted")
	}
}
