//go:build wasip1

package loader

import "github.com/wasmeval/wasmeval/sdk/go/wasmeval"

//go:wasmexport load_cases
func single() int32 { return wasmeval.LoadCases(fn) }
