//go:build wasip1

package mock

import "github.com/wasmeval/wasmeval/sdk/go/wasmeval"

//go:wasmexport mock
func single() int32 { return wasmeval.Mock(fn) }
