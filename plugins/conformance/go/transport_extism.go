//go:build wasip1 && wasmeval_extism

package main

import (
	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval"
)

// Built with -tags wasmeval_extism (the suite's go-extism plugin), the
// reference plugin speaks the Extism transport, so the suite holds the
// Go SDK's verdicts byte-identical across transports.
func init() { wasmeval.Transport = abi.TransportExtism }
