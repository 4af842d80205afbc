package result

import (
	"fmt"
	"strings"

	"github.com/wasmeval/wasmeval/engine/problem"
)

// Policy decides whether a checkpoint passes from its per-group-type counts.
type Policy string

const (
	PolicyAny              Policy = "any"
	PolicyAnyCase          Policy = "any-case"
	PolicyAllCases         Policy = "all-cases"
	PolicyAllNonErrorCases Policy = "all-non-error-cases"
	PolicyCoreCases        Policy = "core-cases"
	PolicyAnyCoreCases     Policy = "any-core-cases"
	PolicyAllCoreCases     Policy = "all-core-cases"
)

// DefaultPolicy is used when none is given.
const DefaultPolicy = PolicyCoreCases

// Policies lists every policy.
var Policies = []Policy{PolicyAny, PolicyAnyCase, PolicyAllCases, PolicyAllNonErrorCases,
	PolicyCoreCases, PolicyAnyCoreCases, PolicyAllCoreCases}

// ParsePolicy validates a policy name.
func ParsePolicy(s string) (Policy, error) {
	for _, p := range Policies {
		if string(p) == s {
			return p, nil
		}
	}
	names := make([]string, len(Policies))
	for i, p := range Policies {
		names[i] = string(p)
	}
	return "", fmt.Errorf("unknown pass policy %q (expected one of: %s)", s, strings.Join(names, ", "))
}

// Counts holds, per group type, the cases that passed, those that ended
// in an error, and every case that counts (passed, failed or error;
// unscored cases count nowhere).
type Counts struct {
	Passed map[problem.GroupType]int `json:"pass_counts"`
	Errors map[problem.GroupType]int `json:"error_counts"`
	Total  map[problem.GroupType]int `json:"total_counts"`
}

// NewCounts returns zeroed counts.
func NewCounts() Counts {
	return Counts{Passed: map[problem.GroupType]int{}, Errors: map[problem.GroupType]int{}, Total: map[problem.GroupType]int{}}
}

// Add counts one case of the given outcome.
func (c Counts) Add(t problem.GroupType, o Outcome) {
	switch o {
	case OutcomeUnscored:
		return
	case OutcomePassed:
		c.Passed[t]++
	case OutcomeError:
		c.Errors[t]++
	}
	c.Total[t]++
}

// Verdict is a checkpoint's result under its pass policy.
type Verdict string

const (
	// VerdictPassed: the policy holds, whatever the errored cases would
	// have been.
	VerdictPassed Verdict = "passed"
	// VerdictFailed: the policy fails, whatever the errored cases would
	// have been.
	VerdictFailed Verdict = "failed"
	// VerdictInconclusive: the errored cases decide it — the policy holds
	// if they had passed and fails if they had failed — or a group could
	// not run. The submission was not judged; retry the errors.
	VerdictInconclusive Verdict = "inconclusive"
	// VerdictIncomplete: the run was interrupted before the checkpoint's
	// cases finished.
	VerdictIncomplete Verdict = "incomplete"
)

// ErrorPolicy says how cases that ended in an error count toward a
// checkpoint's verdict.
type ErrorPolicy string

const (
	// ErrorsInconclusive (the default): a checkpoint whose verdict the
	// errors decide is inconclusive, neither passed nor failed.
	ErrorsInconclusive ErrorPolicy = "inconclusive"
	// ErrorsFail: an error counts as a failed case.
	ErrorsFail ErrorPolicy = "fail"
	// ErrorsIgnore: errored cases are left out, as if they had not been
	// part of the checkpoint.
	ErrorsIgnore ErrorPolicy = "ignore"
)

// DefaultErrorPolicy is used when none is given.
const DefaultErrorPolicy = ErrorsInconclusive

// ErrorPolicies lists every error policy.
var ErrorPolicies = []ErrorPolicy{ErrorsInconclusive, ErrorsFail, ErrorsIgnore}

