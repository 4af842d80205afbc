package taskspecs

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"

	"github.com/wasmeval/wasmeval/engine/agent"
	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/report/runfile"
	"github.com/wasmeval/wasmeval/engine/result"
)

// SummariesDir holds, under a run directory, one summary.json per task:
// summaries/<tool>/<id>/summary.json.
const SummariesDir = "summaries"

// Summary is the `results` a task's summary.json adds to its spec, in
// the shape the benchmarks' harnesses write.
type Summary struct {
	// Score is the evaluation's score in [0,1], or -1 when the
	// evaluation could not run (EvalError says why).
	Score     float64 `json:"score"`
	EvalError string  `json:"eval_error,omitempty"`
	// ErrorLogPath is the run's log, where plugins' and the engine's
	// messages about the task are, when it has an error.
	ErrorLogPath string `json:"error_log_path,omitempty"`
	// Output is the agent's answer.
	Output string `json:"output"`
	// State is how the task ended: success, fail, infra_error (setup or
	// the agent's process), timeout_error, max_steps_error, eval_error.
	State       string  `json:"state"`
	Messages    any     `json:"messages"`
	TotalTokens int64   `json:"total_tokens"`
	TotalTiming float64 `json:"total_timing"`
}

// WriteSummaries writes summary.json for every task of the run in
// runDir (the last attempt of each), each file written whole or not at
// all.
func (s *Suite) WriteSummaries(runDir string) error {
	return report.EachCase(runDir, func(r *result.CaseRecord) error {
		spec, ok := s.Specs[r.ID]
		if !ok {
			return nil
		}
		doc := map[string]any{}
		for k, v := range spec.Raw {
			doc[k] = v
		}
		doc["results"] = summarise(r, filepath.Join(runDir, "run.log"))
		path := filepath.Join(runDir, SummariesDir, r.Group, r.ID, "summary.json")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		return runfile.Write(path, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(doc)
		})
	})
}

// summarise is a record as summary.json's results.
func summarise(r *result.CaseRecord, log string) Summary {
	out := Summary{Score: r.Score, State: "success", Messages: []any{}}
	if r.Outcome != result.OutcomePassed {
		out.State = "fail"
	}
	for _, a := range r.Attributes {
		if a.Attribute == "evaluation" {
			if v, ok := number(a.Actual); ok {
				out.Score = v
			}
		}
	}
	if run, err := agent.Parse([]byte(r.Result.Output), agent.Options{}); err == nil && r.Result.Agent {
		out.Output = report.AnswerText(run.Answer().Value)
		if run.Usage != nil {
			out.TotalTokens = run.Usage.TotalTokens
		}
		var raw struct {
			Conversation []any `json:"conversation"`
		}
		if json.Unmarshal([]byte(r.Result.Output), &raw) == nil && raw.Conversation != nil {
			out.Messages = raw.Conversation
		}
		switch run.Status {
		case "max_steps", "max_iterations", "max_steps_error":
			out.State = "max_steps_error"
		}
	}
	out.TotalTiming = r.Result.Elapsed
	if r.Outcome == result.OutcomeError {
		out.Score = -1
		out.ErrorLogPath = log
		// In the order the record's error kind is decided: a setup or an
		// agent that gave no result is the error even when the evaluation,
		// run on what the agent left, faulted too.
		switch {
		case r.Result.AdapterError:
			out.State, out.EvalError = "infra_error", r.Result.Error
		case r.Result.PluginError != "":
			out.State, out.EvalError = "eval_error", r.Result.PluginError
		case r.Result.TimedOut:
			out.State, out.EvalError = "timeout_error", "the agent did not finish in time"
		default:
			out.State, out.EvalError = "infra_error", r.Result.Error
		}
	}
	return out
}
