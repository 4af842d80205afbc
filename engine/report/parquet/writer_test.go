package parquet

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// sampleRecords builds n records with varied, checkable values: every third
// case fails with a text diff, every fifth is a regression case.
func sampleRecords(n int) []*result.CaseRecord {
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var out []*result.CaseRecord
	for i := range n {
		pass := i%3 != 0
		r := &result.CaseRecord{
			Problem: "inventory", ProblemVersion: 2, Checkpoint: fmt.Sprintf("checkpoint_%d", 1+i%2), Version: 1 + i%2,
			Group: fmt.Sprintf("g%d", i%4), GroupType: problem.GroupTypes[i%len(problem.GroupTypes)],
			ID: fmt.Sprintf("case_%04d", i), Index: i,
			StartedAt: base.Add(time.Duration(i) * time.Second), Duration: float64(i) / 100,
			Case:   &result.CaseInfo{Arguments: []string{"summary", fmt.Sprint(i)}, InputFiles: []string{"items.csv"}},
			Result: result.Execution{StatusCode: i % 2, Output: fmt.Sprintf("out %d\n", i)},
		}
		if i%4 == 1 { // an agent case, classified
			r.Case.Instruction, r.Case.Category = fmt.Sprintf("ask <%d>", i), []string{"happy_path", "edge_case"}[i%8/4]
			r.Case.Tags = []string{"tools", fmt.Sprintf("t%d", i)}
			r.Case.Apps = []string{"jupyter"}
		}
		if i%5 == 0 {
			r.OriginalCheckpoint, r.OriginalGroup = "checkpoint_0", "old_group"
		}
		if i%7 == 0 {
			r.Result.TimedOut, r.Result.Signal = true, "killed"
			r.Result.ServerStartup = 1.25
		}
		status := verify.AttributeResult{Attribute: "status_code", Actual: i % 2, Expected: i % 2, IsCorrect: true, Weight: 0.25, Check: "exact"}
		output := verify.AttributeResult{Attribute: "output", Actual: fmt.Sprintf("out %d\n", i), Expected: fmt.Sprintf("out %d\n", i),
			IsCorrect: pass, Weight: 0.75, Check: "text"}
		if !pass {
			output.Expected = fmt.Sprintf("want %d\n", i)
			output.Diff = &verify.Diff{Summary: "1 line differs", Unified: fmt.Sprintf("-want %d\n+out %d\n", i, i)}
		}
		r.Attributes = []verify.AttributeResult{status, output}
		r.Score, r.Passed = result.Score(r.Attributes)
		switch {
		case i%11 == 4:
			r.Result.PluginError = "verifier trapped"
		case i%13 == 6:
			r.Unscored = "no reference"
		}
		if i%7 != 0 { // the timed-out cases keep no outcome, as records written before outcomes
			result.Classification{}.Classify(r)
			r.Epoch, r.Attempt = 1+i%2, 1+i%3
		}
		out = append(out, r)
	}
	return out
}

