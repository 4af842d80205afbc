//go:build wasip1

package testfunction

import "github.com/wasmeval/wasmeval/sdk/go/wasmeval"

//go:wasmexport test
func single() int32 { return wasmeval.Test(fn) }

//go:wasmexport test_batch
func batch() int32 { return wasmeval.TestBatch(fn) }
