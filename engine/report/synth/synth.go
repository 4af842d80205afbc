// Package synth generates realistic case records — outputs of a few hundred
// bytes, JSON and text attribute verdicts, unified diffs on failures — for
// the report benchmarks and scale tests.
package synth

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// Record returns case i of a synthetic run: 4 checkpoints of 25 groups,
// about one case in four failing.
func Record(i int) *result.CaseRecord {
	cp := fmt.Sprintf("checkpoint_%d", 1+i%4)
	group := fmt.Sprintf("group_%02d", (i/4)%25)
	var out strings.Builder
	for l := range 8 {
		fmt.Fprintf(&out, "item-%d-%d,widget %d,%d.%02d\n", i, l, l, i%97, l*7%100)
	}
	actual := out.String()
	fail := i%4 == 3
	expected := actual
	var diff *verify.Diff
	if fail {
		expected = strings.Replace(actual, fmt.Sprintf("item-%d-3", i), fmt.Sprintf("item-%d-X", i), 1)
		diff = &verify.Diff{Summary: "1 line differs",
			Unified: fmt.Sprintf("@@ -3,3 +3,3 @@\n item-%d-2,widget 2\n-item-%d-X,widget 3\n+item-%d-3,widget 3\n item-%d-4,widget 4\n", i, i, i, i)}
	}
	jsonActual := map[string]any{"count": i % 50, "total": float64(i%1000) / 7, "tags": []any{"a", "b"}}
	jsonExpected := map[string]any{"count": i % 50, "total": float64(i%1000) / 7, "tags": []any{"a", "b"}}
	var jsonDiff *verify.Diff
	if i%10 == 9 {
		jsonExpected["count"] = i%50 + 1
		jsonDiff = &verify.Diff{Summary: "1 difference", Entries: []verify.DiffEntry{{Path: "$.count", Op: "changed", Expected: i%50 + 1, Actual: i % 50}}}
	}
	attrs := []verify.AttributeResult{
		{Attribute: "status_code", Actual: 0, Expected: 0, IsCorrect: true, Weight: 0.1, Check: "exact"},
		{Attribute: "output", Actual: actual, Expected: expected, Diff: diff, IsCorrect: !fail, Weight: 0.6, Check: "text"},
		{Attribute: "files", Actual: jsonActual, Expected: jsonExpected, Diff: jsonDiff, IsCorrect: jsonDiff == nil, Weight: 0.3, Check: "json"},
	}
	score, passed := result.Score(attrs)
	return &result.CaseRecord{
		Problem: "synthetic", ProblemVersion: 1, Checkpoint: cp, Version: 1, Group: group,
		GroupType: problem.GroupTypes[(i/4)%3], ID: fmt.Sprintf("case_%06d", i), Index: i / 100,
		StartedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Millisecond), Duration: 0.05,
		Case:       &result.CaseInfo{Arguments: []string{"report", fmt.Sprint(i)}, InputFiles: []string{"items.csv"}},
		Result:     result.Execution{StatusCode: 0, Output: actual, Elapsed: 0.04},
		Attributes: attrs, Score: score, Passed: passed,
	}
}

// Journal writes n records to <dir>/results.jsonl and returns its path.
func Journal(dir string, n int) (string, error) {
	path := filepath.Join(dir, journal.FileName)
	w, err := journal.Create(path)
	if err != nil {
		return "", err
	}
	for i := range n {
		if err := w.Append(Record(i)); err != nil {
			w.Close()
			return "", err
		}
	}
	return path, w.Close()
}
