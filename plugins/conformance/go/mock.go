//go:build wasip1

package main

import (
	"strconv"

	"github.com/wasmeval/wasmeval/sdk/go/wasmeval"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval/mock"
)

// The reference plugin is also a mock plugin, held to the mock vectors
// (vectors/mock): mock "echo" answers with what it received and counts its
// calls in the state, "bytes" answers with the request's body and two
// bytes that are not UTF-8, "refuse" cannot answer; any other name is
// unknown.
func init() {
	mock.Serve(answerMock)
}

func answerMock(in *wasmeval.MockInput) (*wasmeval.MockOutput, error) {
	if err := common(in.Config); err != nil {
		return nil, err
	}
	r := in.Request
	switch in.Mock {
	case "echo":
		calls := int64(0)
		if st, ok := in.State.(map[string]any); ok {
			calls = int64(num(st, "calls"))
		}
		resp, err := wasmeval.JSONResponse(200, map[string]any{"method": r.Method, "path": r.Path, "query": r.Query,
			"headers": r.Headers, "body": r.Body, "body_base64": r.BodyBase64, "call": in.Call, "state": in.State})
		if err != nil {
			return nil, err
		}
		resp.Headers["x-call"] = strconv.Itoa(in.Call)
		resp.DelayMS = int(num(in.Config, "delay_ms"))
		return &wasmeval.MockOutput{Response: resp, State: map[string]any{"calls": calls + 1}}, nil
	case "bytes":
		body, err := r.BodyBytes()
		if err != nil {
			return nil, err
		}
		return &wasmeval.MockOutput{Response: wasmeval.BytesResponse(201, "application/octet-stream", append(body, 0xff, 0x00))}, nil
	case "refuse":
		return &wasmeval.MockOutput{Error: "cannot answer " + quote(r.Method+" "+r.Path)}, nil
	}
	return &wasmeval.MockOutput{Error: "unknown mock " + quote(in.Mock)}, nil
}
