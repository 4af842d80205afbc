//go:build wasip1

// Command ranking is the inventory problem's evaluator plugin in Go. Its
// one function recomputes what `top N FILE` must print from the catalog
// itself, read through the host's read_asset, instead of trusting a list
// written into each case:
//
//	top_by_value {catalog, n_argument?}
//	    the catalog (a path relative to the problem) ranked by value
//	    (quantity × price, ties by name); N is the case's argument at
//	    index n_argument (default 1, as in `top N FILE`). The score is the
//	    share of ranks the output gets right, out of the longer of the two
//	    lists, so a ranking with two names swapped still earns credit.
//
// Build: `task plugins` (GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared).
package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/wasmeval/wasmeval/sdk/go/wasmeval"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval/evaluator"
)

func main() {}

// The evaluator package exports evaluate and evaluate_batch, served by
// eval.
func init() { evaluator.Serve(eval) }

//go:wasmexport describe
func describe() int32 {
	return wasmeval.DescribePlugin(wasmeval.Describe{Name: "inventory-ranking", Version: "1.0.0",
		Kinds: []string{"evaluator"}, Functions: []string{"top_by_value"},
		Description: "Ranks the catalog by value and scores a submission's top-N list against it."})
}

func eval(in *wasmeval.EvaluateInput) (*wasmeval.EvaluateOutput, error) {
	if in.Function != "top_by_value" {
		return &wasmeval.EvaluateOutput{Error: fmt.Sprintf("unknown function %q (this plugin has top_by_value)", in.Function)}, nil
	}
	want, err := expectedTop(in)
	if err != nil {
		return &wasmeval.EvaluateOutput{Error: err.Error()}, nil
	}
	var got []string
	if in.Actual != nil {
		for _, line := range strings.Split(in.Actual.Output, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				got = append(got, line)
			}
		}
	}
	return score(want, got), nil
}

// expectedTop is the names `top N` must print, best first.
func expectedTop(in *wasmeval.EvaluateInput) ([]string, error) {
	path, _ := in.Arguments["catalog"].(string)
	if path == "" {
		return nil, fmt.Errorf("arguments.catalog: expected the catalog's path relative to the problem")
	}
	index := 1
	if raw, ok := in.Arguments["n_argument"]; ok {
		n, err := strconv.Atoi(fmt.Sprint(raw))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("arguments.n_argument: expected a non-negative integer, got %v", raw)
		}
		index = n
	}
	if in.Case == nil || index >= len(in.Case.Arguments) {
		return nil, fmt.Errorf("the case has no argument %d to read N from", index)
	}
	n, err := strconv.Atoi(in.Case.Arguments[index])
	if err != nil || n <= 0 {
		// An invalid N is the error group's business; nothing to rank.
		return nil, fmt.Errorf("case argument %d is %q, not a positive N", index, in.Case.Arguments[index])
	}
	data, ok := wasmeval.ReadAsset(path)
	if !ok {
		return nil, fmt.Errorf("cannot read %s (the run log says why)", path)
	}
	items, err := catalog(path, data)
	if err != nil {
		return nil, err
	}
	sort.Slice(items, func(i, j int) bool {
		if items[i].value != items[j].value {
			return items[i].value > items[j].value
		}
		return items[i].name < items[j].name
	})
	var names []string
	for i := 0; i < n && i < len(items); i++ {
		names = append(names, items[i].name)
	}
	return names, nil
}

type item struct {
	name  string
	value int64 // in cents, so equal values tie exactly
}

// catalog reads the name, quantity and price columns of a catalog CSV.
func catalog(path string, data []byte) ([]item, error) {
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: empty", path)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[strings.TrimSpace(h)] = i
	}
	for _, h := range []string{"name", "quantity", "price"} {
		if _, ok := col[h]; !ok {
			return nil, fmt.Errorf("%s: no %q column in the header %v", path, h, rows[0])
		}
	}
	var items []item
	for i, r := range rows[1:] {
		qty, err1 := strconv.ParseInt(strings.TrimSpace(r[col["quantity"]]), 10, 64)
		price, err2 := strconv.ParseFloat(strings.TrimSpace(r[col["price"]]), 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s: row %d: quantity %q and price %q must be numbers", path, i+2, r[col["quantity"]], r[col["price"]])
		}
		cents := int64(price*100 + 0.5)
		items = append(items, item{name: strings.TrimSpace(r[col["name"]]), value: qty * cents})
	}
	return items, nil
}

// score compares the ranking rank by rank.
func score(want, got []string) *wasmeval.EvaluateOutput {
	total := max(len(want), len(got))
	if total == 0 {
		return &wasmeval.EvaluateOutput{Score: 1}
	}
	right := 0
	var wrong []map[string]any
	for i := 0; i < total; i++ {
		w, g := at(want, i), at(got, i)
		if w == g {
			right++
			continue
		}
		wrong = append(wrong, map[string]any{"rank": i + 1, "expected": w, "actual": g})
	}
	out := &wasmeval.EvaluateOutput{Score: float64(right) / float64(total)}
	if len(wrong) > 0 {
		out.Details = map[string]any{"expected": want, "wrong_ranks": wrong,
			"summary": fmt.Sprintf("%d of %d ranks differ", len(wrong), total)}
	}
	return out
}

// at is the name at rank i, or "" past the end of the list.
func at(names []string, i int) string {
	if i < len(names) {
		return names[i]
	}
	return ""
}
