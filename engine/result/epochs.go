package result

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Epochs (--epochs K) run every case K times, each time in a fresh
// workspace. A reducer turns a case's K records into the one outcome and
// score its group and checkpoint count. Epochs that ended in an error or
// unscored are left out of the reduction: they are not the submission's
// answers (retry them with --retry-errors). A case whose epochs all ended
// in errors is an error; one whose epochs were all unscored, unscored.

// Reducer names how a case's epochs reduce to one score and verdict.
type Reducer string

// The reducers. pass@k and pass^k take k (Reducer("pass@3")).
const (
	// ReduceMean: the mean score; the case passes when every epoch passed.
	ReduceMean Reducer = "mean"
	// ReduceMin: the lowest score; the case passes when every epoch passed.
	ReduceMin Reducer = "min"
	// ReduceMax: the highest score; the case passes when an epoch passed.
	ReduceMax Reducer = "max"
	// ReduceMode: the most common score (the lower of equally common
	// ones); the case passes when more epochs passed than failed.
	ReduceMode Reducer = "mode"
)

// DefaultReducer is used when none is given.
const DefaultReducer = ReduceMean

// ParseReducer validates a reducer name: mean, min, max, mode, pass@K or
// pass^K with 1 ≤ K ≤ epochs.
func ParseReducer(s string, epochs int) (Reducer, error) {
	switch Reducer(s) {
	case ReduceMean, ReduceMin, ReduceMax, ReduceMode:
		return Reducer(s), nil
	}
	for _, prefix := range []string{"pass@", "pass^"} {
		if rest, ok := strings.CutPrefix(s, prefix); ok {
			k, err := strconv.Atoi(rest)
			if err != nil || k < 1 || k > max(epochs, 1) {
				return "", fmt.Errorf("reducer %q: k must be a whole number from 1 to the number of epochs (%d)", s, max(epochs, 1))
			}
			return Reducer(s), nil
		}
	}
	return "", fmt.Errorf("unknown reducer %q (expected one of: mean, min, max, mode, pass@K, pass^K)", s)
}

// passK splits pass@K and pass^K into their form and k; k is 0 for the
// other reducers.
func (r Reducer) passK() (hat bool, k int) {
	s := string(r)
	for _, prefix := range []string{"pass@", "pass^"} {
		if rest, ok := strings.CutPrefix(s, prefix); ok {
			k, _ = strconv.Atoi(rest)
			return prefix == "pass^", k
		}
	}
	return false, 0
}

// PassAtK is the unbiased estimator of pass@k from n samples of which c
// passed: the chance that at least one of k samples drawn without
// replacement passes, 1 − C(n−c, k)/C(n, k). It is computed as a product,
// which stays exact for large n.
func PassAtK(n, c, k int) float64 {
	if k < 1 || k > n || c < 0 || c > n {
		return math.NaN()
	}
	if n-c < k {
		return 1
	}
	p := 1.0
	for i := n - c + 1; i <= n; i++ {
		p *= 1 - float64(k)/float64(i)
	}
	return 1 - p
}

// PassHatK is the unbiased estimator of pass^k from n samples of which c
// passed: the chance that all of k samples drawn without replacement
// pass, C(c, k)/C(n, k).
func PassHatK(n, c, k int) float64 {
	if k < 1 || k > n || c < 0 || c > n {
		return math.NaN()
	}
	p := 1.0
	for i := 0; i < k; i++ {
		p *= float64(c-i) / float64(n-i)
	}
	return max(p, 0)
}

// Epochs is what a case's epochs came to, as a reducer sees them.
type Epochs struct {
	// Judged lists the scores of the epochs that passed or failed, in
	// epoch order, and Passed how many of them passed.
	Judged []float64
	Passed int
	// Errors and Unscored count the other epochs.
	Errors, Unscored int
}

// Add counts one epoch's record.
func (e *Epochs) Add(r *CaseRecord) {
	switch OutcomeOf(r) {
	case OutcomePassed:
		e.Judged = append(e.Judged, r.Score)
		e.Passed++
	case OutcomeFailed:
		e.Judged = append(e.Judged, r.Score)
	case OutcomeError:
		e.Errors++
	case OutcomeUnscored:
		e.Unscored++
	}
}

// Flaky says whether the judged epochs disagree: some passed, some
// failed.
func (e *Epochs) Flaky() bool { return e.Passed > 0 && e.Passed < len(e.Judged) }

// Reduce is the case's outcome and score under r.
func (e *Epochs) Reduce(r Reducer) (Outcome, float64) {
	n := len(e.Judged)
	switch {
	case n == 0 && e.Errors > 0:
		return OutcomeError, 0
	case n == 0:
		return OutcomeUnscored, 0
	}
	verdict := func(pass bool) Outcome {
		if pass {
			return OutcomePassed
		}
		return OutcomeFailed
	}
	all, any := e.Passed == n, e.Passed > 0
	if hat, k := r.passK(); k > 0 {
		// Epochs left out of the reduction may leave fewer than k.
		k = min(k, n)
		v := PassAtK(n, e.Passed, k)
		if hat {
			v = PassHatK(n, e.Passed, k)
		}
		return verdict(v >= 1), v
	}
	switch r {
	case ReduceMin:
		return verdict(all), slices.Min(e.Judged)
	case ReduceMax:
		return verdict(any), slices.Max(e.Judged)
	case ReduceMode:
		return verdict(2*e.Passed > n), mode(e.Judged)
	}
	sum := 0.0
	for _, s := range e.Judged {
		sum += s
	}
	return verdict(all), sum / float64(n)
}

// mode is the most common value, the lower of equally common ones.
func mode(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	best, bestN := s[0], 0
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] == s[i] {
			j++
		}
		if j-i > bestN {
			best, bestN = s[i], j-i
		}
		i = j
	}
	return best
}
