package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/result"
)

// weatherOutput is an agent's result JSON: two tool calls, an answer in
// task_complete's arguments, its own elapsed time.
const weatherOutput = `{
  "instruction": "agent's own account",
  "conversation": [
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": null, "tool_calls": [
      {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "{\"temperature\": 18}"},
    {"role": "assistant", "content": null, "tool_calls": [
      {"id": "call_2", "type": "function", "function": {"name": "task_complete", "arguments": "{\"answer\": {\"Paris\": 18}}"}}]}
  ],
  "elapsed_seconds": 3.5
}`

func TestEvalResultsFromAJournal(t *testing.T) {
	dir := t.TempDir()
	recs := categoryRecords()
	recs[0].Result.Output = weatherOutput
	recs[1].Case.Instruction = "" // the query falls back on the agent's own
	recs[1].Result.Output = weatherOutput
	recs[5].Result.Output = "Traceback (most recent call last): <boom>" // not a result
	// A non-agent case in another checkpoint with an id used in c1: both
	// are named by their keys.
	dup := agentRecord("c2", "h1", "multi_step", result.OutcomePassed)
	dup.Result.Agent, dup.Result.Output = false, "plain output\n"
	recs = append(recs, dup)
	writeTestJournal(t, dir, recs)

	var buf bytes.Buffer
	runAt := time.Date(2026, 5, 1, 9, 59, 0, 0, time.FixedZone("CEST", 2*3600))
	if err := WriteEvalResults(&buf, dir, runAt); err != nil {
		t.Fatal(err)
	}
	// Read as a consumer would: plain JSON, the documented keys.
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if doc["run_at"] != "2026-05-01T07:59:00Z" || doc["total"] != 8.0 || doc["passed"] != 4.0 || doc["pass_rate_pct"] != 50.0 {
		t.Errorf("header: run_at %v total %v passed %v rate %v", doc["run_at"], doc["total"], doc["passed"], doc["pass_rate_pct"])
	}
	cats := doc["by_category"].(map[string]any)
	if hp := cats["happy_path"].(map[string]any); hp["total"] != 3.0 || hp["passed"] != 2.0 || hp["pass_rate_pct"] != 66.7 {
		t.Errorf("happy_path: %v", hp)
	}
	if _, ok := cats[""]; ok || len(cats) != 3 {
		t.Errorf("categories: %v", cats)
	}
	results := doc["results"].([]any)
	if len(results) != 8 {
		t.Fatalf("results: %d", len(results))
	}
	entry := func(i int) map[string]any { return results[i].(map[string]any) }
	h1 := entry(0)
	for k, want := range map[string]any{"id": "c1/cases/h1", "category": "happy_path", "query": "do h1", "passed": true, "score": 1.0,
		"outcome": "passed", "answer": `{"Paris":18}`, "elapsed_s": 3.5} {
		if h1[k] != want {
			t.Errorf("h1 %s: %v, want %v", k, h1[k], want)
		}
	}
	if got, _ := json.Marshal(h1["tools_called"]); string(got) != `["get_weather","task_complete"]` {
		t.Errorf("tools called: %s", got)
	}
	if got, _ := json.Marshal(h1["failures"]); string(got) != `[]` {
		t.Errorf("failures of a passed case: %s", got)
	}
	if q := entry(1)["query"]; q != "agent's own account" {
		t.Errorf("query without an instruction: %v", q)
	}
	// An unreadable result: the parse error is among the failures.
	n1 := entry(5)
	fails, _ := json.Marshal(n1["failures"])
	if n1["id"] != "n1" || n1["passed"] != false || !strings.Contains(string(fails), "output (test): expected Paris, got n1") ||
		!strings.Contains(string(fails), "not JSON") || n1["answer"] != "" || n1["elapsed_s"] != 1.25 {
		t.Errorf("unreadable result: %v", n1)
	}
	if a2 := entry(3); a2["outcome"] != "error" || !strings.Contains(strings.Join(strs(a2["failures"]), "|"), "could not run: agent did not start") {
		t.Errorf("errored case: %v", a2)
	}
	if last := entry(7); last["id"] != "c2/cases/h1" || last["answer"] != "plain output\n" || len(last["tools_called"].([]any)) != 0 {
		t.Errorf("non-agent case: %v", last)
	}

	// Read back through the package's own reader.
	back, err := ReadEvalResults(bytes.NewReader(buf.Bytes()))
	if err != nil || back.Total != 8 || back.Results[0].ID != "c1/cases/h1" || back.ByCategory["adversarial"].PassRatePct != 33.3 {
		t.Errorf("read back: %+v, %v", back, err)
	}
}

// Without a run time, the earliest record's start is the run's.
func TestEvalResultsRunAtFromRecords(t *testing.T) {
	b := NewEvalResults(time.Time{})
	for i, h := range []int{11, 9, 10} {
		r := agentRecord("c", string(rune('a'+i)), "", result.OutcomePassed)
		r.StartedAt = time.Date(2026, 1, 2, h, 0, 0, 0, time.UTC)
		b.Add(r)
	}
	doc := b.Results()
	if doc.RunAt != "2026-01-02T09:00:00Z" || doc.PassRatePct != 100 || len(doc.ByCategory) != 0 {
		t.Errorf("run_at %s, rate %v, categories %v", doc.RunAt, doc.PassRatePct, doc.ByCategory)
	}
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
