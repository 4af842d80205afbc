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

// Counts holds passed and total cases per group type.
type Counts struct {
	Passed map[problem.GroupType]int `json:"pass_counts"`
	Total  map[problem.GroupType]int `json:"total_counts"`
}

// NewCounts returns zeroed counts.
func NewCounts() Counts {
	return Counts{Passed: map[problem.GroupType]int{}, Total: map[problem.GroupType]int{}}
}

// Add counts one case.
func (c Counts) Add(t problem.GroupType, passed bool) {
	c.Total[t]++
	if passed {
		c.Passed[t]++
	}
}

// Merge adds other into c.
func (c Counts) Merge(other Counts) {
	for t, n := range other.Total {
		c.Total[t] += n
	}
	for t, n := range other.Passed {
		c.Passed[t] += n
	}
}

// Check evaluates the policy.
//
//   - any: always passes (the run itself is the result).
//   - any-case: at least one case passed.
//   - all-cases: every case passed.
//   - all-non-error-cases: every case outside Error groups passed.
//   - core-cases, all-core-cases: every Core case passed.
//   - any-core-cases: at least one Core case passed.
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
