// Package wasmeval is the Go SDK for wasmeval plugins (standard Go,
// GOOS=wasip1): typed envelopes (the ABI's own types); one package per
// plugin kind (verifier, loader, evaluator, testfunction, setup) that
// exports the kind's export, and its batch form, served by the function a
// plugin hands it (setup's by name; Verify, LoadCases, Evaluate, Test and
// Setup serve an export written by hand); DescribePlugin; and the helpers
// every wasmeval SDK shares with the same results — the JSON model and
// canonical encoding, CompareJSON, NormalizeText, ParseJSONL, FindAnswer
// (docs/sdk-go.md, docs/conformance.md). Envelopes travel over wasmeval's
// native transport by default — the host writes the input into the
// plugin's memory and reads the output back, one copy each way, with no
// Extism kernel in between; built with -tags wasmeval_extism the SDK
// speaks Extism's ABI (stdio or extism transport) instead.
package wasmeval

// ReadInput and WriteOutput are the SDK's low-level stdio path with
// encoding/json, for plugins that manage their envelopes themselves through
// Extism (a plugin using them declares Transport: abi.TransportStdio in
// describe); ServeRaw works on every transport.

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
