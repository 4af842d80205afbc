package wasmeval

import (
	"encoding/base64"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// The mock envelopes: one HTTP request a submission sent to a mock
// service, with the state the mock's previous answer in the group left,
// in; the response and the state for the next call out. A mock keeps no
// state of its own between calls: what it must remember travels in State.
type (
	MockInput    = abi.MockInput
	MockRequest  = abi.MockRequest
	MockOutput   = abi.MockOutput
	MockResponse = abi.MockResponse
)

// MockFunction is the one function a mock plugin writes: the response to
// a request, an output whose Error says the mock cannot answer it (the
// case is then an error), or an error when the call itself fails.
type MockFunction = func(*MockInput) (*MockOutput, error)

// TextResponse is a response with status and a text body.
func TextResponse(status int, body string) MockResponse {
	return MockResponse{Status: status, Headers: map[string]string{"content-type": "text/plain; charset=utf-8"}, Body: body}
}

// JSONResponse is a response with status and v as its body, as canonical
// JSON.
func JSONResponse(status int, v any) (MockResponse, error) {
	body, err := EncodeJSON(v)
	if err != nil {
		return MockResponse{}, err
	}
	return MockResponse{Status: status, Headers: map[string]string{"content-type": "application/json"}, Body: string(body)}, nil
}

// BytesResponse is a response with status and any bytes as its body (sent
// base64).
func BytesResponse(status int, contentType string, body []byte) MockResponse {
	r := MockResponse{Status: status, Headers: map[string]string{"content-type": contentType}}
	if len(body) > 0 {
		r.BodyBase64 = base64.StdEncoding.EncodeToString(body)
	}
	return r
}

// HandleMock runs fn on a mock input envelope.
func HandleMock(input []byte, fn MockFunction) ([]byte, error) { return handleMock(nil, input, fn) }

func handleMock(dst, input []byte, fn MockFunction) ([]byte, error) {
	v, err := parseEnvelope(input)
	if err != nil {
		return nil, inputError(err)
	}
	in, err := mockInputOf(v)
	if err != nil {
		return nil, inputError(err)
	}
	out, err := fn(in)
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = &MockOutput{}
	}
	return AppendJSON(dst, mockValue(out))
}

// DecodeMockInput parses a mock input envelope.
func DecodeMockInput(data []byte) (*MockInput, error) {
	v, err := ParseJSON(data)
	if err != nil {
		return nil, err
	}
	return mockInputOf(v)
}

// mockInputOf decodes a parsed mock input envelope, its fields in the
// order every SDK visits them, so the first shape error is the same.
func mockInputOf(v any) (*MockInput, error) {
	d := &decoder{}
	m := d.top(v)
	in := &MockInput{ABIVersion: d.integer(root("$.abi_version"), m["abi_version"]), Config: d.obj(root("$.config"), m["config"]),
		Mock: d.str(root("$.mock"), m["mock"])}
	p := root("$.request")
	if r := d.obj(p, m["request"]); r != nil {
		in.Request = MockRequest{Method: d.str(p.with(".method"), r["method"]), Path: d.str(p.with(".path"), r["path"]),
			Query: d.strsMap(p.with(".query"), r["query"]), Headers: d.strsMap(p.with(".headers"), r["headers"]),
			Body: d.str(p.with(".body"), r["body"]), BodyBase64: d.str(p.with(".body_base64"), r["body_base64"])}
	}
	in.Call = d.integer(root("$.call"), m["call"])
	in.State = m["state"]
	return in, d.err
}

// strsMap decodes an object whose values are lists of strings, its keys
// in order so the first error is the same every time.
func (d *decoder) strsMap(path at, v any) map[string][]string {
	m := d.obj(path, v)
	if m == nil {
		return nil
	}
	out := make(map[string][]string, len(m))
	for _, k := range sortedKeys(m) {
		out[k] = d.strs(path.keyed(k), m[k])
		if out[k] == nil {
			out[k] = []string{}
		}
	}
	return out
}

// mockValue is a mock output in the shared value model, written
// canonically like every envelope: an output with an error is the error
// alone; else the response, with its headers (an object) and its body
// (unless it is base64), delay_ms only when set, and state only when not
// null.
func mockValue(out *MockOutput) map[string]any {
	if out.Error != "" {
		return map[string]any{"error": out.Error}
	}
	r := out.Response
	headers := make(map[string]any, len(r.Headers))
	for k, v := range r.Headers {
		headers[k] = v
	}
	rm := map[string]any{"status": r.Status, "headers": headers}
	if r.BodyBase64 != "" {
		rm["body_base64"] = r.BodyBase64
	} else {
		rm["body"] = r.Body
	}
	if r.DelayMS != 0 {
		rm["delay_ms"] = r.DelayMS
	}
	m := map[string]any{"response": rm}
	if out.State != nil {
		m["state"] = out.State
	}
	return m
}
