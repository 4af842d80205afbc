package abi

import "encoding/base64"

// MockInput is the input of `mock`: one HTTP request a submission sent to
// a mock service, with the state the mock's previous answer in the same
// group left. A mock plugin is a function from request to response: it
// keeps no state of its own between calls (instances are pooled, and the
// same calls must give the same answers in every run), so what it must
// remember — "the third charge fails" — goes out in MockOutput.State and
// comes back in the next call's State.
type MockInput struct {
	ABIVersion int            `json:"abi_version"`
	Config     map[string]any `json:"config"`
	// Mock is the mock service's name in the problem (a plugin may serve
	// several).
	Mock    string      `json:"mock"`
	Request MockRequest `json:"request"`
	// Call is how many requests this mock answered before in the group
	// (0 for the first).
	Call int `json:"call"`
	// State is what the mock's previous answer in the group left (null
	// for the first call, and after an answer that left none).
	State any `json:"state"`
}

// MockRequest is an HTTP request as the mock received it. Header names
// are lowercase; a header or query parameter given more than once has
// each value, in order. The body is Body when it is UTF-8 text, else
// BodyBase64 (any bytes, base64).
type MockRequest struct {
	Method     string              `json:"method"`
	Path       string              `json:"path"`
	Query      map[string][]string `json:"query"`
	Headers    map[string][]string `json:"headers"`
	Body       string              `json:"body,omitempty"`
	BodyBase64 string              `json:"body_base64,omitempty"`
}

// BodyBytes returns the request's body.
func (r *MockRequest) BodyBytes() ([]byte, error) {
	if r.BodyBase64 != "" {
		return base64.StdEncoding.DecodeString(r.BodyBase64)
	}
	return []byte(r.Body), nil
}

// MockOutput is the output of `mock`: the response, and the state the
// next call of this mock in the group gets. Error, when set, says the
// mock cannot answer this request: the case is an error (of the mock, not
// of the submission), the submission gets a 500, and the state stays as
// it was; an output with an error holds nothing else.
type MockOutput struct {
	Response MockResponse `json:"response"`
	State    any          `json:"state,omitempty"`
	Error    string       `json:"error,omitempty"`
}

// MockResponse is the HTTP response a mock sends. Its body is Body (text)
// or BodyBase64 (any bytes, base64), at most one of them. DelayMS holds
// the response back that long, as a slow upstream would.
type MockResponse struct {
	Status     int               `json:"status"`
	Headers    map[string]string `json:"headers"`
	Body       string            `json:"body,omitempty"`
	BodyBase64 string            `json:"body_base64,omitempty"`
	DelayMS    int               `json:"delay_ms,omitempty"`
}

// BodyBytes returns the response's body.
func (r *MockResponse) BodyBytes() ([]byte, error) {
	if r.BodyBase64 != "" {
		return base64.StdEncoding.DecodeString(r.BodyBase64)
	}
	return []byte(r.Body), nil
}

// MockCall is one request a mock service received in a case, kept as
// evidence of what the submission sent and what it got back. A case's
// calls reach checks as the attribute `mock_calls` and verifiers as
// Actual.MockCalls, in the order the mocks received them.
type MockCall struct {
	Mock    string              `json:"mock"`
	Method  string              `json:"method"`
	Path    string              `json:"path"`
	Query   map[string][]string `json:"query,omitempty"`
	Headers map[string][]string `json:"headers,omitempty"`
	// The body as text when it is UTF-8, else base64.
	Body       string `json:"body,omitempty"`
	BodyBase64 string `json:"body_base64,omitempty"`
	// Status is what the submission got back.
	Status int `json:"status"`
	// Route is the index of the declarative route that answered (-1:
	// none matched, or a plugin answered).
	Route int `json:"route"`
	// Unmatched: no route matched, and the request was answered 501.
	Unmatched bool `json:"unmatched,omitempty"`
	// Fault says why the mock could not answer (its plugin faulted): the
	// case is an error, not a fail.
	Fault string `json:"fault,omitempty"`
}

// Limits of a mock output, checked by the host: a response outside them
// is a fault of the plugin.
const (
	MaxMockBodyBytes  = 16 << 20
	MaxMockStateBytes = 1 << 20
	MaxMockDelayMS    = 60_000
	MaxMockHeaders    = 256
)
