package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/manifest"
)

// `report --format eval-results` writes the harness's results shape: the
// run's start from its manifest, one entry per case of the journal.
func TestReportEvalResultsFormat(t *testing.T) {
	_, broken := exampleRuns(t)
	r := wasmeval(t, "report", broken, "--format", "eval-results")
	if r.code != 0 {
		t.Fatalf("report: exit %d\n%s", r.code, r.stderr)
	}
	var doc struct {
		RunAt   string  `json:"run_at"`
		Total   int     `json:"total"`
		Passed  int     `json:"passed"`
		Rate    float64 `json:"pass_rate_pct"`
		Results []struct {
			ID       string   `json:"id"`
			Passed   bool     `json:"passed"`
			Outcome  string   `json:"outcome"`
			Failures []string `json:"failures"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	m, err := manifest.Read(broken)
	if err != nil {
		t.Fatal(err)
	}
	if doc.RunAt != m.StartedAt.UTC().Format(time.RFC3339) {
		t.Errorf("run_at %s, manifest started %s", doc.RunAt, m.StartedAt)
	}
	recs := readJournal(t, broken)
	passed := 0
	for _, rec := range recs {
		if rec.Passed {
			passed++
		}
	}
	if doc.Total != len(recs) || doc.Passed != passed || len(doc.Results) != len(recs) {
		t.Errorf("total %d passed %d entries %d; the journal has %d cases, %d passed", doc.Total, doc.Passed, len(doc.Results), len(recs), passed)
	}
	for _, e := range doc.Results {
		if !e.Passed && e.Outcome == "failed" && len(e.Failures) == 0 {
			t.Errorf("failed case %s without failures", e.ID)
		}
	}
	if r := wasmeval(t, "report", broken, "--format", "eval-results", "--compare", broken); r.code != 2 || !strings.Contains(r.stderr, "eval-results") {
		t.Errorf("--compare with eval-results: exit %d %s", r.code, r.stderr)
	}
}
