//go:build wasip1

// Command seedloader is a loader plugin written with the Go SDK that
// generates its cases from the run's seed: three cases whose argument and
// expected output are numbers drawn from the seed, and a case variable
// SEED saying the seed it was given ("none" without one).
package main

import (
	"strconv"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval/loader"
)

func main() {}

func init() { loader.Serve(load) }

//go:wasmexport describe
func describe() int32 {
	return wasmeval.DescribePlugin(wasmeval.Describe{Name: "seedloader", Version: "1.0.0", Kinds: []string{abi.KindLoader}})
}

func load(in *wasmeval.LoadInput) (*wasmeval.LoadOutput, error) {
	seen, x := "none", int64(1)
	if in.Seed != nil {
		seen, x = strconv.FormatInt(*in.Seed, 10), *in.Seed
	}
	out := &wasmeval.LoadOutput{Done: true}
	for i := range 3 {
		x = (x*1103515245 + 12345) % 2147483648
		n := strconv.FormatInt(x, 10)
		out.Cases = append(out.Cases, wasmeval.Case{ID: "draw" + strconv.Itoa(i), Arguments: []string{n},
			Expected: map[string]any{"status_code": 0, "output": n}, Env: map[string]string{"SEED": seen}})
	}
	return out, nil
}
