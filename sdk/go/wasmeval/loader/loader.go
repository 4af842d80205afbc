// Package loader serves a loader plugin's export, load_cases, with one
// function. Import it and hand it your function from an init function:
//
//	func init() { loader.Serve(load) }
//
// The package exports load_cases itself (so write no //go:wasmexport
// load_cases of your own beside it). load_cases has no batch form: a
// stateful loader's calls depend on each other's results.
package loader

import (
	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval/internal/served"
)

var fn wasmeval.Loader

// Serve makes fn the plugin's loader function.
func Serve(f wasmeval.Loader) {
	fn = f
	served.Set(abi.KindLoader, f != nil)
}
