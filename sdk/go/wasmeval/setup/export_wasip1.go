//go:build wasip1

package setup

import "github.com/wasmeval/wasmeval/sdk/go/wasmeval"

//go:wasmexport setup
func single() int32 { return wasmeval.Setup(fns) }
