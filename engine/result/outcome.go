package result

import "github.com/wasmeval/wasmeval/plugins/abi"

// Outcome is what a finished case counts as. It keeps the submission's
// answers apart from the harness's failures: a wrong answer fails, while a
// case the harness could not judge — the runtime or the adapter failed, a
// plugin faulted, the case could not be loaded — is an error, which never
// counts as the submission's answer (see docs/running.md, "Outcomes").
type Outcome string

const (
	// OutcomePassed: every checked attribute is correct.
	OutcomePassed Outcome = "passed"
	// OutcomeFailed: the submission's answer is wrong — an attribute is
	// incorrect, or it timed out or was killed for its memory (answers,
	// unless the problem says a timeout is an error).
	OutcomeFailed Outcome = "failed"
	// OutcomeError: the harness could not judge the case (ErrorKind says
	// which part failed).
	OutcomeError Outcome = "error"
	// OutcomeUnscored: a verifier or test function said it cannot judge
	// this case; it is left out of every denominator and counted apart.
	OutcomeUnscored Outcome = "unscored"
)

// Outcomes lists every outcome, in report order.
var Outcomes = []Outcome{OutcomePassed, OutcomeFailed, OutcomeError, OutcomeUnscored}

// ErrorKind names the part that failed on an error outcome.
type ErrorKind string

const (
	// ErrorAdapter: the adapter or the runtime under it could not run the
	// case — the submission could not be started, its server could not be
	// reached, its container stopped, an input file could not be written.
	ErrorAdapter ErrorKind = "adapter"
	// ErrorPlugin: a plugin (verifier, evaluator, loader) faulted on the
	// case: a trap, a timeout, its memory cap, a malformed answer.
	ErrorPlugin ErrorKind = "plugin"
	// ErrorLoad: the case could not be loaded (a missing or malformed case
	// file, a loader's error for this case).
	ErrorLoad ErrorKind = "load"
	// ErrorTimeout: the submission timed out on a problem that counts
	// timeouts as errors (timeout_outcome: error).
	ErrorTimeout ErrorKind = "timeout"
	// ErrorMock: a mock service of the group could not start, or a mock
	// plugin faulted on a request of the case (a call with a Fault): the
	// submission was not given the upstream the problem promised, so its
	// answer says nothing about it.
	ErrorMock ErrorKind = "mock"
)

// Classification says how a problem wants borderline executions counted.
type Classification struct {
	// TimeoutIsError counts a timeout of the submission as an error rather
	// than a wrong answer (a problem's `timeout_outcome: error`, for
	// submissions whose speed depends on a shared service).
	TimeoutIsError bool
}

// Classify sets the record's Outcome, ErrorKind and Passed from what ran
// (Result) and the verdicts (Attributes, Score), as every producer of
// records — a run, a resumed run, a rescore — must, so that one rule
// decides every case:
//
//   - a case that could not be loaded is an error (load);
//   - an adapter failure is an error (adapter);
//   - a mock that could not start, or faulted on one of the case's calls,
//     is an error (mock);
//   - a plugin fault is an error (plugin), even when a built-in check
//     failed too: a verdict half-made by a faulty plugin is not an answer;
//   - a timeout fails (or is an error of kind timeout, when the problem
//     says so); an out-of-memory kill and any exit status are answers;
//   - a case every one of whose verdicts is unscored is unscored;
//   - otherwise the case passes when every checked attribute is correct.
func (c Classification) Classify(r *CaseRecord) {
	r.Outcome, r.ErrorKind = c.outcome(r)
	r.Passed = r.Outcome == OutcomePassed
}

func (c Classification) outcome(r *CaseRecord) (Outcome, ErrorKind) {
	if o, kind := c.harness(r); o != "" {
		return o, kind
	}
	if r.Result.TimedOut {
		return OutcomeFailed, ""
	}
	if r.Unscored != "" {
		return OutcomeUnscored, ""
	}
	if _, passed := Score(r.Attributes); passed {
		return OutcomePassed, ""
	}
	return OutcomeFailed, ""
}

// harness is the error outcome of a case the harness could not judge, ""
// when it could.
func (c Classification) harness(r *CaseRecord) (Outcome, ErrorKind) {
	x := &r.Result
	switch {
	case x.AdapterError && r.Case == nil:
		return OutcomeError, ErrorLoad
	case x.MockError != "":
		return OutcomeError, ErrorMock
	case x.AdapterError:
		return OutcomeError, ErrorAdapter
	case MockFault(x.MockCalls) != nil:
		return OutcomeError, ErrorMock
	case x.PluginError != "":
		return OutcomeError, ErrorPlugin
	case x.TimedOut && c.TimeoutIsError:
		return OutcomeError, ErrorTimeout
	}
	return "", ""
}

// OutcomeOf is the record's outcome. Records written before outcomes were
// recorded carry none; theirs is derived from what they do carry — an
// error from the execution's flags, as Classify decides one, and otherwise
// the verdict they recorded (passed), never from their attributes, which a
// reader may not have decoded.
func OutcomeOf(r *CaseRecord) Outcome {
	if r.Outcome != "" {
		return r.Outcome
	}
	if o, _ := (Classification{}).harness(r); o != "" {
		return o
	}
	if r.Passed {
		return OutcomePassed
	}
	return OutcomeFailed
}

// ErrorKindOf is the kind of an errored record; records that predate
// kinds get the one the rule gives them. "" for other outcomes.
func ErrorKindOf(r *CaseRecord) ErrorKind {
	if r.ErrorKind != "" || OutcomeOf(r) != OutcomeError {
		return r.ErrorKind
	}
	_, kind := Classification{}.harness(r)
	return kind
}

// MockFault is the first of calls on which a mock faulted (its plugin
// could not answer), nil when none did.
func MockFault(calls []abi.MockCall) *abi.MockCall {
	for i := range calls {
		if calls[i].Fault != "" {
			return &calls[i]
		}
	}
	return nil
}
