package wasmeval

import (
	"encoding/json"
	"os"
	"testing"
)

// verifyInput is the conformance suite's verify_json_diff vector's input.
func verifyInput(b *testing.B) []byte {
	data, err := os.ReadFile("../../../plugins/conformance/vectors/verify_json_diff.json")
	if err != nil {
		b.Fatal(err)
	}
	var v struct{ Input json.RawMessage }
	if err := json.Unmarshal(data, &v); err != nil {
		b.Fatal(err)
	}
	return v.Input
}

func benchVerify(in *VerifyInput) *VerifyOutput {
	want, got := in.Expected["output"], any(nil)
	got, _ = ParseJSON([]byte(in.Actual.Output))
	return &VerifyOutput{Attributes: []Attribute{{Attribute: "output", Expected: want, Actual: got, Diff: CompareJSON(want, got, JSONOptions{}), Weight: 1}}}
}

// BenchmarkEnvelope compares a verify call's envelope work — decode the
// input, compare, encode the verdict — through the SDK's own JSON path and
// through encoding/json's reflection (what Go plugins used before), in the
// same run.
//
//	go test -run '^$' -bench Envelope ./sdk/go/wasmeval/
func BenchmarkEnvelope(b *testing.B) {
	input := verifyInput(b)
	b.Run("sdk", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := HandleVerify(input, func(in *VerifyInput) (*VerifyOutput, error) { return benchVerify(in), nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var in VerifyInput
			if err := json.Unmarshal(input, &in); err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(benchVerify(&in)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
