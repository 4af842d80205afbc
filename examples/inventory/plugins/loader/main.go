//go:build wasip1

// Command loader is the inventory problem's loader plugin: it generates one
// case per category found in the problem's catalog (read through the
// read_asset host function), computing each case's expected summary from
// the data itself, plus a case for a category that does not exist.
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -buildvcs=false -o ../inventory-loader.wasm .
package main

import (
	"encoding/csv"
	"fmt"
	"math"
	"strconv"
	"strings"

	pdk "github.com/extism/go-pdk"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval"
)

//go:wasmimport extism:host/user read_asset
func readAsset(uint64) uint64

func main() {}

//go:wasmexport describe
func describe() int32 {
	pdk.OutputJSON(abi.Describe{ABIVersion: abi.Version, Name: "inventory-loader", Version: "1.0.0", Transport: abi.TransportStdio,
		Kinds:        []string{abi.KindLoader},
		ConfigSchema: []byte(`{"type":"object","required":["catalog","asset"],"properties":{"catalog":{"type":"string"},"asset":{"type":"string"},"currency":{"type":"string"}}}`),
		Description:  "One summary case per catalog category, expected values computed from the catalog."})
	return 0
}

// asset reads a problem file through the host.
func asset(path string) (string, error) {
	mem := pdk.AllocateString(path)
	off := readAsset(mem.Offset())
	if off == 0 {
		return "", fmt.Errorf("cannot read %s (see the run log)", path)
	}
	m := pdk.FindMemory(off)
	return string(m.ReadBytes()), nil
}

type totals struct {
	items, quantity int
	value           float64
}

//go:wasmexport load_cases
func loadCases() int32 {
	var in abi.LoadInput
	if err := wasmeval.ReadInput(&in); err != nil {
		pdk.SetError(err)
		return 1
	}
	catalog, _ := in.Config["catalog"].(string)
	assetName, _ := in.Config["asset"].(string)
	currency, _ := in.Config["currency"].(string)
	if currency == "" {
		currency = "EUR"
	}
	text, err := asset(catalog)
	if err != nil {
		wasmeval.WriteOutput(abi.LoadOutput{Error: err.Error()})
		return 0
	}
	rows, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil || len(rows) < 1 {
		wasmeval.WriteOutput(abi.LoadOutput{Error: fmt.Sprintf("%s is not a CSV catalog: %v", catalog, err)})
		return 0
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	var order []string
	by := map[string]*totals{}
	for _, r := range rows[1:] {
		cat := r[col["category"]]
		q, _ := strconv.Atoi(r[col["quantity"]])
		price, _ := strconv.ParseFloat(r[col["price"]], 64)
		t, ok := by[cat]
		if !ok {
			t = &totals{}
			by[cat] = t
			order = append(order, cat)
		}
		t.items++
		t.quantity += q
		t.value += float64(q) * price
	}
	order = append(order, "missing")
	by["missing"] = &totals{}
	out := abi.LoadOutput{Done: true}
	for _, cat := range order {
		t := by[cat]
		out.Cases = append(out.Cases, abi.Case{
			ID:        "category_" + cat,
			Arguments: []string{"summary", "--category", cat, "{{static:" + assetName + "}}"},
			Expected: map[string]any{
				"status_code": 0,
				"output": map[string]any{"items": t.items, "total_quantity": t.quantity,
					"total_value": math.Round(t.value*100) / 100, "currency": currency},
			},
		})
	}
	wasmeval.WriteOutput(out)
	return 0
}
