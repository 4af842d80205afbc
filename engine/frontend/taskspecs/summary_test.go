package taskspecs_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/frontend/taskspecs"
	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// summary.json holds the spec as written and the task's results: the
// evaluation's score, -1 with eval_error when it could not run, the
// agent's answer, messages, tokens and time.
func TestWriteSummaries(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"wasmeval.yaml":           strings.Replace(configYAML, "%s", pin(), 1),
		"plugins/stdlib.wasm":     string(emptyModule),
		"sheets/ok/ok.json":       `{"id": "ok", "instruction": "i", "source": "s", "proxy": false, "evaluation": {"func": "compare_csv", "arguments": {"vm_out": "o.csv", "local_gold": "g.csv"}}}`,
		"sheets/ok/g.csv":         "a\n",
		"sheets/bad/bad.json":     `{"id": "bad", "instruction": "i", "evaluation": {"func": "compare_csv", "arguments": {"vm_out": "o.csv", "local_gold": "g.csv"}}}`,
		"sheets/bad/g.csv":        "a\n",
		"sheets/down/down.json":   `{"id": "down", "instruction": "i", "evaluation": {"func": "infeasible"}}`,
		"sheets/crash/crash.json": `{"id": "crash", "instruction": "i", "evaluation": {"func": "compare_csv", "arguments": {"vm_out": "o.csv", "local_gold": "g.csv"}}}`,
		"sheets/crash/g.csv":      "a\n",
	})
	s, err := taskspecs.Load(dir, taskspecs.Options{Functions: functions})
	if err != nil {
		t.Fatal(err)
	}
	run := t.TempDir()
	w, err := journal.Create(filepath.Join(run, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	output := `{"task_result": "done", "status": "completed", "usage": {"input_tokens": 10, "output_tokens": 5},
		"conversation": [{"role": "user", "content": "i"}, {"role": "assistant", "content": "done"}]}`
	recs := []*result.CaseRecord{
		{Checkpoint: "tasks", Group: "sheets", ID: "ok", Outcome: result.OutcomePassed, Passed: true, Score: 1,
			Result:     result.Execution{Output: output, Agent: true, Elapsed: 12.5},
			Attributes: []verify.AttributeResult{{Attribute: "evaluation", Actual: 0.75, Expected: 1.0, Weight: 1}}},
		{Checkpoint: "tasks", Group: "sheets", ID: "bad", Outcome: result.OutcomeError, ErrorKind: result.ErrorPlugin,
			Result: result.Execution{Output: output, Agent: true, PluginError: "compare_csv (stdlib@1234): g.csv: not CSV"}},
		{Checkpoint: "tasks", Group: "sheets", ID: "down", Outcome: result.OutcomeError, ErrorKind: result.ErrorAdapter,
			Result: result.Execution{AdapterError: true, Error: `setup config[0] execute: "sh" exited with status 1`}},
		// The agent crashed, and the evaluation that ran on what it left
		// faulted too: the crash is the task's error, as the record says.
		{Checkpoint: "tasks", Group: "sheets", ID: "crash", Outcome: result.OutcomeError, ErrorKind: result.ErrorAdapter,
			Result: result.Execution{AdapterError: true, Error: "the agent exited with status 1; the agent's stdout: the agent returned no result",
				PluginError: "compare_csv (stdlib@1234): g.csv: not CSV"}},
	}
	for _, r := range recs {
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	if err := s.WriteSummaries(run); err != nil {
		t.Fatal(err)
	}
	read := func(id string) map[string]any {
		data, err := os.ReadFile(filepath.Join(run, taskspecs.SummariesDir, "sheets", id, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	ok := read("ok")
	res := ok["results"].(map[string]any)
	if ok["source"] != "s" || ok["proxy"] != false || res["score"] != 0.75 || res["state"] != "success" || res["output"] != "done" ||
		res["total_tokens"] != 15.0 || res["total_timing"] != 12.5 || len(res["messages"].([]any)) != 2 || res["eval_error"] != nil {
		t.Errorf("ok: %v", ok)
	}
	bad := read("bad")["results"].(map[string]any)
	if bad["score"] != -1.0 || bad["state"] != "eval_error" || !strings.Contains(bad["eval_error"].(string), "not CSV") || bad["error_log_path"] != filepath.Join(run, "run.log") {
		t.Errorf("bad: %v", bad)
	}
	down := read("down")["results"].(map[string]any)
	if down["score"] != -1.0 || down["state"] != "infra_error" || !strings.Contains(down["eval_error"].(string), "setup config[0]") {
		t.Errorf("down: %v", down)
	}
	crash := read("crash")["results"].(map[string]any)
	if crash["score"] != -1.0 || crash["state"] != "infra_error" || !strings.Contains(crash["eval_error"].(string), "the agent exited with status 1") {
		t.Errorf("crash: %v", crash)
	}
}
