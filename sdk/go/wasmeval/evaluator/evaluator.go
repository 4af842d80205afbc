// Package evaluator serves an evaluator plugin's exports with one
// function, which dispatches on the input's Function. Import it and hand it
// your function from an init function:
//
//	func init() { evaluator.Serve(score) }
//
// The package exports evaluate and its batch form, evaluate_batch, itself
// (so write no //go:wasmexport evaluate of your own beside it), and
// wasmeval.DescribePlugin announces evaluate_batch in describe's batch
// list: the host can then send many calls in one, each answered exactly as
// evaluate would answer it alone.
package evaluator

import (
	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval/internal/served"
)

var fn wasmeval.Evaluator

// Serve makes fn the plugin's evaluator function.
func Serve(f wasmeval.Evaluator) {
	fn = f
	served.Set(abi.KindEvaluator, f != nil)
}
