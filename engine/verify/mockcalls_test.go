package verify

import (
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/checkspec"
	"github.com/wasmeval/wasmeval/plugins/abi"
)

func intp(n int) *int { return &n }

// charges are the calls of a submission that charged twice, the second
// time with the wrong amount, and looked a charge up.
var charges = []abi.MockCall{
	{Mock: "payments", Method: "POST", Path: "/v1/charges", Body: `{"amount":1999,"currency":"EUR"}`, Status: 201},
	{Mock: "rates", Method: "GET", Path: "/latest", Query: map[string][]string{"base": {"EUR"}}, Status: 200, Route: -1},
	{Mock: "payments", Method: "POST", Path: "/v1/charges", Body: `{"amount":2000,"currency":"EUR"}`, Status: 201},
	{Mock: "payments", Method: "GET", Path: "/v1/charges/ch_1", Status: 200},
}

func TestMockCallsValue(t *testing.T) {
	calls := []abi.MockCall{
		{Mock: "p", Method: "POST", Path: "/a", Body: `{"n": 1.50, "s": "x"}`, Status: 201},
		{Mock: "p", Method: "POST", Path: "/b", Body: "amount=1", Status: 501, Route: -1, Unmatched: true},
		{Mock: "p", Method: "PUT", Path: "/c", BodyBase64: "/w==", Status: 200},
	}
	got := valueText(MockCallsValue(calls))
	want := `[{"body":{"n":1.50,"s":"x"},"method":"POST","mock":"p","path":"/a","route":0,"status":201},` +
		`{"body":"amount=1","method":"POST","mock":"p","path":"/b","route":-1,"status":501,"unmatched":true},` +
		`{"body_base64":"/w==","method":"PUT","mock":"p","path":"/c","route":0,"status":200}]`
	if got != want {
		t.Errorf("MockCallsValue:\n got %s\nwant %s", got, want)
	}
	if v, ok := ActualValue(Actual{}, "mock_calls"); !ok || valueText(v) != "[]" {
		t.Errorf("no calls: %v %v, want an empty list", v, ok)
	}
}

// The other checks see inside the calls: a json_path into a body, an
// assertion on the calls' text (schemacheck's tests hold a schema to them).
func TestMockCallsAttribute(t *testing.T) {
	actual := Actual{MockCalls: charges}
	for _, tt := range []struct {
		spec checkspec.CheckSpec
		want bool
	}{
		{checkspec.CheckSpec{Kind: "json", Attribute: "mock_calls", JSONPath: "$[0].body.amount", Value: 1999}, false}, // json takes no value
		{checkspec.CheckSpec{Kind: "json", Attribute: "mock_calls", JSONPath: "$[0].body.amount", ExpectedFrom: "expected.amount"}, true},
		{checkspec.CheckSpec{Kind: "json", Attribute: "mock_calls", JSONPath: "$[2].body.amount", ExpectedFrom: "expected.amount"}, false},
		{checkspec.CheckSpec{Kind: "equals", Attribute: "mock_calls", JSONPath: "$[1].query.base[0]", Value: "EUR"}, true},
		{checkspec.CheckSpec{Kind: "contains", Attribute: "mock_calls", Value: `"path":"/latest"`}, true},
		{checkspec.CheckSpec{Kind: "not-contains", Attribute: "mock_calls", Value: `"unmatched":true`}, true},
	} {
		res := Run(tt.spec, actual, map[string]any{"amount": 1999}, Env{})
		if res.IsCorrect != tt.want {
			t.Errorf("%+v: correct %v, want %v (%+v)", tt.spec, res.IsCorrect, tt.want, res.Diff)
		}
	}
}

