//go:build wasip1

// Command mock is a mock plugin (native transport) that answers as its
// config's mode asks — well, or with a response outside the limits — so
// the host's checks of the mock kind are tested against a real module.
package main

import (
	"encoding/json"
	"strings"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval/mock"
)

func main() {}

func init() { mock.Serve(answer) }

//go:wasmexport describe
func describe() int32 {
	return wasmeval.DescribePlugin(wasmeval.Describe{Name: "mock-misbehave", Version: "1.0.0", Kinds: []string{abi.KindMock}})
}

func answer(in *wasmeval.MockInput) (*wasmeval.MockOutput, error) {
	mode, _ := in.Config["mode"].(string)
	// A well-behaved answer: a charge is accepted once, refused after
	// (the state counts the charges), and says what it was sent.
	charges := 0
	if st, ok := in.State.(map[string]any); ok {
		n, _ := st["charges"].(json.Number).Int64()
		charges = int(n)
	}
	resp, err := wasmeval.JSONResponse(201, map[string]any{"path": in.Request.Path, "amount": in.Request.Body, "charge": charges + 1})
	if err != nil {
		return nil, err
	}
	if charges > 0 {
		resp, _ = wasmeval.JSONResponse(409, map[string]any{"error": "already charged"})
	}
	out := &wasmeval.MockOutput{Response: resp, State: map[string]any{"charges": charges + 1}}
	r := &out.Response
	switch mode {
	case "error":
		return &wasmeval.MockOutput{Error: "no such account"}, nil
	case "status":
		r.Status = 42
	case "header_name":
		r.Headers["bad name"] = "x"
	case "header_value":
		r.Headers["x-note"] = "a\r\nset-cookie: b"
	case "bad_base64":
		r.Body, r.BodyBase64 = "", "not base64!"
	case "big_body":
		r.Body = strings.Repeat("x", abi.MaxMockBodyBytes+1)
	case "delay":
		r.DelayMS = abi.MaxMockDelayMS + 1
	case "big_state":
		out.State = strings.Repeat("s", abi.MaxMockStateBytes)
	case "headers":
		for i := 0; i <= abi.MaxMockHeaders; i++ {
			r.Headers["x-h"+strings.Repeat("i", i)] = "v"
		}
	}
	return out, nil
}
