package result

import (
	"math"
	"testing"
)

// binomial is C(n, k), exactly, for the small tables below.
func binomial(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return math.Round(r)
}

// The estimators agree with their closed forms, 1 − C(n−c,k)/C(n,k) and
// C(c,k)/C(n,k), on every small table.
func TestPassAtKIsTheClosedForm(t *testing.T) {
	for n := 1; n <= 12; n++ {
		for c := 0; c <= n; c++ {
			for k := 1; k <= n; k++ {
				at := 1 - binomial(n-c, k)/binomial(n, k)
				hat := binomial(c, k) / binomial(n, k)
				if got := PassAtK(n, c, k); math.Abs(got-at) > 1e-12 {
					t.Errorf("pass@%d with %d of %d: %v, want %v", k, c, n, got, at)
				}
				if got := PassHatK(n, c, k); math.Abs(got-hat) > 1e-12 {
					t.Errorf("pass^%d with %d of %d: %v, want %v", k, c, n, got, hat)
				}
			}
		}
	}
	// Known values: HumanEval's pass@1 is c/n; one pass in 5 gives
	// pass@2 = 1 − C(4,2)/C(5,2) = 0.4.
	if got := PassAtK(5, 1, 2); math.Abs(got-0.4) > 1e-12 {
		t.Errorf("pass@2 with 1 of 5: %v", got)
	}
	if got := PassAtK(10, 3, 1); math.Abs(got-0.3) > 1e-12 {
		t.Errorf("pass@1 with 3 of 10: %v", got)
	}
	if !math.IsNaN(PassAtK(3, 1, 4)) || !math.IsNaN(PassHatK(3, 4, 1)) {
		t.Error("k over n, or c over n, must have no value")
	}
}

func TestReducers(t *testing.T) {
	epochs := func(outcomes ...string) *Epochs {
		e := &Epochs{}
		for _, o := range outcomes {
			r := &CaseRecord{Outcome: Outcome(o)}
			switch o {
			case "passed":
				r.Score = 1
			case "failed":
				r.Score = 0.5
			}
			e.Add(r)
		}
		return e
	}
	mixed := epochs("passed", "failed", "error", "passed", "unscored") // 3 judged, 2 passed
	tests := []struct {
		r       Reducer
		e       *Epochs
		outcome Outcome
		score   float64
	}{
		{ReduceMean, mixed, OutcomeFailed, 2.5 / 3},
		{ReduceMin, mixed, OutcomeFailed, 0.5},
		{ReduceMax, mixed, OutcomePassed, 1},
		{ReduceMode, mixed, OutcomePassed, 1},
		{ReduceMode, epochs("passed", "failed"), OutcomeFailed, 0.5}, // a tie: not more passes than failures; the lower score
		{"pass@2", mixed, OutcomePassed, 1},                          // any two of three include a pass
		{"pass@1", mixed, OutcomeFailed, 2.0 / 3},
		{"pass^2", mixed, OutcomeFailed, 1.0 / 3},
		{"pass^3", epochs("passed", "passed", "passed"), OutcomePassed, 1},
		{"pass@5", mixed, OutcomePassed, 1}, // k over the judged epochs: all of them
		{ReduceMean, epochs("error", "error"), OutcomeError, 0},
		{ReduceMean, epochs("error", "unscored"), OutcomeError, 0},
		{ReduceMean, epochs("unscored"), OutcomeUnscored, 0},
	}
	for _, tt := range tests {
		o, s := tt.e.Reduce(tt.r)
		if o != tt.outcome || math.Abs(s-tt.score) > 1e-12 {
			t.Errorf("%s of %+v: %s %v, want %s %v", tt.r, *tt.e, o, s, tt.outcome, tt.score)
		}
	}
	if !mixed.Flaky() || epochs("passed", "error", "passed").Flaky() || epochs("failed", "failed").Flaky() {
		t.Error("flaky: some judged epochs passed and some failed, errors aside")
	}
	for _, bad := range []string{"median", "pass@0", "pass@6", "pass@x", "pass^"} {
		if _, err := ParseReducer(bad, 5); err == nil {
			t.Errorf("reducer %q accepted", bad)
		}
	}
	for _, good := range []string{"mean", "mode", "pass@5", "pass^1"} {
		if _, err := ParseReducer(good, 5); err != nil {
			t.Errorf("reducer %q: %v", good, err)
		}
	}
}