// ParseErrorPolicy validates an error policy name.
func ParseErrorPolicy(s string) (ErrorPolicy, error) {
	for _, p := range ErrorPolicies {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown error policy %q (expected one of: inconclusive — errors that decide a checkpoint make it inconclusive, the default; fail — an error counts as a failed case; ignore — errored cases are left out)", s)
}

// Decide is the checkpoint's verdict: the pass policy applied to the
// counts, with errored cases counted as the error policy says. Under
// ErrorsInconclusive the policy is checked twice, once as if every errored
// case had passed and once as if every one had failed: when the two agree
// that is the verdict, and otherwise the errors decide it and the
// checkpoint is inconclusive.
func (p Policy) Decide(c Counts, errs ErrorPolicy) Verdict {
	asFailed := p.Check(c)
	switch errs {
	case ErrorsFail:
		return verdictOf(asFailed)
	case ErrorsIgnore:
		return verdictOf(p.Check(c.without()))
	}
	asPassed := p.Check(c.errorsPassed())
	if asFailed == asPassed {
		return verdictOf(asFailed)
	}
	return VerdictInconclusive
}

func verdictOf(passed bool) Verdict {
	if passed {
		return VerdictPassed
	}
	return VerdictFailed
}

// without is c with the errored cases left out.
func (c Counts) without() Counts {
	out := NewCounts()
	for t, n := range c.Total {
		out.Total[t] = n - c.Errors[t]
	}
	for t, n := range c.Passed {
		out.Passed[t] = n
	}
	return out
}

// errorsPassed is c with every errored case counted as passed.
func (c Counts) errorsPassed() Counts {
	out := NewCounts()
	for t, n := range c.Total {
		out.Total[t] = n
	}
	for t := range c.Total {
		out.Passed[t] = c.Passed[t] + c.Errors[t]
	}
	return out
}

// Check evaluates the policy, counting errored cases as failed.
//
//   - any: always passes (the run itself is the result).
//   - any-case: at least one case passed.
//   - all-cases: every case passed.
//   - all-non-error-cases: every case outside Error groups passed.
//   - core-cases, all-core-cases: every Core case passed.
//   - any-core-cases: at least one Core case passed.
//
// ("Error groups" are the problem's group type Error: cases that test how
// the submission handles bad input. They have nothing to do with the
// error outcome of a case.)
//
// Policies about Core cases fail when there are no Core cases at all: a
// checkpoint whose Core groups are missing or empty is a broken problem,
// and passing it vacuously would hide that. Likewise all-cases and
// all-non-error-cases fail on zero cases.
func (p Policy) Check(c Counts) bool {
	var corePassed, coreTotal, nonErrPassed, nonErrTotal, passed, total int
	for _, t := range problem.GroupTypes {
		if t == problem.Core {
			corePassed += c.Passed[t]
			coreTotal += c.Total[t]
		}
		if t != problem.Error {
			nonErrPassed += c.Passed[t]
			nonErrTotal += c.Total[t]
		}
		passed += c.Passed[t]
		total += c.Total[t]
	}
	switch p {
	case PolicyAnyCase:
		return passed > 0
	case PolicyAllCases:
		return total > 0 && passed == total
	case PolicyAllNonErrorCases:
		return nonErrTotal > 0 && nonErrPassed == nonErrTotal
	case PolicyCoreCases, PolicyAllCoreCases:
		return coreTotal > 0 && corePassed == coreTotal
	case PolicyAnyCoreCases:
		return corePassed > 0
	default:
		return true
	}
}

// Counted says which group types the policy looks at: a summary says when
// cases of other types failed, since they do not change the verdict.
func (p Policy) Counted(t problem.GroupType) bool {
	switch p {
	case PolicyAllNonErrorCases:
		return t != problem.Error
	case PolicyCoreCases, PolicyAllCoreCases, PolicyAnyCoreCases:
		return t == problem.Core
	case PolicyAny:
		return false
	}
	return true
}
