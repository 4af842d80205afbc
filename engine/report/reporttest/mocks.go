package reporttest

import (
	"fmt"

	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
	"github.com/wasmeval/wasmeval/plugins/abi"
)

// The mock fixture's messages and sizes.
const (
	// MockFault is what the rates mock's plugin did on the "rates" case.
	MockFault = "plugin trapped: unreachable"
	// MockStartError is why the "nomock" case's mocks could not start.
	MockStartError = `mock services could not start: mock "payments": cannot listen on 127.0.0.1: address in use`
	// FloodKept and FloodDropped are the "flood" case's kept calls and
	// the ones only counted.
	FloodKept, FloodDropped = 60, 940
	// MockHostileBody is a charge's JSON body with markup in it, which
	// must stay text.
	MockHostileBody = `{"amount":1200,"note":"</pre><script>window.__pwned = 2</script>"}`
	// MockBigBody is the size of the "charged" case's second request body.
	MockBigBody = 100 << 10
)

// MockCases adds an API group "pay" whose cases called mock services
// (pass it to BrowserRun):
//
//   - charged (passed): a charge the payments mock's route answered, its
//     body (MockHostileBody) and a header (Hostile) with markup, then a
//     refund with a large body;
//   - refund (failed): a charge, then a DELETE no route matches (501);
//   - rates (an error of kind mock): the rates plugin faulted;
//   - flood (failed): FloodKept calls kept, FloodDropped more counted;
//   - nomock (an error of kind mock): the mocks could not start.
func MockCases(add func(*result.CaseRecord)) {
	right := func() []verify.AttributeResult {
		return []verify.AttributeResult{{Attribute: "status_code", Check: "exact", Weight: 1, IsCorrect: true, Expected: 200, Actual: 200}}
	}
	wrong := func() []verify.AttributeResult {
		return []verify.AttributeResult{{Attribute: "status_code", Check: "exact", Weight: 1, Expected: 200, Actual: 502,
			Diff: &verify.Diff{Summary: "expected 200, got 502"}}}
	}
	charge := abi.MockCall{Mock: "payments", Method: "POST", Path: "/v1/charges", Query: map[string][]string{"currency": {"EUR"}, "q": {"a&b"}},
		Headers: map[string][]string{"content-type": {"application/json"}, "x-evil": {Hostile}},
		Body:    MockHostileBody, Status: 201, Route: 0}
	big := abi.MockCall{Mock: "payments", Method: "POST", Path: "/v1/refunds", Status: 201, Route: 1,
		Body: fmt.Sprintf("%0*d", MockBigBody, 7)}
	add(&result.CaseRecord{Group: "pay", ID: "charged", Attributes: right(),
		Result: result.Execution{StatusCode: 200, MockCalls: []abi.MockCall{charge, big}}})
	add(&result.CaseRecord{Group: "pay", ID: "refund", Attributes: wrong(),
		Result: result.Execution{StatusCode: 502, MockCalls: []abi.MockCall{charge,
			{Mock: "payments", Method: "DELETE", Path: "/v1/charges/ch_1", Status: 501, Route: -1, Unmatched: true,
				Headers: map[string][]string{"authorization": {"Bearer t"}}}}}})
	add(&result.CaseRecord{Group: "pay", ID: "rates", Attributes: right(),
		Result: result.Execution{StatusCode: 200, MockCalls: []abi.MockCall{
			{Mock: "rates", Method: "GET", Path: "/v1/rates", Query: map[string][]string{"base": {"EUR"}}, Status: 500, Route: -1, Fault: MockFault},
			{Mock: "rates", Method: "PUT", Path: "/blob", BodyBase64: "AAEC/w==", Status: 200, Route: -1}}}})
	var flood []abi.MockCall
	for i := range FloodKept {
		flood = append(flood, abi.MockCall{Mock: "payments", Method: "GET", Path: fmt.Sprintf("/v1/charges/%d", i), Status: 501, Route: -1, Unmatched: true})
	}
	add(&result.CaseRecord{Group: "pay", ID: "flood", Attributes: wrong(),
		Result: result.Execution{StatusCode: 502, MockCalls: flood, MockCallsDropped: FloodDropped}})
	add(&result.CaseRecord{Group: "pay", ID: "nomock", Result: result.Execution{StatusCode: -1, MockError: MockStartError}})
}
