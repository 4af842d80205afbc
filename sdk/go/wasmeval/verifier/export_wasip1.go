//go:build wasip1

package verifier

import "github.com/wasmeval/wasmeval/sdk/go/wasmeval"

//go:wasmexport verify
func single() int32 { return wasmeval.Verify(fn) }

//go:wasmexport verify_batch
func batch() int32 { return wasmeval.VerifyBatch(fn) }
