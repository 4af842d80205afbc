package host

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// Mock calls a mock plugin with one request a submission sent to a mock
// service: the plugin returns the response, and the state the next call of
// that mock in the group gets. The response is held to the limits (a
// status from 100 to 599, at most abi.MaxMockHeaders headers whose names
// are HTTP tokens and whose values hold no line breaks, a body of at most
// abi.MaxMockBodyBytes in one of body and body_base64, a delay of at most
// abi.MaxMockDelayMS, a state of at most abi.MaxMockStateBytes of JSON);
// anything else is a FaultMockResponse fault. An error the plugin reports
// in the envelope (out.Error) is its answer, left for the caller to word;
// the response is not checked then, and is not to be sent.
func (p *Plugin) Mock(ctx context.Context, in abi.MockInput, opts CallOptions) (abi.MockOutput, error) {
	var out abi.MockOutput
	if err := p.call(ctx, abi.KindMock, mockInput(in), &out, opts, nil); err != nil {
		return abi.MockOutput{}, err
	}
	if out.Error != "" {
		return out, nil
	}
	if err := p.checkMock(&out); err != nil {
		return abi.MockOutput{}, err
	}
	return out, nil
}

// mockInput is the mock envelope as the schema has it: the ABI version
// set, objects where it promises them.
func mockInput(in abi.MockInput) abi.MockInput {
	in.ABIVersion = abi.Version
	in.Config = nonNil(in.Config)
	if in.Request.Query == nil {
		in.Request.Query = map[string][]string{}
	}
	if in.Request.Headers == nil {
		in.Request.Headers = map[string][]string{}
	}
	return in
}

// checkMock holds a mock's response to the limits.
func (p *Plugin) checkMock(out *abi.MockOutput) error {
	fault := func(format string, a ...any) error {
		return &Error{Plugin: p.Label(), Export: abi.Exports[abi.KindMock], Fault: FaultMockResponse, Detail: fmt.Sprintf(format, a...)}
	}
	r := &out.Response
	if r.Status < 100 || r.Status > 599 {
		return fault("response.status %d is not an HTTP status (100 to 599)", r.Status)
	}
	if n := len(r.Headers); n > abi.MaxMockHeaders {
		return fault("response.headers has %d headers, at most %d are accepted", n, abi.MaxMockHeaders)
	}
	for _, name := range slices.Sorted(maps.Keys(r.Headers)) { // sorted: the same fault every time
		if !headerToken(name) {
			return fault("response.headers name %q is not an HTTP header name", name)
		}
		if strings.ContainsAny(r.Headers[name], "\r\n\x00") {
			return fault("response.headers[%q] holds a line break or a NUL byte", name)
		}
	}
	if r.Body != "" && r.BodyBase64 != "" {
		return fault("response has both body and body_base64")
	}
	n := len(r.Body)
	if r.BodyBase64 != "" {
		data, err := base64.StdEncoding.DecodeString(r.BodyBase64)
		if err != nil {
			return fault("response.body_base64 is not base64: %v", err)
		}
		n = len(data)
	}
	if n > abi.MaxMockBodyBytes {
		return fault("response body of %s, more than the %s accepted", sizeLabel(uint64(n)), sizeLabel(abi.MaxMockBodyBytes))
	}
	if r.DelayMS < 0 || r.DelayMS > abi.MaxMockDelayMS {
		return fault("response.delay_ms %d is outside 0 to %d", r.DelayMS, abi.MaxMockDelayMS)
	}
	if out.State != nil {
		state, err := json.Marshal(out.State)
		if err != nil {
			return fault("state: %v", err)
		}
		if len(state) > abi.MaxMockStateBytes {
			return fault("state of %s, more than the %s accepted", sizeLabel(uint64(len(state))), sizeLabel(abi.MaxMockStateBytes))
		}
	}
	return nil
}

// headerToken says whether name is an HTTP field name (RFC 9110's token),
// the only names a response may carry.
func headerToken(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 0x80 || c <= ' ' || strings.IndexByte("\"(),/:;<=>?@[\\]{}", c) >= 0 || c == 0x7f {
			return false
		}
	}
	return true
}
