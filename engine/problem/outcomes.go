package problem

import "gopkg.in/yaml.v3"

// What a timeout of the submission counts as (the problem's
// timeout_outcome).
const (
	// TimeoutFails: a timeout is the submission's answer, and fails. The
	// default: a submission that is too slow is wrong.
	TimeoutFails = "failed"
	// TimeoutErrors: a timeout is an error of the harness, retried with
	// --retry-errors and kept out of the pass rate — for submissions whose
	// speed depends on something outside them (a shared model API, a
	// service under load).
	TimeoutErrors = "error"
)

// timeoutOutcome checks the problem's timeout_outcome.
func (l *loader) timeoutOutcome(file string, root *yaml.Node, v string) string {
	return l.oneOf(file, root, "timeout_outcome", "timeout outcome", v,
		choice{TimeoutFails, "a timeout is a wrong answer"},
		choice{TimeoutErrors, "a timeout is an error of the harness, counted apart and retried by --retry-errors"})
}
