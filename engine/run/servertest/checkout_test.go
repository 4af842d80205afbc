package servertest

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/run/runtest"
	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/runtime/docker"
	"github.com/wasmeval/wasmeval/engine/runtime/docker/dockertest"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
)

// The checkout-api example: a submission that calls two mock upstreams,
// payments (declarative routes) and rates (a Rust mock plugin), and whose
// cases check what it sent to them as well as what it answered.
const checkoutDir = "../../../examples/checkout-api"

var checkoutCases = []string{
	"checkout/to_usd", "checkout/to_gbp", "checkout/same_currency",
	"declines/first", "declines/second", "declines/declined",
	"errors/empty_cart", "errors/unsupported_currency", "errors/not_json",
}

// checkoutFails are the cases each broken submission fails, with the
// attributes that must be wrong.
var checkoutFails = map[string]map[string][]string{
	"reference": nil,
	// Every charge is sent twice. Its answers are right except where the
	// extra charge used up a response of the declines group: the second
	// checkout's charge is then the declined third.
	"double-charge": {
		"checkout/to_usd":        {"mock_calls"},
		"checkout/to_gbp":        {"mock_calls"},
		"checkout/same_currency": {"mock_calls"},
		"declines/first":         {"mock_calls"},
		"declines/second":        {"mock_calls", "output", "status_code"},
		"declines/declined":      {"mock_calls"},
	},
	// The answer quotes the converted amount, but the charge is the
	// cart's total in the cart's currency: only the evidence shows it, and
	// only where there was something to convert.
	"wrong-currency": {
		"checkout/to_usd":   {"mock_calls"},
		"checkout/to_gbp":   {"mock_calls"},
		"declines/first":    {"mock_calls"},
		"declines/second":   {"mock_calls"},
		"declines/declined": {"mock_calls"},
	},
}

// charge is one POST /v1/charges a payments mock received, its JSON body
// decoded.
type charge struct {
	Amount   json.Number `json:"amount"`
	Currency string      `json:"currency"`
	Status   int
}

// charges are the payments calls of a record, in order.
func charges(t *testing.T, key string, r *result.CaseRecord) []charge {
	t.Helper()
	var out []charge
	for _, c := range r.Result.MockCalls {
		if c.Mock != "payments" {
			continue
		}
		if c.Method != "POST" || c.Path != "/v1/charges" {
			t.Errorf("%s: payments received %s %s, want only POST /v1/charges", key, c.Method, c.Path)
			continue
		}
		var ch charge
		d := json.NewDecoder(strings.NewReader(c.Body))
		d.UseNumber()
		if err := d.Decode(&ch); err != nil {
			t.Errorf("%s: charge body %q: %v", key, c.Body, err)
		}
		ch.Status = c.Status
		out = append(out, ch)
	}
	return out
}

// checkCheckout asserts a submission's outcomes and that the journal
// holds the evidence each failure is about.
func checkCheckout(t *testing.T, rt runtime.Runtime, submission string) {
	t.Helper()
	_, res, recs := evaluateOn(t, rt, checkoutDir, filepath.Join(checkoutDir, "submissions", submission))
	fails := checkoutFails[submission]
	checkOutcomes(t, recs, checkoutCases, fails)
	if res.Passed != (len(fails) == 0) {
		t.Errorf("%s: passed=%v", submission, res.Passed)
	}
	for _, key := range checkoutCases {
		r := recs[key]
		if r.Outcome == result.OutcomeError {
			t.Errorf("%s: an error (%s), not a verdict", key, r.Result.Error)
		}
		// Every case used the rates mock, or needed none, and nothing
		// went unanswered.
		for _, c := range r.Result.MockCalls {
			if c.Unmatched || c.Fault != "" {
				t.Errorf("%s: call %+v unmatched or faulted", key, c)
			}
			if c.Mock == "rates" && (c.Method != "GET" || c.Path != "/v1/rates") {
				t.Errorf("%s: rates received %s %s", key, c.Method, c.Path)
			}
		}
		chs := charges(t, key, r)
		group, _, _ := strings.Cut(key, "/")
		switch {
		case group == "errors":
			if len(chs) != 0 {
				t.Errorf("%s: %d charges, want none", key, len(chs))
			}
		case submission == "double-charge":
			if len(chs) != 2 || chs[0] != (charge{chs[1].Amount, chs[1].Currency, chs[0].Status}) {
				t.Errorf("%s: charges %+v, want the same charge twice", key, chs)
			}
		case len(chs) != 1:
			t.Errorf("%s: charges %+v, want one", key, chs)
		case submission == "wrong-currency" && key != "checkout/same_currency":
			if chs[0].Currency != "EUR" {
				t.Errorf("%s: charged in %s, want the cart's EUR", key, chs[0].Currency)
			}
		default:
			want := map[string]string{
				"checkout/to_usd": "2706 USD", "checkout/to_gbp": "2607 GBP", "checkout/same_currency": "4200 EUR",
				"declines/first": "2165 USD", "declines/second": "866 USD", "declines/declined": "1624 USD",
			}[key]
			if got := string(chs[0].Amount) + " " + chs[0].Currency; got != want {
				t.Errorf("%s: charged %s, want %s", key, got, want)
			}
		}
		// The mock-calls verdict says why in its diff.
		for _, a := range r.Attributes {
			if a.Attribute != "mock_calls" || a.IsCorrect {
				continue
			}
			var why string
			if a.Diff != nil {
				why = a.Diff.Summary
			}
			want := map[string]string{"double-charge": "2 calls, expected 1", "wrong-currency": "call 1's body: amount is"}[submission]
			if !strings.Contains(why, want) {
				t.Errorf("%s: mock_calls diff %q, want it to say %q", key, why, want)
			}
		}
	}
	// The declines group's payments mock kept its order across the
	// group's cases: the reference's third charge was declined.
	if submission == "reference" {
		if chs := charges(t, "declines/declined", recs["declines/declined"]); len(chs) == 1 && chs[0].Status != 402 {
			t.Errorf("declines/declined: the charge got %d, want the group's third response, 402", chs[0].Status)
		}
	}
}

func TestCheckoutExample(t *testing.T) {
	runtest.RequirePython(t)
	for _, sub := range []string{"reference", "double-charge", "wrong-currency"} {
		t.Run(sub, func(t *testing.T) {
			checkCheckout(t, local.New(local.Options{BaseDir: t.TempDir()}), sub)
		})
	}
}

// On Docker the container has no network but loopback; the mocks are
// reached from inside it at 127.0.0.1, and the outcomes are the local ones.
func TestCheckoutExampleOnDocker(t *testing.T) {
	spec := dockertest.Spec(t, dockertest.Image(t, "python"))
	drt, err := docker.New(context.Background(), docker.Options{Spec: spec, BaseDir: t.TempDir(), Client: dockertest.Client(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer drt.Close()
	for _, sub := range []string{"reference", "double-charge", "wrong-currency"} {
		t.Run(sub, func(t *testing.T) { checkCheckout(t, drt, sub) })
	}
}
