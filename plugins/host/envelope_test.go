package host

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/verify"
	"github.com/wasmeval/wasmeval/engine/workspace/confine"
	"github.com/wasmeval/wasmeval/plugins/abi"
)

// What the host sends each kind of plugin matches that kind's input
// schema in plugins/abi/schema, for bare cases (nothing optional set, nil
// maps and lists) as well as full ones, so a plugin author can rely on the
// published schemas.
func TestInputEnvelopesMatchTheirSchemas(t *testing.T) {
	stdin := "some input\n"
	req, err := cases.DecodeRequest(map[string]any{"method": "POST", "path": "/notes", "json": map[string]any{"title": "t"},
		"headers": map[string]any{"X-Trace": "1"}}, "case.yaml", "request")
	if err != nil {
		t.Fatal(err)
	}
	bare := &cases.Case{ID: "bare"}
	full := &cases.Case{ID: "full", Checkpoint: "c1", Group: "g", GroupType: "Core", Arguments: []string{"a", "b"},
		Stdin: &stdin, Env: map[string]string{"K": "v"}, TrackedFiles: []string{"out/*.csv"}, Reset: true, Timeout: 3 * time.Second,
		InputFiles: []cases.InputFile{{Path: "in.txt", Content: []byte("text")}, {Path: "in.bin", Content: []byte{0xff, 0x00, 0xfe}}},
		Expected:   map[string]any{"status_code": 0, "output": map[string]any{"total": 1.5}, "files": map[string]any{"out/a.csv": "x\n"}},
		Request:    req, Extra: map[string]any{"note": "kept"}}
	actuals := []verify.Actual{{}, {StatusCode: 1, Output: "out", Stderr: "err", TimedOut: true,
		Files: map[string]any{"out/a.csv": "x\n", "out/b.bin": []byte{1, 2}}, Headers: map[string]string{"content-type": "application/json"}}}
	run := abi.AgentRun{TaskResult: "42", Status: "completed", Instruction: "answer", Iterations: 2,
		Conversation:   []abi.Message{{Role: "assistant", Content: "<answer>42</answer>", ToolCalls: []abi.ToolCall{{Name: "task_complete", Arguments: map[string]any{"answer": "42"}}}}},
		ExecutionTrace: []any{map[string]any{"step": 1}}, Sandbox: map[string]any{"id": "s"}}

	check := func(schema string, v any) {
		t.Helper()
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := ValidateEnvelope(schema, data); err != nil {
			t.Errorf("%s: %v\n%s", schema, err, data)
		}
	}
	for _, c := range []*cases.Case{bare, full} {
		for _, a := range actuals {
			check("verify_input", must(verifyInput(c, a, nil)))
			check("verify_input", must(verifyInput(c, a, map[string]any{"tolerance": 0.1})))
			check("evaluate_input", evaluateInput(abi.EvaluateInput{Function: "f"}))
			ac, aa := must(CallCase(c)), a
			check("evaluate_input", evaluateInput(abi.EvaluateInput{Function: "f", Arguments: map[string]any{"path": "x"},
				Config: map[string]any{"k": 1}, Case: &ac, Actual: &aa, Expected: c.Expected}))
			check("load_input", loadInput(abi.LoadInput{Group: abi.GroupInfo{Checkpoint: "c1", Group: "g", GroupType: "Core"},
				History: []abi.Outcome{{Case: must(ToABICase(c)), Actual: a}}}))
		}
	}
	check("load_input", loadInput(abi.LoadInput{}))
	check("test_input", testInput(abi.AgentRun{}, nil))
	check("test_input", testInput(run, map[string]any{"expected": "42"}))

	// The check can fail: an envelope without its ABI version is refused.
	if err := ValidateEnvelope("verify_input", []byte(`{"config":{},"case":{"id":"x","arguments":[]},"actual":{},"expected":{}}`)); err == nil {
		t.Error("an envelope without abi_version passed the verify_input schema")
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// An input file copied from a problem file at run time (not held by the
// case) still reaches a plugin's envelope with its content, read when the
// envelope is built; one that can no longer be read is an error naming
// it, never an envelope with the file silently empty.
func TestEnvelopeReadsProblemInputFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "data.txt"), []byte("from the problem\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tree, err := confine.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := cases.FromProblem(tree, "data.txt", "data.txt")
	if err != nil {
		t.Fatal(err)
	}
	c := &cases.Case{ID: "a", InputFiles: []cases.InputFile{f}}
	in, err := verifyInput(c, verify.Actual{}, nil)
	if err != nil || len(in.Case.InputFiles) != 1 || in.Case.InputFiles[0].Content != "from the problem\n" {
		t.Fatalf("envelope input files: %+v, %v", in.Case.InputFiles, err)
	}
	os.Remove(filepath.Join(dir, "data.txt"))
	if _, err := ToABICase(c); err == nil || !strings.Contains(err.Error(), "input file data.txt") {
		t.Errorf("a problem file gone since loading: %v", err)
	}
}
