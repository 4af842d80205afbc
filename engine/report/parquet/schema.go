package parquet

import (
	"encoding/json"
	"math"
	"time"

	"github.com/wasmeval/wasmeval/engine/result"
)

// Row is one case in the Parquet file. docs/reports.md documents every
// column; change both together.
type Row struct {
	RunID          string    `parquet:"run_id,dict"`
	Submission     string    `parquet:"submission,dict"`
	Problem        string    `parquet:"problem,dict"`
	ProblemVersion int32     `parquet:"problem_version"`
	Checkpoint     string    `parquet:"checkpoint,dict"`
	Version        int32     `parquet:"version"`
	Group          string    `parquet:"group,dict"`
	Type           string    `parquet:"type,dict"`
	ID             string    `parquet:"id"`
	CaseIndex      int32     `parquet:"case_index"`
	OrigCheckpoint *string   `parquet:"original_checkpoint,optional,dict"`
	OrigGroup      *string   `parquet:"original_group,optional,dict"`
	Timestamp      time.Time `parquet:"timestamp,timestamp(microsecond)"`
	Duration       float64   `parquet:"duration"`
	Score          float64   `parquet:"score"`
	Passed         bool      `parquet:"passed"`
	// Outcome is passed, failed, error or unscored; ErrorKind the part
	// that failed on an error; Unscored why a verifier could not judge.
	Outcome   string  `parquet:"outcome,dict"`
	ErrorKind *string `parquet:"error_kind,optional,dict"`
	Unscored  *string `parquet:"unscored,optional"`
	// Epoch and Attempt say which pass over the cases and which try of
	// the case within it the row is (1 and 1 without --epochs and
	// retries).
	Epoch        int32 `parquet:"epoch"`
	Attempt      int32 `parquet:"attempt"`
	StatusCode   int32 `parquet:"status_code"`
	TimedOut     bool  `parquet:"timed_out"`
	AdapterError bool  `parquet:"adapter_error"`
	// ServerStartup is, for a case of a server's group, how long the
	// server took to answer its health check (null otherwise).
	ServerStartup *float64 `parquet:"server_startup_s,optional"`
	Signal        *string  `parquet:"signal,optional,dict"`
	Error         *string  `parquet:"error,optional"`
	PluginError   *string  `parquet:"plugin_error,optional"`
	// MockCalls are the requests the group's mock services received
	// during the case, as JSON text (an array of abi.MockCall; null when
	// none). MockCallCount counts every request received, the ones not
	// kept (MockCallsDropped) included; MockCallsUnmatched and
	// MockCallsFaulted count the kept calls no route matched and those a
	// mock plugin faulted on — columns of their own, so a query can find
	// such cases without parsing MockCalls.
	// MockError is why the group's mock services could not start.
	MockError          *string `parquet:"mock_error,optional"`
	MockCalls          *string `parquet:"mock_calls,optional"`
	MockCallCount      int32   `parquet:"mock_call_count"`
	MockCallsUnmatched int32   `parquet:"mock_calls_unmatched"`
	MockCallsFaulted   int32   `parquet:"mock_calls_faulted"`
	MockCallsDropped   int32   `parquet:"mock_calls_dropped"`
	// Case is the CaseInfo as JSON text.
	Case *string `parquet:"case,optional"`
	// Instruction is what an agent case asked; Category and Tags classify
	// the case (result.CaseInfo), so analysts can group by them without
	// parsing Case.
	Instruction *string     `parquet:"instruction,optional"`
	Category    *string     `parquet:"category,optional,dict"`
	Tags        []string    `parquet:"tags,list"`
	Apps        []string    `parquet:"apps,list"`
	Attributes  []Attribute `parquet:"attributes,list"`
}

// Attribute is one verdict of a case. Actual, Expected and Diff hold JSON
// text (null when absent), since their shape varies by check.
type Attribute struct {
	Attribute string  `parquet:"attribute,dict"`
	Check     string  `parquet:"check,dict"`
	Actual    string  `parquet:"actual"`
	Expected  string  `parquet:"expected"`
	Diff      string  `parquet:"diff"`
	IsCorrect bool    `parquet:"is_correct"`
	Weight    float64 `parquet:"weight"`
}

// FromRecord converts a case record to a row. It only fails when a value
// cannot be encoded as JSON, which a record read from the journal never has.
func FromRecord(runID, submission string, r *result.CaseRecord) (Row, error) {
	row := Row{
		RunID: runID, Submission: submission,
		Problem: r.Problem, ProblemVersion: int32(r.ProblemVersion),
		Checkpoint: r.Checkpoint, Version: int32(r.Version),
		Group: r.Group, Type: string(r.GroupType), ID: r.ID, CaseIndex: int32(r.Index),
		OrigCheckpoint: optional(r.OriginalCheckpoint), OrigGroup: optional(r.OriginalGroup),
		Timestamp: r.StartedAt.UTC(), Duration: r.Duration, Score: r.Score, Passed: r.Passed,
		Outcome: string(result.OutcomeOf(r)), Unscored: optional(r.Unscored),
		Epoch: int32(max(r.Epoch, 1)), Attempt: int32(max(r.Attempt, 1)),
		StatusCode: int32(r.Result.StatusCode), TimedOut: r.Result.TimedOut, AdapterError: r.Result.AdapterError,
		Signal: optional(r.Result.Signal), Error: optional(r.Result.Error), PluginError: optional(r.Result.PluginError),
		Attributes: make([]Attribute, 0, len(r.Attributes)),
	}
	row.ErrorKind = optional(string(result.ErrorKindOf(r)))
	row.MockError = optional(r.Result.MockError)
	if r.Result.ServerStartup > 0 {
		s := r.Result.ServerStartup
		row.ServerStartup = &s
	}
	if calls := r.Result.MockCalls; len(calls) > 0 {
		c, err := jsonText(calls)
		if err != nil {
			return Row{}, err
		}
		row.MockCalls = &c
		for i := range calls {
			if calls[i].Unmatched {
				row.MockCallsUnmatched++
			}
			if calls[i].Fault != "" {
				row.MockCallsFaulted++
			}
		}
	}
	row.MockCallsDropped = int32(min(max(r.Result.MockCallsDropped, 0), math.MaxInt32-len(r.Result.MockCalls)))
	row.MockCallCount = int32(len(r.Result.MockCalls)) + row.MockCallsDropped
	if r.Case != nil {
		c, err := json.Marshal(r.Case)
		if err != nil {
			return Row{}, err
		}
		s := string(c)
		row.Case = &s
		row.Instruction, row.Category = optional(r.Case.Instruction), optional(r.Case.Category)
		row.Tags, row.Apps = r.Case.Tags, r.Case.Apps
	}
	if row.Tags == nil {
		// An empty list rather than a null one: SQL on tags (unnest,
		// list_contains) then needs no null checks.
		row.Tags = []string{}
	}
	if row.Apps == nil {
		row.Apps = []string{}
	}
	for _, a := range r.Attributes {
		out := Attribute{Attribute: a.Attribute, Check: a.Check, IsCorrect: a.IsCorrect, Weight: a.Weight}
		var err error
		if out.Actual, err = jsonText(a.Actual); err != nil {
			return Row{}, err
		}
		if out.Expected, err = jsonText(a.Expected); err != nil {
			return Row{}, err
		}
		if a.Diff != nil {
			if out.Diff, err = jsonText(a.Diff); err != nil {
				return Row{}, err
			}
		} else {
			out.Diff = "null"
		}
		row.Attributes = append(row.Attributes, out)
	}
	return row, nil
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func jsonText(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}
