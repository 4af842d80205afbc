//go:build wasip1

// Command conformance is the Go reference plugin of the SDK conformance
// suite (docs/conformance.md): every plugin kind, written with the Go SDK.
// The Rust and AssemblyScript reference plugins implement the same
// behaviour and must answer every vector with the same bytes.
package main

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval/evaluator"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval/loader"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval/testfunction"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval/verifier"
)

func main() {}

// Each kind package exports its kind's export (and its batch form) with the
// function it is given.
func init() {
	verifier.Serve(verifyCase)
	loader.Serve(load)
	evaluator.Serve(eval)
	testfunction.Serve(judge)
}

// kinds are the kinds the plugin declares (setup.go and mock.go serve the
// last two).
var kinds = []string{abi.KindVerifier, abi.KindLoader, abi.KindEvaluator, abi.KindTest, abi.KindSetup, abi.KindMock}

//go:wasmexport describe
func describe() int32 {
	return wasmeval.DescribePlugin(wasmeval.Describe{Name: "conformance", Version: "1.0.0",
		Kinds:        kinds,
		Functions:    []string{"echo", "json_equal", "sum", "text_equal"},
		ConfigSchema: json.RawMessage(`{"type":"object"}`),
		Description:  "Reference plugin of the SDK conformance suite — ünïcödé ✓"})
}

func str(m map[string]any, k string) string { s, _ := m[k].(string); return s }
func flag(m map[string]any, k string) bool  { b, _ := m[k].(bool); return b }
func num(m map[string]any, k string) float64 {
	n, _ := m[k].(json.Number)
	f, _ := strconv.ParseFloat(string(n), 64)
	return f
}

func quote(s string) string { return string(wasmeval.AppendQuoted(nil, s)) }

// common handles the config switch every kind shares: fail (the call
// fails with that message). The judging kinds also take unscored (they
// cannot judge the case, and say why); the verifier takes refuse (a
// deliberate error verdict) and unscored_without_output (a case without an
// expected output is left unscored, its other attributes judged).
func common(cfg map[string]any) error {
	if s := str(cfg, "fail"); s != "" {
		return errors.New(s)
	}
	return nil
}

func weight(cfg map[string]any, attr string) float64 {
	if w, ok := cfg["weights"].(map[string]any); ok {
		if _, ok := w[attr]; ok {
			return num(w, attr)
		}
	}
	return 1
}

func verifyCase(in *wasmeval.VerifyInput) (*wasmeval.VerifyOutput, error) {
	if err := common(in.Config); err != nil {
		return nil, err
	}
	refuse, unscored := str(in.Config, "refuse"), str(in.Config, "unscored")
	if refuse != "" || unscored != "" {
		return &wasmeval.VerifyOutput{Error: refuse, Unscored: unscored}, nil
	}
	out := &wasmeval.VerifyOutput{Attributes: make([]wasmeval.Attribute, 0, 2)}
	if _, ok := in.Expected["output"]; !ok && flag(in.Config, "unscored_without_output") {
		out.Unscored = "no expected output for case " + quote(in.Case.ID)
	}
	if want, ok := in.Expected["status_code"]; ok {
		a := wasmeval.Attribute{Attribute: "status_code", Actual: in.Actual.StatusCode, Expected: want,
			Weight: weight(in.Config, "status_code")}
		n, isNum := want.(json.Number)
		f, _ := strconv.ParseFloat(string(n), 64)
		a.IsCorrect = isNum && f == float64(in.Actual.StatusCode)
		if !a.IsCorrect {
			a.Diff = &wasmeval.Diff{Summary: "expected exit status " + wasmeval.Brief(want) + ", got " + strconv.Itoa(in.Actual.StatusCode)}
		}
		out.Attributes = append(out.Attributes, a)
	}
	if want, ok := in.Expected["output"]; ok {
		out.Attributes = append(out.Attributes, compareOutput(in.Config, want, in.Actual.Output))
	}
	if mock := str(in.Config, "count_mock_calls"); mock != "" {
		out.Attributes = append(out.Attributes, countMockCalls(in, mock))
	}
	return out, nil
}

// countMockCalls judges how many calls the mock received against
// expected.mock_calls; a wrong count lists every call the mock received
// ("POST /v1/charges 201", with "unmatched" for a request no route took).
func countMockCalls(in *wasmeval.VerifyInput, mock string) wasmeval.Attribute {
	want := in.Expected["mock_calls"]
	var calls []string
	for _, c := range in.Actual.MockCalls {
		if c.Mock != mock {
			continue
		}
		s := c.Method + " " + c.Path + " " + strconv.Itoa(c.Status)
		if c.Unmatched {
			s += " unmatched"
		}
		calls = append(calls, s)
	}
	n := len(calls)
	a := wasmeval.Attribute{Attribute: "mock_calls", Actual: n, Expected: want, Weight: weight(in.Config, "mock_calls")}
	w, isNum := want.(json.Number)
	f, _ := strconv.ParseFloat(string(w), 64)
	a.IsCorrect = isNum && f == float64(n)
	if !a.IsCorrect {
		summary := mock + ": " + strconv.Itoa(n) + " calls, expected " + wasmeval.Brief(want)
		if n > 0 {
			summary += " (" + strings.Join(calls, ", ") + ")"
		}
		a.Diff = &wasmeval.Diff{Summary: summary, Entries: []wasmeval.DiffEntry{{Path: "count", Op: "changed", Expected: want, Actual: n}}}
	}
	return a
}

