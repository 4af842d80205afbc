// Package served records which batch exports a Go plugin's kind packages
// (verifier, evaluator, testfunction) serve, and which functions the setup
// package dispatches on, so DescribePlugin can announce them.
package served

import (
	"slices"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// kinds are the kinds whose packages were given a function.
var kinds = map[string]bool{}

// Set records that the package of kind serves its export and its batch
// export (or no longer does, when on is false).
func Set(kind string, on bool) { kinds[kind] = on }

// Batch lists the batch forms, in abi.Batchable's order, of the exports of
// the declared kinds that a kind package serves. It is never nil.
func Batch(declared []string) []string {
	out := []string{}
	for _, export := range abi.Batchable {
		for kind, e := range abi.Exports {
			if e == export && kinds[kind] && slices.Contains(declared, kind) {
				out = append(out, export)
			}
		}
	}
	return out
}

// functions are the function names kind packages dispatch on (setup's),
// by kind.
var functions = map[string][]string{}

// SetFunctions records the names of the functions the package of kind
// dispatches on.
func SetFunctions(kind string, names []string) { functions[kind] = names }

// Functions appends to have, in order, the names of the functions the kind
// packages of the declared kinds dispatch on that have does not list yet.
// It returns have itself when there are none.
func Functions(declared, have []string) []string {
	have = slices.Clip(have) // appending never writes into the caller's array
	for _, kind := range declared {
		for _, name := range functions[kind] {
			if !slices.Contains(have, name) {
				have = append(have, name)
			}
		}
	}
	return have
}
