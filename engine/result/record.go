// Package result defines the record of one finished case — what the journal
// stores, what summaries count and what later reports (Parquet, HTML) read —
// and how a case is scored from its attribute verdicts.
package result

import (
	"time"

	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/verify"
	"github.com/wasmeval/wasmeval/plugins/abi"
)

// CaseRecord is one finished case. It is self-contained: a reader needs
// nothing else to know what ran, what came out and what the verdict was.
type CaseRecord struct {
	Problem        string            `json:"problem"`
	ProblemVersion int               `json:"problem_version"`
	Checkpoint     string            `json:"checkpoint"`
	Version        int               `json:"version"`
	Group          string            `json:"group"`
	GroupType      problem.GroupType `json:"group_type"`
	ID             string            `json:"id"`
	// Epoch is which of the run's passes over the cases this record
	// belongs to (1 for a run without --epochs), and Attempt which try of
	// the case within its epoch (more than 1 only when errors are
	// retried). 0 in records that predate them means 1. They follow the
	// id, so a journal reader finds them in a record's first keys (see
	// journal.Head).
	Epoch   int `json:"epoch,omitempty"`
	Attempt int `json:"attempt,omitempty"`
	// Index is the case's position in its group, for stable ordering.
	Index              int    `json:"index"`
	OriginalCheckpoint string `json:"original_checkpoint,omitempty"`
	OriginalGroup      string `json:"original_group,omitempty"`

	StartedAt time.Time `json:"started_at"`
	Duration  float64   `json:"duration_s"`

	// Case is what the case gave the submission; nil for a case that
	// could not be loaded.
	Case *CaseInfo `json:"case,omitempty"`

	Result Execution `json:"result"`

	Attributes []verify.AttributeResult `json:"attributes"`
	Score      float64                  `json:"score"`
	// Passed is Outcome == OutcomePassed, kept for readers of journals
	// and summaries that predate outcomes.
	Passed bool `json:"passed"`

	// Outcome is what the case counts as (see Classification.Classify);
	// ErrorKind says which part failed on an error. Records written
	// before outcomes were recorded have neither: read OutcomeOf.
	Outcome   Outcome   `json:"outcome,omitempty"`
	ErrorKind ErrorKind `json:"error_kind,omitempty"`
	// Unscored is why a verifier could not judge the case, when it said
	// so; the case is then unscored.
	Unscored string `json:"unscored,omitempty"`
}

// Execution is the adapter's view of what the submission did.
type Execution struct {
	Command    []string `json:"command,omitempty"`
	StatusCode int      `json:"status_code"`
	Output     string   `json:"output"`
	Stderr     string   `json:"stderr"`
	// OutputDropped/StderrDropped count bytes cut at the output cap.
	OutputDropped int64          `json:"output_dropped,omitempty"`
	StderrDropped int64          `json:"stderr_dropped,omitempty"`
	Elapsed       float64        `json:"elapsed_s"`
	TimedOut      bool           `json:"timed_out"`
	Signal        string         `json:"signal,omitempty"`
	Files         map[string]any `json:"files,omitempty"`
	// Headers are an API case's response headers (lower-case names).
	Headers map[string]string `json:"headers,omitempty"`
	// Artifacts are files kept for the case (server logs, screenshots),
	// relative to the run's output directory.
	Artifacts []string `json:"artifacts,omitempty"`
	// ServerStartup is, for a case of a server's group (api, browser, an
	// agent served over HTTP), how many seconds the server took from its
	// start to its first answer to the health check; 0 when there is no
	// server or it never answered.
	ServerStartup float64 `json:"server_startup_s,omitempty"`
	// MockCalls are the requests the group's mock services received
	// during the case, in order: the first mock.MaxCalls of them, with
	// MockCallsDropped counting the rest.
	MockCalls        []abi.MockCall `json:"mock_calls,omitempty"`
	MockCallsDropped int            `json:"mock_calls_dropped,omitempty"`
	// MockError says why the group's mock services could not start: the
	// case did not run, and is an error of the mock.
	MockError string `json:"mock_error,omitempty"`
	// AdapterError is set when the adapter itself failed (could not start
	// the submission, could not write an input file…); Error says why.
	AdapterError bool   `json:"adapter_error"`
	Error        string `json:"error,omitempty"`
	// PluginError says which plugin failed on this case and how (trap,
	// timeout, bad envelope…); the case fails, the run goes on.
	PluginError string `json:"plugin_error,omitempty"`
	// OOMKilled is set when the runtime's memory limit killed the process.
	OOMKilled bool `json:"oom_killed,omitempty"`
	// Agent says Output is an agent's result JSON (see engine/agent), so
	// reports can show it as a transcript.
	Agent bool `json:"agent,omitempty"`
}

// Key identifies the case within a run: checkpoint/group/id, escaped so
// that no two cases share a key whatever their names hold (see
// problem.CaseKey). It is derived, never stored, so journals written
// before it was escaped resume with it unchanged.
func (r *CaseRecord) Key() string { return problem.CaseKey(r.Checkpoint, r.Group, r.ID) }

// Score computes a case's score and verdict from its attributes: the score is
// the weighted mean of correct attributes; the case passes only when every
// verified attribute is correct (and at least one was verified).
func Score(attrs []verify.AttributeResult) (score float64, passed bool) {
	var total, got float64
	passed = len(attrs) > 0
	for _, a := range attrs {
		total += a.Weight
		if a.IsCorrect {
			got += a.Weight
		} else {
			passed = false
		}
	}
	if total > 0 {
		score = got / total
	} else if passed {
		score = 1
	}
	return score, passed
}