func writeJournal(t testing.TB, dir string, recs []*result.CaseRecord) string {
	t.Helper()
	path := filepath.Join(dir, journal.FileName)
	w, err := journal.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestParquetReadByDuckDB(t *testing.T) {
	dir := t.TempDir()
	recs := sampleRecords(50)
	jpath := writeJournal(t, dir, recs)
	out := filepath.Join(dir, FileName)
	n, err := FromJournal(jpath, out, "run-1", "/subs/reference")
	if err != nil {
		t.Fatal(err)
	}
	if n != 50 {
		t.Fatalf("rows written: %d", n)
	}
	file := "'" + out + "'"
	res := duckQuery(t, map[string]string{
		"count":      "SELECT count(*) AS n, sum(CASE WHEN passed THEN 1 ELSE 0 END) AS passed FROM read_parquet(" + file + ")",
		"case7":      "SELECT run_id, submission, problem, problem_version, checkpoint, version, \"group\", type, id, case_index, original_checkpoint, original_group, CAST(timestamp AS VARCHAR) AS ts, duration, score, passed, status_code, timed_out, signal, server_startup_s, json_extract_string(\"case\", '$.arguments[1]') AS arg FROM read_parquet(" + file + ") WHERE id = 'case_0007'",
		"case10":     "SELECT original_checkpoint, original_group, passed, score FROM read_parquet(" + file + ") WHERE id = 'case_0010'",
		"attrs":      "SELECT a.attribute, a.check, a.actual, a.expected, a.diff, a.is_correct, a.weight FROM (SELECT unnest(attributes) AS a FROM read_parquet(" + file + ") WHERE id = 'case_0003') ORDER BY a.attribute",
		"codec":      "SELECT DISTINCT compression FROM parquet_metadata(" + file + ")",
		"failed":     "SELECT count(*) AS n FROM (SELECT unnest(attributes) AS a FROM read_parquet(" + file + ")) WHERE NOT a.is_correct",
		"agent":      "SELECT instruction, category, tags, len(tags) AS ntags, apps FROM read_parquet(" + file + ") WHERE id IN ('case_0009', 'case_0010') ORDER BY id",
		"categories": "SELECT coalesce(category, '') AS category, count(*) AS n FROM read_parquet(" + file + ") GROUP BY ALL ORDER BY ALL",
		"tagged":     "SELECT count(*) AS n FROM read_parquet(" + file + ") WHERE list_contains(tags, 'tools')",
		"outcomes": "SELECT outcome, coalesce(error_kind, '') AS kind, count(*) AS n, sum(epoch) AS epochs, sum(attempt) AS attempts, " +
			"max(coalesce(unscored, '')) AS why FROM read_parquet(" + file + ") GROUP BY ALL ORDER BY outcome, kind",
	})
	// Each outcome, its error kind, epochs and attempts: as the records
	// say, or derived for records without them.
	type key struct{ outcome, kind string }
	wantOutcomes := map[key][3]float64{}
	for _, r := range recs {
		k := key{string(result.OutcomeOf(r)), string(result.ErrorKindOf(r))}
		w := wantOutcomes[k]
		wantOutcomes[k] = [3]float64{w[0] + 1, w[1] + float64(max(r.Epoch, 1)), w[2] + float64(max(r.Attempt, 1))}
	}
	if len(res["outcomes"]) != len(wantOutcomes) || len(wantOutcomes) != 4 {
		t.Errorf("outcomes: %v, want %v", res["outcomes"], wantOutcomes)
	}
	for _, row := range res["outcomes"] {
		k := key{fmt.Sprint(row["outcome"]), fmt.Sprint(row["kind"])}
		if w := wantOutcomes[k]; num(row["n"]) != w[0] || num(row["epochs"]) != w[1] || num(row["attempts"]) != w[2] {
			t.Errorf("outcome %v: %v, want %v", k, row, w)
		}
		if k.outcome == "unscored" && row["why"] != "no reference" {
			t.Errorf("unscored rows: %v", row)
		}
	}
	wantPassed := 0
	for _, r := range recs {
		if r.Passed {
			wantPassed++
		}
	}
	if c := res["count"][0]; num(c["n"]) != 50 || num(c["passed"]) != float64(wantPassed) {
		t.Errorf("count: %v, want 50 rows, %d passed", c, wantPassed)
	}
	c7 := res["case7"]
	if len(c7) != 1 {
		t.Fatalf("case_0007: %v", c7)
	}
	r := recs[7]
	want := map[string]any{
		"run_id": "run-1", "submission": "/subs/reference", "problem": "inventory", "problem_version": 2.0,
		"checkpoint": r.Checkpoint, "version": float64(r.Version), "group": r.Group, "type": string(r.GroupType),
		"id": "case_0007", "case_index": 7.0, "original_checkpoint": nil, "original_group": nil,
		"ts": "2026-03-01 12:00:07+00", "duration": 0.07, "score": 1.0, "passed": true, "status_code": 1.0,
		"timed_out": true, "signal": "killed", "server_startup_s": 1.25, "arg": "7",
	}
	for k, v := range want {
		got := c7[0][k]
		if f, ok := got.(string); ok && k != "ts" && isNumber(v) {
			got = parseNum(f)
		}
		if fmt.Sprint(got) != fmt.Sprint(v) {
			t.Errorf("case_0007 %s: got %v (%T), want %v", k, got, got, v)
		}
	}
	if c := res["case10"][0]; c["original_checkpoint"] != "checkpoint_0" || c["original_group"] != "old_group" {
		t.Errorf("regression origin: %v", c)
	}
	attrs := res["attrs"]
	if len(attrs) != 2 {
		t.Fatalf("attributes of case_0003: %v", attrs)
	}
	out3 := attrs[0] // "output" sorts before "status_code"
	if out3["attribute"] != "output" || out3["is_correct"] != false || num(out3["weight"]) != 0.75 ||
		out3["actual"] != `"out 3\n"` || out3["expected"] != `"want 3\n"` || out3["check"] != "text" {
		t.Errorf("output attribute: %v", out3)
	}
	if d, _ := out3["diff"].(string); !strings.Contains(d, `"unified":"-want 3\n+out 3\n"`) {
		t.Errorf("diff JSON: %v", out3["diff"])
	}
	if st := attrs[1]; st["attribute"] != "status_code" || st["is_correct"] != true || st["actual"] != "1" || st["diff"] != "null" {
		t.Errorf("status_code attribute: %v", st)
	}
	// Instruction, category and tags: case_0009 is an agent case
	// (edge_case), case_0010 has none: nulls and an empty list.
	ag := res["agent"]
	if len(ag) != 2 || ag[0]["instruction"] != "ask <9>" || ag[0]["category"] != "happy_path" ||
		fmt.Sprint(ag[0]["tags"]) != "[tools t9]" || num(ag[0]["ntags"]) != 2 ||
		fmt.Sprint(ag[0]["apps"]) != "[jupyter]" || fmt.Sprint(ag[1]["apps"]) != "[]" ||
		ag[1]["instruction"] != nil || ag[1]["category"] != nil || fmt.Sprint(ag[1]["tags"]) != "[]" {
		t.Errorf("agent columns: %v", ag)
	}
	wantCats := map[string]float64{}
	for _, r := range recs {
		wantCats[r.Case.Category]++
	}
	if cats := res["categories"]; len(cats) != 3 || num(cats[0]["n"]) != wantCats[""] || num(cats[1]["n"]) != wantCats["edge_case"] ||
		num(cats[2]["n"]) != wantCats["happy_path"] {
		t.Errorf("rows by category: %v, want %v", cats, wantCats)
	}
	if n := num(res["tagged"][0]["n"]); n != wantCats["edge_case"]+wantCats["happy_path"] {
		t.Errorf("rows tagged tools: %v", n)
	}
	if codec := res["codec"]; len(codec) != 1 || codec[0]["compression"] != "ZSTD" {
		t.Errorf("compression: %v", codec)
	}
	wrong := 0
	for _, r := range recs {
		for _, a := range r.Attributes {
			if !a.IsCorrect {
				wrong++
			}
		}
	}
	if n := num(res["failed"][0]["n"]); n != float64(wrong) {
		t.Errorf("incorrect attributes: %v, want %d", n, wrong)
	}
}
