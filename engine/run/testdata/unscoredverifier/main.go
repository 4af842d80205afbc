//go:build wasip1

// Command unscoredverifier is a verifier plugin written with the Go SDK
// that judges a case's output against the case's expected output, and
// leaves a case without one unscored: it has nothing to judge it by.
package main

import (
	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval/verifier"
)

func main() {}

func init() { verifier.Serve(verify) }

//go:wasmexport describe
func describe() int32 {
	return wasmeval.DescribePlugin(wasmeval.Describe{Name: "unscoredverifier", Version: "1.0.0", Kinds: []string{abi.KindVerifier}})
}

func verify(in *wasmeval.VerifyInput) (*wasmeval.VerifyOutput, error) {
	want, ok := in.Expected["output"].(string)
	if !ok {
		return &wasmeval.VerifyOutput{Unscored: "no reference output for case " + in.Case.ID}, nil
	}
	got := in.Actual.Output
	return &wasmeval.VerifyOutput{Attributes: []wasmeval.Attribute{{Attribute: "output", Actual: got, Expected: want,
		IsCorrect: got == want, Weight: 1}}}, nil
}
