// Package verifier serves a verifier plugin's exports with one function.
// Import it and hand it your function from an init function:
//
//	func init() { verifier.Serve(check) }
//
// The package exports verify and its batch form, verify_batch, itself (so
// write no //go:wasmexport verify of your own beside it), and
// wasmeval.DescribePlugin announces verify_batch in describe's batch list:
// the host can then send many cases in one call, each answered exactly as
// verify would answer it alone.
package verifier

import (
	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval/internal/served"
)

var fn wasmeval.Verifier

// Serve makes fn the plugin's verifier function.
func Serve(f wasmeval.Verifier) {
	fn = f
	served.Set(abi.KindVerifier, f != nil)
}