func options(cfg map[string]any) wasmeval.JSONOptions {
	return wasmeval.JSONOptions{Tolerance: num(cfg, "tolerance"), RelTolerance: num(cfg, "rel_tolerance"),
		UnorderedLists: flag(cfg, "unordered_lists")}
}

func compareOutput(cfg map[string]any, want any, got string) wasmeval.Attribute {
	a := wasmeval.Attribute{Attribute: "output", Weight: weight(cfg, "output")}
	mode := str(cfg, "output")
	if mode == "text" {
		w, _ := want.(string)
		ws := flag(cfg, "ignore_whitespace")
		ic := flag(cfg, "ignore_case")
		nw, ng := wasmeval.NormalizeText(w, ws, ic), wasmeval.NormalizeText(got, ws, ic)
		a.Expected, a.Actual, a.IsCorrect = nw, ng, nw == ng
		if !a.IsCorrect {
			a.Diff = lineDiff(nw, ng)
		}
		return a
	}
	if s, isText := want.(string); isText && mode != "jsonl" {
		// The usual passing case: the output is the expected document.
		// Both sides are then that document, written canonically straight
		// from its text, as ParseJSON and EncodeJSON would write it.
		if doc, same := wasmeval.SameJSON(s, got); same {
			v := any(doc)
			a.Expected, a.Actual, a.IsCorrect = v, v, true
			return a
		}
	}
	parse := func(s string) (any, error) { return wasmeval.ParseJSON([]byte(s)) }
	if mode == "jsonl" {
		parse = func(s string) (any, error) {
			r, err := wasmeval.ParseJSONL(s)
			return r, err
		}
	}
	if s, isText := want.(string); isText {
		if v, err := parse(s); err == nil {
			want = v
		}
	}
	a.Expected = want
	v, err := parse(got)
	if err != nil {
		a.Actual = got
		a.Diff = &wasmeval.Diff{Summary: "output is not valid JSON: " + err.Error(),
			Entries: []wasmeval.DiffEntry{{Path: "$", Op: "mismatch", Expected: want, Actual: wasmeval.Clip(got, 200)}}}
		return a
	}
	a.Actual = v
	a.Diff = wasmeval.CompareJSON(want, v, options(cfg))
	a.IsCorrect = a.Diff == nil
	return a
}

// lineDiff reports the first line that differs.
func lineDiff(want, got string) *wasmeval.Diff {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl || i >= len(w) || i >= len(g) {
			path := "line " + strconv.Itoa(i+1)
			return &wasmeval.Diff{Summary: path + ": expected " + wasmeval.Brief(wl) + ", got " + wasmeval.Brief(gl),
				Entries: []wasmeval.DiffEntry{{Path: path, Op: "changed", Expected: wl, Actual: gl}}}
		}
	}
	return nil
}

func load(in *wasmeval.LoadInput) (*wasmeval.LoadOutput, error) {
	if err := common(in.Config); err != nil {
		return nil, err
	}
	if flag(in.Config, "echo_seed") {
		// One case telling the run's seed ("none" without one).
		seed := "none"
		if in.Seed != nil {
			seed = strconv.FormatInt(*in.Seed, 10)
		}
		return &wasmeval.LoadOutput{Cases: []wasmeval.Case{{ID: "seed", Arguments: []string{seed}}}, Done: true}, nil
	}
	if flag(in.Config, "echo_group") {
		// One case telling where the group's cases come from.
		g := in.Group
		c := wasmeval.Case{ID: g.Group + "_origin", Arguments: []string{g.OriginCheckpoint, g.OriginGroup, g.Dir},
			Extra: map[string]any{"checkpoint": g.Checkpoint, "group": g.Group, "case_group": g.CaseGroup}}
		return &wasmeval.LoadOutput{Cases: []wasmeval.Case{c}, Done: true}, nil
	}
	records, err := wasmeval.ParseJSONL(str(in.Config, "jsonl"))
	if err != nil {
		return &wasmeval.LoadOutput{Cases: []wasmeval.Case{}, Error: "jsonl: " + err.Error()}, nil
	}
	out := &wasmeval.LoadOutput{Cases: []wasmeval.Case{}, Done: true}
	for i, r := range records {
		m, ok := r.(map[string]any)
		if !ok {
			return &wasmeval.LoadOutput{Cases: []wasmeval.Case{}, Error: "jsonl: record " + strconv.Itoa(i+1) + " is " + wasmeval.TypeName(r) + ", expected an object"}, nil
		}
		c := wasmeval.Case{ID: in.Group.Group + "_" + strconv.Itoa(len(in.History)+i+1), Arguments: []string{}}
		if args, ok := m["arguments"].([]any); ok {
			for _, a := range args {
				s, _ := a.(string)
				c.Arguments = append(c.Arguments, s)
			}
		}
		if e, ok := m["expected"].(map[string]any); ok {
			c.Expected = e
		}
		if s, ok := m["stdin"].(string); ok {
			c.Stdin = &s
		}
		c.Extra = map[string]any{"history": len(in.History), "checkpoint": in.Group.Checkpoint}
		out.Cases = append(out.Cases, c)
	}
	return out, nil
}

