//go:build wasip1

// Command evaluator holds the inventory problem's evaluator functions,
// dispatched by name:
//
//	compare_csv {path, key?, ordered?}   share of expected rows the tracked
//	                                     CSV file reproduces (by position when
//	                                     ordered, else as a multiset)
//	row_count   {path, rows}             1 when the file has that many data rows
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -buildvcs=false -o ../inventory-evaluator.wasm .
package main

import (
	"encoding/csv"
	"fmt"
	"strings"

	pdk "github.com/extism/go-pdk"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval"
)

func main() {}

//go:wasmexport describe
func describe() int32 {
	pdk.OutputJSON(abi.Describe{ABIVersion: abi.Version, Name: "inventory-evaluator", Version: "1.0.0", Transport: abi.TransportStdio,
		Kinds: []string{abi.KindEvaluator}, Functions: []string{"compare_csv", "row_count"},
		Description: "CSV comparisons for files the inventory CLI writes."})
	return 0
}

//go:wasmexport evaluate
func evaluate() int32 {
	var in abi.EvaluateInput
	if err := wasmeval.ReadInput(&in); err != nil {
		pdk.SetError(err)
		return 1
	}
	var out abi.EvaluateOutput
	switch in.Function {
	case "compare_csv":
		out = compareCSV(in)
	case "row_count":
		out = rowCount(in)
	default:
		out.Error = fmt.Sprintf("unknown function %q (this plugin has compare_csv, row_count)", in.Function)
	}
	wasmeval.WriteOutput(out)
	return 0
}

func table(v any) ([][]string, error) {
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("not a text file")
	}
	return csv.NewReader(strings.NewReader(s)).ReadAll()
}

func fileOf(m map[string]any, path string) (any, bool) {
	if files, ok := m["files"].(map[string]any); ok {
		v, ok := files[path]
		return v, ok
	}
	return nil, false
}

func compareCSV(in abi.EvaluateInput) abi.EvaluateOutput {
	path, _ := in.Arguments["path"].(string)
	ordered, _ := in.Arguments["ordered"].(bool)
	var got any
	if in.Actual != nil {
		got = in.Actual.Files[path]
	}
	want, ok := fileOf(in.Expected, path)
	if !ok {
		return abi.EvaluateOutput{Error: "the case has no expected file " + path}
	}
	if got == nil {
		return abi.EvaluateOutput{Score: 0, Details: map[string]any{"reason": path + " was not produced"}}
	}
	w, err := table(want)
	if err != nil {
		return abi.EvaluateOutput{Error: "expected " + path + ": " + err.Error()}
	}
	g, err := table(got)
	if err != nil {
		return abi.EvaluateOutput{Score: 0, Details: map[string]any{"reason": "not a CSV file: " + err.Error()}}
	}
	if len(w) == 0 {
		return abi.EvaluateOutput{Score: 1}
	}
	matched := 0
	var mismatched []int
	if ordered {
		for i := range w {
			if i < len(g) && strings.Join(w[i], "\x00") == strings.Join(g[i], "\x00") {
				matched++
			} else {
				mismatched = append(mismatched, i+1)
			}
		}
	} else {
		pool := map[string]int{}
		for _, r := range g {
			pool[strings.Join(r, "\x00")]++
		}
		for i, r := range w {
			k := strings.Join(r, "\x00")
			if pool[k] > 0 {
				pool[k]--
				matched++
			} else {
				mismatched = append(mismatched, i+1)
			}
		}
	}
	extra := len(g) - len(w)
	if extra < 0 {
		extra = 0
	}
	score := float64(matched) / float64(len(w)+extra)
	return abi.EvaluateOutput{Score: score, Details: map[string]any{
		"rows_expected": len(w), "rows_actual": len(g), "rows_matched": matched, "mismatched_rows": mismatched}}
}

func rowCount(in abi.EvaluateInput) abi.EvaluateOutput {
	path, _ := in.Arguments["path"].(string)
	rows, _ := in.Arguments["rows"].(float64)
	if in.Actual == nil || in.Actual.Files[path] == nil {
		return abi.EvaluateOutput{Score: 0, Details: map[string]any{"reason": path + " was not produced"}}
	}
	t, err := table(in.Actual.Files[path])
	if err != nil || len(t) == 0 {
		return abi.EvaluateOutput{Score: 0}
	}
	if float64(len(t)-1) == rows {
		return abi.EvaluateOutput{Score: 1}
	}
	return abi.EvaluateOutput{Score: 0, Details: map[string]any{"rows": len(t) - 1}}
}
