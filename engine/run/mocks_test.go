package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/run/runtest"
	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// A shop whose submission charges a payments mock: the URL comes from
// the environment and from {{mock.payments}} in the command; the third
// charge of the group is declined; the checks judge what was sent.
const mockShop = `name: shop
entry_file: shop.py
command: "python3 {entry_file} {{mock.payments}}"
mocks:
  payments:
    routes:
      - method: POST
        path: /v1/charges
        responses:
          - {status: 201, body: {id: ch_1, status: succeeded}}
          - {status: 201, body: {id: ch_2, status: succeeded}}
          - {status: 402, body: {error: declined}}
checkpoints:
  c1:
    groups:
      g:
        type: Core
        isolated: false
        case_order: [one, two, declined, refund]
        checks:
          - kind: mock-calls
            mock: payments
            method: POST
            path: /v1/charges
            count: 1
            body: {currency: EUR}
`

// shop.py charges once per case (twice with argument "twice"), asks for
// a refund (an unmatched route) with "refund", and prints what it got.
const mockShopPy = `import json, os, sys, urllib.request, urllib.error
arg_url, what = sys.argv[1], sys.argv[2]
env_url = os.environ["WASMEVAL_MOCK_PAYMENTS"]
assert arg_url == env_url, (arg_url, env_url)
if len(sys.argv) > 3:
    assert sys.argv[3] == env_url, ("a case's argument", sys.argv[3], env_url)
def call(method, path, body):
    req = urllib.request.Request(env_url + path, data=json.dumps(body).encode(), method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
times = 2 if what == "twice" else 1
for _ in range(times):
    status, body = call("POST", "/v1/charges", {"amount": 1999, "currency": "EUR"})
    print(status, body)
if what == "refund":
    print(call("POST", "/v1/refunds", {"charge": "ch_1"}))
`

