//go:build wasip1

package evaluator

import "github.com/wasmeval/wasmeval/sdk/go/wasmeval"

//go:wasmexport evaluate
func single() int32 { return wasmeval.Evaluate(fn) }

//go:wasmexport evaluate_batch
func batch() int32 { return wasmeval.EvaluateBatch(fn) }
