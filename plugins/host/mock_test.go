package host

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

func mockModule(t testing.TB) string { return testdataModule(t, "mock") }

func mockCall(mode string, state any) abi.MockInput {
	return abi.MockInput{Config: map[string]any{"mode": mode}, Mock: "payments",
		Request: abi.MockRequest{Method: "POST", Path: "/charges", Headers: map[string][]string{"content-type": {"text/plain"}}, Body: "12.50"},
		State:   state}
}

// A mock's answer comes back as a response and a state, which the next
// call gets; an error it reports is its answer, not a fault.
func TestMock(t *testing.T) {
	p, err := newHost(t, Options{}).Load(context.Background(), mockModule(t), "")
	if err != nil {
		t.Fatal(err)
	}
	if !p.HasKind(abi.KindMock) {
		t.Fatalf("kinds %v", p.Describe().Kinds)
	}
	ctx := context.Background()
	first, err := p.Mock(ctx, mockCall("", nil), CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if first.Response.Status != 201 || first.Response.Headers["content-type"] != "application/json" ||
		first.Response.Body != `{"amount":"12.50","charge":1,"path":"/charges"}` {
		t.Fatalf("first answer %+v", first.Response)
	}
	// The state goes back in as the host got it: the second charge is
	// refused.
	second, err := p.Mock(ctx, mockCall("", first.State), CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if second.Response.Status != 409 {
		t.Fatalf("second answer %+v (state %v)", second.Response, first.State)
	}
	if b, _ := json.Marshal(second.State); string(b) != `{"charges":2}` {
		t.Fatalf("second state %s", b)
	}
	refused, err := p.Mock(ctx, mockCall("error", nil), CallOptions{})
	if err != nil || refused.Error != "no such account" {
		t.Fatalf("error answer %+v, %v", refused, err)
	}
}

// A response outside the limits is a fault of the plugin naming what is
// wrong (the schema's word where the schema says it), and the next call is
// answered as before. (Both body and body_base64 cannot be tested here:
// the SDK writes only one.)
func TestMockLimits(t *testing.T) {
	p, err := newHost(t, Options{}).Load(context.Background(), mockModule(t), "")
	if err != nil {
		t.Fatal(err)
	}
	for mode, want := range map[string]struct{ fault, detail string }{
		"status":       {FaultEnvelope, "at '/response/status': minimum: got 42, want 100"},
		"delay":        {FaultEnvelope, "at '/response/delay_ms': maximum"},
		"header_name":  {FaultMockResponse, `response.headers name "bad name" is not an HTTP header name`},
		"header_value": {FaultMockResponse, `response.headers["x-note"] holds a line break`},
		"bad_base64":   {FaultMockResponse, "response.body_base64 is not base64"},
		"big_body":     {FaultMockResponse, "response body of 16 MiB, more than the 16 MiB accepted"},
		"big_state":    {FaultMockResponse, "state of 1 MiB, more than the 1 MiB accepted"},
		"headers":      {FaultMockResponse, "response.headers has 258 headers, at most 256"},
	} {
		t.Run(mode, func(t *testing.T) {
			_, err := p.Mock(context.Background(), mockCall(mode, nil), CallOptions{})
			var fault *Error
			if !errors.As(err, &fault) || fault.Fault != want.fault || fault.Export != "mock" || !strings.Contains(fault.Detail, want.detail) {
				t.Fatalf("got %v, want a %q fault saying %q", err, want.fault, want.detail)
			}
			if _, err := p.Mock(context.Background(), mockCall("", nil), CallOptions{}); err != nil {
				t.Fatalf("the next call: %v", err)
			}
		})
	}
}

// On a host whose plugins run in worker processes, a mock loaded with
// LoadInProcess runs in this process — no worker starts for its calls —
// with the same answers, and loading the same file the usual way still
// gives a worker-backed plugin of its own.
func TestMockLoadedInProcess(t *testing.T) {
	h := newHost(t, Options{Isolation: Process})
	ctx := context.Background()
	p, err := h.LoadInProcess(ctx, mockModule(t), "")
	if err != nil {
		t.Fatal(err)
	}
	again, err := h.LoadInProcess(ctx, mockModule(t), "")
	if err != nil || again != p {
		t.Fatalf("loaded twice: %p then %p (%v)", p, again, err)
	}
	first, err := p.Mock(ctx, mockCall("", nil), CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	second, err := p.Mock(ctx, mockCall("", first.State), CallOptions{})
	if err != nil || first.Response.Status != 201 || second.Response.Status != 409 {
		t.Fatalf("answers %d then %d (%v)", first.Response.Status, second.Response.Status, err)
	}
	if n := h.WorkersStarted(); n != 0 {
		t.Fatalf("%d worker processes started for an in-process mock", n)
	}
	if p.InstancesCreated() == 0 {
		t.Fatal("no instance was created in this process")
	}
	if _, err := h.LoadInProcess(ctx, mockModule(t), strings.Repeat("0", 64)); err == nil || !strings.Contains(err.Error(), "refusing to run it") {
		t.Fatalf("a wrong pin was not refused: %v", err)
	}
	remote, err := h.Load(ctx, mockModule(t), "")
	if err != nil {
		t.Fatal(err)
	}
	if remote == p {
		t.Fatal("Load returned the in-process plugin on a host of worker processes")
	}
	if _, err := remote.Mock(ctx, mockCall("", nil), CallOptions{}); err != nil {
		t.Fatal(err)
	}
	if h.WorkersStarted() == 0 {
		t.Fatal("the worker-backed plugin's call started no worker")
	}
}