func writeMockShop(t *testing.T, config string) (dir, sub string) {
	t.Helper()
	dir, sub = t.TempDir(), t.TempDir()
	files := map[string]string{
		"config.yaml":             config,
		"c1/g/one/case.yaml":      "arguments: [one, \"{{mock.payments}}\"]\n",
		"c1/g/two/case.yaml":      "arguments: [twice]\n",
		"c1/g/declined/case.yaml": "arguments: [once]\n",
		"c1/g/refund/case.yaml":   "arguments: [refund]\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(sub, "shop.py"), []byte(mockShopPy), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, sub
}

func runMockShop(t *testing.T, dir, sub string) map[string]*result.CaseRecord {
	t.Helper()
	p, err := LoadProblem(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if _, err := Run(context.Background(), Options{
		Problem: p, Submission: sub, OutDir: out, Runtime: local.New(local.Options{BaseDir: t.TempDir()}), Loader: BuiltinLoader,
	}); err != nil {
		t.Fatal(err)
	}
	recs := map[string]*result.CaseRecord{}
	if err := journal.Read(filepath.Join(out, journal.FileName), func(r *result.CaseRecord) error {
		recs[r.ID] = r
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return recs
}

// The mocks run for the group, the submission reaches them by the URL it
// is given, each case's record carries the calls made while it ran, and
// the mock-calls check judges them.
func TestMocksReachTheSubmissionAndJudgeItsCalls(t *testing.T) {
	runtest.RequirePython(t)
	dir, sub := writeMockShop(t, mockShop)
	recs := runMockShop(t, dir, sub)
	if len(recs) != 4 {
		t.Fatalf("got %d records", len(recs))
	}
	one := recs["one"]
	if !one.Passed || len(one.Result.MockCalls) != 1 {
		t.Fatalf("one: passed=%v calls=%+v output=%q stderr=%q", one.Passed, one.Result.MockCalls, one.Result.Output, one.Result.Stderr)
	}
	c := one.Result.MockCalls[0]
	if c.Mock != "payments" || c.Method != "POST" || c.Path != "/v1/charges" || c.Status != 201 || c.Route != 0 ||
		!strings.Contains(c.Body, `"currency": "EUR"`) || c.Headers["content-type"][0] != "application/json" {
		t.Errorf("one's call = %+v", c)
	}
	// Charged twice: the check says so.
	two := recs["two"]
	if two.Passed || two.Outcome != result.OutcomeFailed || len(two.Result.MockCalls) != 2 {
		t.Fatalf("two: outcome=%s calls=%d", two.Outcome, len(two.Result.MockCalls))
	}
	if !strings.Contains(failureText(two), "2 calls, expected 1") {
		t.Errorf("two's verdict does not say it charged twice: %s", failureText(two))
	}
	// The group's fourth charge: past the third response, the last repeats.
	if d := recs["declined"]; len(d.Result.MockCalls) != 1 || d.Result.MockCalls[0].Status != 402 {
		t.Errorf("declined: calls %+v", d.Result.MockCalls)
	}
	// An unmatched request is answered 501 and kept as evidence.
	ref := recs["refund"]
	var unmatched int
	for _, c := range ref.Result.MockCalls {
		if c.Unmatched {
			unmatched++
			if c.Status != 501 || c.Path != "/v1/refunds" {
				t.Errorf("unmatched call = %+v", c)
			}
		}
	}
	if unmatched != 1 || !strings.Contains(ref.Result.Output, "501") {
		t.Errorf("refund: unmatched=%d output=%q", unmatched, ref.Result.Output)
	}
	// The URL (a port that changes from run to run) is not in the record.
	if strings.Contains(one.Case.Env["WASMEVAL_MOCK_PAYMENTS"], "http") {
		t.Errorf("the mock's URL leaked into the case's recorded env")
	}
}

func failureText(r *result.CaseRecord) string {
	var b strings.Builder
	for _, a := range r.Attributes {
		if !a.IsCorrect && a.Diff != nil {
			b.WriteString(a.Diff.Summary + "; ")
		}
	}
	return b.String()
}

// A mock plugin answers with the state its previous answer left (the
// first charge is accepted, the next refused); one that faults makes the
// case an error of the mock, not a fail; and a runtime that cannot give
// the submission its mocks makes every case of the group an error too,
// while the run goes on.
func TestMockPluginsFaultsAndUnreachableMocks(t *testing.T) {
	runtest.RequirePython(t)
	dir, sub := writeMockShop(t, "")
	wasm := filepath.Join(dir, "mock.wasm")
	if err := pluginbuild.Build("../../plugins/host/testdata/mock", wasm); err != nil {
		t.Fatal(err)
	}
	digest, _, err := host.Digest(wasm)
	if err != nil {
		t.Fatal(err)
	}
	config := `name: shop
entry_file: shop.py
command: "python3 {entry_file} {{mock.payments}}"
mocks:
  payments:
    plugin: {path: mock.wasm, sha256: ` + digest + `}
checkpoints:
  c1:
    groups:
      g:
        type: Core
        case_order: [one, two, declined, refund]
        checks: [{kind: mock-calls, mock: payments, count: 1}]
  c2:
    mocks:
      payments:
        plugin: {path: mock.wasm, sha256: ` + digest + `, config: {mode: error}}
    groups:
      g:
        type: Core
        case_order: [one]
        checks: [{kind: mock-calls, mock: payments, count: 1}]
`
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(config), 0o644)
	os.MkdirAll(filepath.Join(dir, "c2/g/one"), 0o755)
	os.WriteFile(filepath.Join(dir, "c2/g/one/case.yaml"), []byte("arguments: [one]\n"), 0o644)
	p, err := LoadProblem(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := runtest.Host(t, host.Options{Timeout: 5 * time.Minute})
	run := func(rt runtime.Runtime) map[string]*result.CaseRecord {
		out := t.TempDir()
		if _, err := Run(context.Background(), Options{Problem: p, Submission: sub, OutDir: out, Runtime: rt, Loader: BuiltinLoader, Plugins: h}); err != nil {
			t.Fatal(err)
		}
		recs := map[string]*result.CaseRecord{}
		journal.Read(filepath.Join(out, journal.FileName), func(r *result.CaseRecord) error {
			recs[r.Checkpoint+"/"+r.ID] = r
			return nil
		})
		return recs
	}
	recs := run(local.New(local.Options{BaseDir: t.TempDir()}))
	// Groups are isolated: each case's workspace is fresh, but the mock's
	// state lives through the group.
	one := recs["c1/one"]
	if !one.Passed || len(one.Result.MockCalls) != 1 || one.Result.MockCalls[0].Status != 201 {
		t.Fatalf("c1/one: outcome=%s calls=%+v stderr=%q", one.Outcome, one.Result.MockCalls, one.Result.Stderr)
	}
	if two := recs["c1/two"]; two.Outcome != result.OutcomeFailed || len(two.Result.MockCalls) != 2 || two.Result.MockCalls[0].Status != 409 {
		t.Errorf("c1/two: outcome=%s calls=%+v", two.Outcome, two.Result.MockCalls)
	}
	faulted := recs["c2/one"]
	if faulted.Outcome != result.OutcomeError || faulted.ErrorKind != result.ErrorMock ||
		len(faulted.Result.MockCalls) != 1 || !strings.Contains(faulted.Result.MockCalls[0].Fault, "no such account") || faulted.Result.MockCalls[0].Status != 500 {
		t.Errorf("c2/one: outcome=%s kind=%s calls=%+v", faulted.Outcome, faulted.ErrorKind, faulted.Result.MockCalls)
	}

	recs = run(noUpstreams{local.New(local.Options{BaseDir: t.TempDir()})})
	if len(recs) != 5 {
		t.Fatalf("without upstreams: %d records, want every case recorded", len(recs))
	}
	for key, r := range recs {
		if r.Outcome != result.OutcomeError || r.ErrorKind != result.ErrorMock || !strings.Contains(r.Result.MockError, "cannot give a submission mock services") ||
			r.Case == nil || len(r.Result.MockCalls) != 0 {
			t.Errorf("%s: outcome=%s kind=%s mock_error=%q", key, r.Outcome, r.ErrorKind, r.Result.MockError)
		}
	}
}

// noUpstreams is a runtime whose sessions cannot reach the engine's
// services (the embedded interface hides Upstream).
type noUpstreams struct{ runtime.Runtime }

func (n noUpstreams) Open(ctx context.Context, spec runtime.SessionSpec) (runtime.Session, error) {
	s, err := n.Runtime.Open(ctx, spec)
	return struct{ runtime.Session }{s}, err
}
