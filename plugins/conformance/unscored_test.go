package conformance

import (
	"context"
	"fmt"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// TestUnscoredThroughTheHost sends every reference plugin calls it judges
// and calls it leaves unscored, mixed in one batch of each export, through
// the host's typed API (which checks each output against the ABI's schema
// and decodes verdicts on its fast path), and the same calls one at a
// time: each result carries its own unscored reason, or none.
func TestUnscoredThroughTheHost(t *testing.T) {
	verifyIn := func(id string, config, expected map[string]any) abi.VerifyInput {
		return abi.VerifyInput{ABIVersion: abi.Version, Config: config, Case: abi.Case{ID: id, Arguments: []string{}},
			Actual: abi.Actual{Output: "1"}, Expected: expected}
	}
	verifyIns := []abi.VerifyInput{
		verifyIn("judged", map[string]any{}, map[string]any{"output": "1"}),
		verifyIn("said", map[string]any{"unscored": "no reference answer ✓"}, map[string]any{"output": "1"}),
		verifyIn("no output", map[string]any{"unscored_without_output": true}, map[string]any{"status_code": 0}),
		verifyIn("has output", map[string]any{"unscored_without_output": true}, map[string]any{"output": "2"}),
	}
	verifyWant := []string{"", "no reference answer ✓", `no expected output for case "no output"`, ""}
	evalIns := []abi.EvaluateInput{
		{ABIVersion: abi.Version, Config: map[string]any{}, Function: "sum", Arguments: map[string]any{"terms": []any{1}}},
		{ABIVersion: abi.Version, Config: map[string]any{"unscored": "no table"}, Function: "sum", Arguments: map[string]any{}},
	}
	evalWant := []string{"", "no table"}
	run := abi.AgentRun{TaskResult: "42", Conversation: []abi.Message{}, ExecutionTrace: []any{}, Status: "completed"}
	testIns := []abi.TestInput{
		{ABIVersion: abi.Version, Config: map[string]any{"expected": "42"}, Result: run},
		{ABIVersion: abi.Version, Config: map[string]any{"expected": "42", "unscored": "cannot tell"}, Result: run},
	}
	testWant := []string{"", "cannot tell"}

	for _, lang := range Languages {
		t.Run(lang.Name, func(t *testing.T) {
			file := Reference(t, lang)
			ctx := context.Background()
			p, err := newHost(t).Load(ctx, file, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, export := range []string{"verify", "evaluate", "test"} {
				if !p.Batches(export) {
					t.Errorf("%s announces no %s batch", lang.Name, export)
				}
			}
			opts := host.CallOptions{}

			outs, errs := p.VerifyBatch(ctx, verifyIns, opts)
			for i, in := range verifyIns {
				single, err := p.Verify(ctx, in, opts)
				checkUnscored(t, "verify", in.Case.ID, verifyWant[i], outs[i].Unscored, errs[i], single.Unscored, err)
				if i == 0 && (errs[i] != nil || len(outs[i].Attributes) != 1 || !outs[i].Attributes[0].IsCorrect) {
					t.Errorf("verify %q: want one correct attribute, got %+v (%v)", in.Case.ID, outs[i].Attributes, errs[i])
				}
			}
			if n := len(outs[2].Attributes); n != 1 {
				t.Errorf("verify %q: an unscored case keeps its judged attributes, got %d", verifyIns[2].Case.ID, n)
			}

			evals, errs := p.EvaluateBatch(ctx, evalIns, opts)
			for i, in := range evalIns {
				single, err := p.Evaluate(ctx, in, opts)
				checkUnscored(t, "evaluate", fmt.Sprint(i), evalWant[i], evals[i].Unscored, errs[i], single.Unscored, err)
			}

			tests, errs := p.TestBatch(ctx, testIns, opts)
			for i, in := range testIns {
				single, err := p.Test(ctx, in.Result, in.Config, opts)
				checkUnscored(t, "test", fmt.Sprint(i), testWant[i], tests[i].Unscored, errs[i], single.Unscored, err)
			}
			if errs[0] == nil && !tests[0].Passed {
				t.Errorf("test 0: want passed, got %+v", tests[0])
			}
		})
	}
}

func checkUnscored(t *testing.T, export, call, want, batched string, batchErr error, single string, singleErr error) {
	t.Helper()
	switch {
	case batchErr != nil:
		t.Errorf("%s %s in a batch: %v", export, call, batchErr)
	case singleErr != nil:
		t.Errorf("%s %s alone: %v", export, call, singleErr)
	case batched != want:
		t.Errorf("%s %s in a batch: unscored %q, want %q", export, call, batched, want)
	case single != want:
		t.Errorf("%s %s alone: unscored %q, want %q", export, call, single, want)
	}
}
