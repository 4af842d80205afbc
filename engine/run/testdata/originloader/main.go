//go:build wasip1

// Command originloader is a loader plugin written with the Go SDK that
// loads its cases where the engine says they live: cases.jsonl in the
// group's dir, read with read_asset. For a regression group that is the
// origin checkpoint's directory, so the earlier checkpoint's cases are
// re-run. Each record gives a case's id and arguments; the case's ORIGIN
// variable names the origin checkpoint and group it was loaded for.
package main

import (
	"errors"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval/loader"
)

func main() {}

func init() { loader.Serve(load) }

//go:wasmexport describe
func describe() int32 {
	return wasmeval.DescribePlugin(wasmeval.Describe{Name: "originloader", Version: "1.0.0", Kinds: []string{abi.KindLoader}})
}

func load(in *wasmeval.LoadInput) (*wasmeval.LoadOutput, error) {
	g := in.Group
	if g.Dir == "" {
		return nil, errors.New("no case directory for group " + g.Group)
	}
	path := g.Dir + "/cases.jsonl"
	data, ok := wasmeval.ReadAsset(path)
	if !ok {
		return &wasmeval.LoadOutput{Error: "cannot read " + path}, nil
	}
	records, err := wasmeval.ParseJSONL(string(data))
	if err != nil {
		return &wasmeval.LoadOutput{Error: path + ": " + err.Error()}, nil
	}
	out := &wasmeval.LoadOutput{Done: true}
	for _, r := range records {
		m, _ := r.(map[string]any)
		id, _ := m["id"].(string)
		c := wasmeval.Case{ID: id, Arguments: []string{}, Expected: map[string]any{"status_code": 0},
			Env: map[string]string{"ORIGIN": g.OriginCheckpoint + "/" + g.OriginGroup}}
		args, _ := m["arguments"].([]any)
		for _, a := range args {
			s, _ := a.(string)
			c.Arguments = append(c.Arguments, s)
		}
		out.Cases = append(out.Cases, c)
	}
	return out, nil
}
