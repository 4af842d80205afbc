// Package setup serves a setup plugin's export with its setup functions,
// by name: the task specs' `config: [{func, arguments}]` steps that are
// not built into wasmeval. A setup function does not touch the sandbox;
// it returns the actions that prepare it (files to write, commands to
// run), which wasmeval performs. Import the package and hand it your
// functions from an init function:
//
//	func init() {
//		setup.Serve(map[string]func(*wasmeval.SetupInput) (*wasmeval.SetupOutput, error){
//			"seed_database": seedDatabase,
//		})
//	}
//
// The package exports setup itself (so write no //go:wasmexport setup of
// your own beside it) and dispatches on the input's function: a name the
// map does not have is answered with an error naming the functions it
// has. wasmeval.DescribePlugin lists the functions' names in describe's
// functions, after any the plugin lists itself.
package setup

import (
	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval/internal/served"
)

var fns map[string]wasmeval.SetupFunction

// Serve makes fns the plugin's setup functions, by name.
func Serve(f map[string]func(*wasmeval.SetupInput) (*wasmeval.SetupOutput, error)) {
	fns = f
	served.SetFunctions(abi.KindSetup, wasmeval.SetupFunctionNames(f))
}
