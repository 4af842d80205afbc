// Package testfunction serves a test-function plugin's exports with one
// function. Import it and hand it your function from an init function:
//
//	func init() { testfunction.Serve(judge) }
//
// The package exports test and its batch form, test_batch, itself (so
// write no //go:wasmexport test of your own beside it), and
// wasmeval.DescribePlugin announces test_batch in describe's batch list:
// the host can then send many agent runs in one call, each answered exactly
// as test would answer it alone.
package testfunction

import (
	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval/internal/served"
)

var fn wasmeval.TestFunction

// Serve makes fn the plugin's test function.
func Serve(f wasmeval.TestFunction) {
	fn = f
	served.Set(abi.KindTest, f != nil)
}