func eval(in *wasmeval.EvaluateInput) (*wasmeval.EvaluateOutput, error) {
	if err := common(in.Config); err != nil {
		return nil, err
	}
	if s := str(in.Config, "unscored"); s != "" {
		return &wasmeval.EvaluateOutput{Details: map[string]any{"function": in.Function}, Unscored: s}, nil
	}
	args := in.Arguments
	switch in.Function {
	case "echo":
		d := map[string]any{"arguments": args, "config": in.Config, "function": in.Function}
		if in.Case != nil {
			d["case_id"] = in.Case.ID
		}
		return &wasmeval.EvaluateOutput{Score: 1, Details: d}, nil
	case "json_equal":
		diff := wasmeval.CompareJSON(args["expected"], args["actual"], options(args))
		if diff == nil {
			return &wasmeval.EvaluateOutput{Score: 1}, nil
		}
		return &wasmeval.EvaluateOutput{Score: 0, Details: map[string]any{"diff": diff}}, nil
	case "text_equal":
		ws, ic := flag(args, "ignore_whitespace"), flag(args, "ignore_case")
		w, g := wasmeval.NormalizeText(str(args, "expected"), ws, ic), wasmeval.NormalizeText(str(args, "actual"), ws, ic)
		score := 0.0
		if w == g {
			score = 1
		}
		return &wasmeval.EvaluateOutput{Score: score, Details: map[string]any{"expected": w, "actual": g}}, nil
	case "sum":
		var total float64
		terms, _ := args["terms"].([]any)
		for _, t := range terms {
			n, _ := t.(json.Number)
			f, _ := strconv.ParseFloat(string(n), 64)
			total += f
		}
		if asText, _ := args["as_text"].(bool); asText {
			// The sum as the SDK's Brief writes it, non-finite ones too.
			return &wasmeval.EvaluateOutput{Details: map[string]any{"text": wasmeval.Brief(total), "terms": len(terms)}}, nil
		}
		score := math.Min(math.Max(total, 0), 1)
		return &wasmeval.EvaluateOutput{Score: score, Details: map[string]any{"sum": total, "terms": len(terms)}}, nil
	}
	return &wasmeval.EvaluateOutput{Error: "unknown function " + quote(in.Function)}, nil
}

func judge(in *wasmeval.TestInput) (*wasmeval.TestOutput, error) {
	if err := common(in.Config); err != nil {
		return nil, err
	}
	expected := str(in.Config, "expected")
	run := &in.Result
	found := wasmeval.FindAnswer(run)
	answer := wasmeval.AnswerText(found.Value)
	results, tokens := 0, 0
	for _, m := range run.Conversation {
		results += len(m.ToolResults)
	}
	if run.Usage != nil {
		tokens = run.Usage.TotalTokens
	}
	details := map[string]any{"answer": answer, "rule": found.Rule, "value": found.Value, "expected": expected,
		"iterations": run.Iterations, "messages": len(run.Conversation), "steps": len(run.ExecutionTrace),
		"task_name": run.TaskName, "tool_results": results, "tokens": tokens, "elapsed_seconds": run.ElapsedSeconds}
	if s := str(in.Config, "unscored"); s != "" {
		return &wasmeval.TestOutput{Feedback: "not judged", Details: details, Unscored: s}, nil
	}
	if !found.Found() {
		return &wasmeval.TestOutput{Feedback: "no answer found", Details: details}, nil
	}
	var passed bool
	switch str(in.Config, "match") {
	case "number":
		a, ok1 := wasmeval.ParseNumber(answer)
		e, ok2 := wasmeval.ParseNumber(expected)
		passed = ok1 && ok2 && math.Abs(a-e) <= num(in.Config, "tolerance")
	case "json":
		a, err1 := wasmeval.ParseJSON([]byte(answer))
		e, err2 := wasmeval.ParseJSON([]byte(expected))
		passed = err1 == nil && err2 == nil && wasmeval.CompareJSON(e, a, options(in.Config)) == nil
	default:
		passed = wasmeval.NormalizeText(answer, true, true) == wasmeval.NormalizeText(expected, true, true)
	}
	verb := " does not match "
	if passed {
		verb = " matches "
	}
	return &wasmeval.TestOutput{Passed: passed, Feedback: "answer " + quote(answer) + " (from " + found.Rule + ")" + verb + quote(expected), Details: details}, nil
}
