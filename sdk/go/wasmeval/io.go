// Package wasmeval is the Go SDK for wasmeval plugins (standard Go,
// GOOS=wasip1). It moves envelopes over the stdio transport — the input on
// stdin, the output on stdout, one bulk copy each way — which is much
// faster than Extism's byte-chunked input and output for large envelopes.
// A plugin using it declares Transport: abi.TransportStdio in describe.
//
// The envelope types are in github.com/wasmeval/wasmeval/plugins/abi.
package wasmeval

import (
	"encoding/json"
	"io"
	"os"
)

// ReadInput decodes the call's input envelope into v.
func ReadInput(v any) error {
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// WriteOutput encodes v as the call's output envelope.
func WriteOutput(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(data)
	return err
}