func TestMockCallsCheck(t *testing.T) {
	body := map[string]any{"amount": 1999, "currency": "EUR"}
	for _, tt := range []struct {
		name    string
		spec    checkspec.CheckSpec
		calls   []abi.MockCall
		summary string // "" when the check passes
		actual  any
	}{
		{name: "at least one", spec: checkspec.CheckSpec{Mock: "payments"}, calls: charges, actual: 3},
		{name: "exactly once", spec: checkspec.CheckSpec{Mock: "payments", Method: "post", Path: "/v1/charges", Count: intp(1)}, calls: charges,
			summary: "payments POST /v1/charges: 2 calls, expected 1 (payments received GET /v1/charges/ch_1)", actual: 2},
		{name: "none at all", spec: checkspec.CheckSpec{Mock: "payments", Method: "POST"}, calls: charges[1:2],
			summary: "payments POST: no calls, expected at least one", actual: 0},
		{name: "none expected", spec: checkspec.CheckSpec{Mock: "payments", Path: "/v1/refunds", Count: intp(0)}, calls: charges, actual: 0},
		{name: "a path pattern", spec: checkspec.CheckSpec{Mock: "payments", Path: "/v1/charges/{id}", Count: intp(1)}, calls: charges, actual: 1},
		{name: "a path below", spec: checkspec.CheckSpec{Mock: "payments", Path: "/v1/*", Count: intp(3)}, calls: charges, actual: 3},
		{name: "the wrong amount", spec: checkspec.CheckSpec{Mock: "payments", Method: "POST", Body: body}, calls: charges,
			summary: "call 2's body: amount is 2000, expected 1999"},
		{name: "both", spec: checkspec.CheckSpec{Mock: "payments", Method: "POST", Count: intp(1), Body: body}, calls: charges,
			summary: "payments POST: 2 calls, expected 1 (payments received GET /v1/charges/ch_1); call 2's body: amount is 2000, expected 1999"},
		{name: "a missing key", spec: checkspec.CheckSpec{Mock: "payments", Method: "POST", Body: map[string]any{"customer": "c1"}}, calls: charges[:1],
			summary: `call 1's body: customer is missing (expected c1)`},
		{name: "not JSON", spec: checkspec.CheckSpec{Mock: "payments", Body: body},
			calls:   []abi.MockCall{{Mock: "payments", Method: "POST", Path: "/v1/charges", Body: "amount=1999"}},
			summary: `call 1's body is not JSON, expected JSON containing {"amount":1999,"currency":"EUR"}`},
		{name: "a list subset", spec: checkspec.CheckSpec{Mock: "payments", Body: map[string]any{"items": []any{map[string]any{"sku": "b"}}}},
			calls: []abi.MockCall{{Mock: "payments", Method: "POST", Path: "/v1/orders", Body: `{"items":[{"sku":"a","n":1},{"sku":"b","n":2}]}`}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.spec.Kind = "mock-calls"
			if errs := Validate(tt.spec); len(errs) > 0 {
				t.Fatalf("Validate: %v", errs)
			}
			res := Run(tt.spec, Actual{MockCalls: tt.calls}, nil, Env{})
			if res.Attribute != "mock_calls" || res.Check != "mock-calls" {
				t.Errorf("attribute %q, check %q", res.Attribute, res.Check)
			}
			if (tt.summary == "") != res.IsCorrect {
				t.Fatalf("correct %v, diff %+v", res.IsCorrect, res.Diff)
			}
			if tt.summary != "" && res.Diff.Summary != tt.summary {
				t.Errorf("summary\n got %s\nwant %s", res.Diff.Summary, tt.summary)
			}
			if tt.actual != nil && res.Actual != tt.actual {
				t.Errorf("actual %v, want %v", res.Actual, tt.actual)
			}
		})
	}
}

// The entries of a body that lacks the subset point into mock_calls: the
// call's index among all calls, then the body's key.
func TestMockCallsCheckEntries(t *testing.T) {
	spec := checkspec.CheckSpec{Kind: "mock-calls", Mock: "payments", Method: "POST", Body: map[string]any{"amount": 1999}}
	res := Run(spec, Actual{MockCalls: charges}, nil, Env{})
	if res.Diff == nil || len(res.Diff.Entries) != 1 {
		t.Fatalf("diff %+v", res.Diff)
	}
	e := res.Diff.Entries[0]
	if e.Path != "$[2].body.amount" || e.Op != "changed" || valueText(e.Expected) != "1999" || valueText(e.Actual) != "2000" {
		t.Errorf("entry %+v", e)
	}
	if valueText(res.Actual) != `{"amount":2000,"currency":"EUR"}` || valueText(res.Expected) != `{"amount":1999}` {
		t.Errorf("actual %v, expected %v", res.Actual, res.Expected)
	}
}

func TestValidateMockCalls(t *testing.T) {
	for _, tt := range []struct {
		spec checkspec.CheckSpec
		want string
	}{
		{checkspec.CheckSpec{}, "mock: the mock-calls check needs the name of the mock service"},
		{checkspec.CheckSpec{Mock: "p", Count: intp(-1)}, "count: must not be negative, got -1"},
		{checkspec.CheckSpec{Mock: "p", Method: "PO ST"}, `method: "PO ST": expected an HTTP method`},
		{checkspec.CheckSpec{Mock: "p", Path: "v1/charges"}, `path "v1/charges": expected a path starting with /`},
		{checkspec.CheckSpec{Mock: "p", Path: "/v1/*/x"}, `path "/v1/*/x": * is only taken as the last segment`},
		{checkspec.CheckSpec{Mock: "p", Body: "amount=1"}, "body: is text; expected a mapping or a list"},
		{checkspec.CheckSpec{Mock: "p", Body: 3}, "body: is a number; expected a mapping or a list"},
		{checkspec.CheckSpec{Mock: "p", Count: intp(0), Body: map[string]any{"a": 1}}, "body: with count 0 no call is selected"},
		{checkspec.CheckSpec{Mock: "p", Attribute: "output"}, `attribute: the mock-calls check judges the case's mock_calls, not "output"`},
		{checkspec.CheckSpec{Mock: "p", Value: 1}, "value: not an option of the mock-calls check (its options: mock, method, path, count, body)"},
	} {
		tt.spec.Kind = "mock-calls"
		errs := Validate(tt.spec)
		if len(errs) != 1 || !strings.HasPrefix(errs[0], tt.want) {
			t.Errorf("%+v: %q, want one starting %q", tt.spec, errs, tt.want)
		}
	}
	// The options of mock-calls belong to no other check.
	if errs := Validate(checkspec.CheckSpec{Kind: "json", Count: intp(1)}); len(errs) != 1 || !strings.HasPrefix(errs[0], "count: not an option of the json check") {
		t.Errorf("count on json: %q", errs)
	}
}
