package report

import (
	"encoding/json"
	"fmt"
	"io"
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
}

// WriteJSON writes the run's summaries as one JSON document.
func WriteJSON(w io.Writer, run RunInfo, sums []*CheckpointSummary) error {
	t := Sum(sums)
	rep := JSONReport{RunInfo: run, Cases: t.Cases, CasesPassed: t.Passed, Passed: len(sums) > 0, Checkpoints: sums,
		ByCategory: Categories(sums), ByTag: Tags(sums)}
	for _, s := range sums {
		rep.Passed = rep.Passed && s.Passed
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		return fmt.Errorf("write JSON report: %w", err)
	}
	return nil
}
