package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/wasmeval/wasmeval/engine/result"
)

// JSONReport is `wasmeval report --format json`.
type JSONReport struct {
	RunInfo
	Cases       int  `json:"cases"`
	CasesPassed int  `json:"cases_passed"`
	Passed      bool `json:"passed"`
	// ByCategory counts the run's cases by category, across checkpoints;
	// omitted when no case has a category.
	ByCategory map[string]*CategoryCounts `json:"by_category,omitempty"`
	// ByTag counts them by tag (see CheckpointSummary.ByTag).
	ByTag       map[string]*CategoryCounts `json:"by_tag,omitempty"`
	Checkpoints []*CheckpointSummary       `json:"checkpoints"`
	// Failures, written after the rest (streamed from the journal), lists
	// every case that failed or ended in an error with why: see
	// JSONFailure.
}

// JSONFailure is a case that did not pass, in the JSON report's
// "failures": where it is, its outcome and status, and why in one line
// (Reason: a timeout's or an error's own message, else the first
// incorrect attribute's diff).
type JSONFailure struct {
	Checkpoint string           `json:"checkpoint"`
	Group      string           `json:"group"`
	ID         string           `json:"id"`
	Epoch      int              `json:"epoch,omitempty"`
	Outcome    result.Outcome   `json:"outcome"`
	ErrorKind  result.ErrorKind `json:"error_kind,omitempty"`
	Status     string           `json:"status"`
	Reason     string           `json:"reason"`
}

// jsonReasonBytes caps a failure's reason in the JSON report.
const jsonReasonBytes = 1 << 10

// WriteJSON writes the run's summaries as one JSON document, then every
// failing or errored case of the run in dir with why ("failures", in
// journal order; streamed, so a long run's failures are never all in
// memory). dir "" leaves "failures" out.
func WriteJSON(w io.Writer, dir string, run RunInfo, sums []*CheckpointSummary) error {
	t := Sum(sums)
	rep := JSONReport{RunInfo: run, Cases: t.Cases, CasesPassed: t.Passed, Passed: len(sums) > 0, Checkpoints: sums,
		ByCategory: Categories(sums), ByTag: Tags(sums)}
	for _, s := range sums {
		rep.Passed = rep.Passed && s.Passed
	}
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("write JSON report: %w", err)
	}
	if dir == "" {
		_, err = w.Write(append(data, '\n'))
		return err
	}
	// The document's closing brace is replaced by the failures.
	bw := bufio.NewWriter(w)
	bw.Write(bytes.TrimSuffix(data, []byte("\n}")))
	bw.WriteString(",\n  \"failures\": [")
	n := 0
	err = EachCase(dir, func(r *result.CaseRecord) error {
		o := result.OutcomeOf(r)
		if o != result.OutcomeFailed && o != result.OutcomeError {
			return nil
		}
		f, err := json.Marshal(JSONFailure{Checkpoint: r.Checkpoint, Group: r.Group, ID: r.ID, Epoch: r.Epoch, Outcome: o,
			ErrorKind: result.ErrorKindOf(r), Status: Status(r), Reason: Reason(r, jsonReasonBytes)})
		if err != nil {
			return err
		}
		if n > 0 {
			bw.WriteString(",")
		}
		n++
		bw.WriteString("\n    ")
		_, err = bw.Write(f)
		return err
	})
	if err != nil {
		return fmt.Errorf("write JSON report: %w", err)
	}
	if n > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("]\n}\n")
	return bw.Flush()
}
