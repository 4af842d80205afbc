package mock_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/mock"
	"github.com/wasmeval/wasmeval/engine/plugincall"
	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

func start(t *testing.T, services ...mock.Service) *mock.Group {
	t.Helper()
	g, err := mock.Start(context.Background(), services, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

// send makes one request and returns the status and body.
func send(t *testing.T, method, url, body string, headers ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

var payments = mock.Service{Name: "payments", Routes: []mock.Route{
	{Method: "POST", Path: "/charges", Body: map[string]any{"currency": "EUR"},
		Responses: []mock.Response{
			{Status: 201, Headers: map[string]string{"Content-Type": "application/json"}, Body: []byte(`{"id":"ch_1"}`)},
			{Status: 201, Body: []byte(`{"id":"ch_2"}`)},
			{Status: 402, Body: []byte(`{"error":"card declined"}`)},
		}},
	{Method: "GET", Path: "/charges/{id}", Query: map[string]string{"expand": "customer"}, Headers: map[string]string{"Authorization": "Bearer k"},
		Responses: []mock.Response{{Status: 200, Body: []byte(`{"id":"found"}`)}}},
	{Path: "/static/*", Responses: []mock.Response{{Status: 204}}},
}}

// Routes match on method, path pattern, query, headers and a JSON body
// subset; each route's responses come in order, the last repeated; what
// no route matches is answered 501; every request is evidence.
func TestRoutes(t *testing.T) {
	g := start(t, payments)
	url := g.URLs()["payments"]
	want := []struct {
		method, path, body string
		headers            []string
		status             int
		reply              string
	}{
		{"POST", "/charges", `{"amount": 12.5, "currency": "EUR", "extra": [1]}`, nil, 201, `{"id":"ch_1"}`},
		{"POST", "/charges", `{"currency":"EUR"}`, nil, 201, `{"id":"ch_2"}`},
		{"POST", "/charges", `{"currency":"EUR"}`, nil, 402, `{"error":"card declined"}`},
		{"POST", "/charges", `{"currency":"EUR"}`, nil, 402, `{"error":"card declined"}`}, // the last repeats
		{"POST", "/charges", `{"currency":"USD"}`, nil, 501, "no route of mock payments matches POST /charges\n"},
		{"POST", "/charges", `not json`, nil, 501, "no route of mock payments matches POST /charges\n"},
		{"GET", "/charges/ch_1?expand=customer", "", []string{"Authorization", "Bearer k"}, 200, `{"id":"found"}`},
		{"GET", "/charges/ch_1?expand=customer", "", nil, 501, "no route of mock payments matches GET /charges/ch_1\n"},
		{"GET", "/charges/ch_1/refunds?expand=customer", "", []string{"Authorization", "Bearer k"}, 501, "no route of mock payments matches GET /charges/ch_1/refunds\n"},
		{"DELETE", "/static/a/b.css", "", nil, 204, ""},
		{"GET", "/static/", "", nil, 501, "no route of mock payments matches GET /static/\n"},
	}
	for i, w := range want {
		status, body := send(t, w.method, url+w.path, w.body, w.headers...)
		if status != w.status || body != w.reply {
			t.Errorf("request %d (%s %s %s): got %d %q, want %d %q", i, w.method, w.path, w.body, status, body, w.status, w.reply)
		}
	}
	calls, dropped := g.TakeCalls()
	if len(calls) != len(want) || dropped != 0 {
		t.Fatalf("%d calls kept, %d dropped, want %d", len(calls), dropped, len(want))
	}
	unmatched := 0
	for _, c := range calls {
		if c.Unmatched {
			unmatched++
		}
	}
	if unmatched != 5 {
		t.Errorf("%d unmatched, want 5", unmatched)
	}
	c := calls[0]
	if c.Mock != "payments" || c.Method != "POST" || c.Path != "/charges" || c.Status != 201 || c.Route != 0 ||
		c.Body != `{"amount": 12.5, "currency": "EUR", "extra": [1]}` || len(c.Headers["user-agent"]) != 1 || calls[4].Route != -1 || !calls[4].Unmatched {
		t.Errorf("first call's evidence %+v", c)
	}
	if got := calls[6]; got.Route != 1 || got.Query["expand"][0] != "customer" || got.Headers["authorization"][0] != "Bearer k" {
		t.Errorf("GET call's evidence %+v", got)
	}
	if again, _ := g.TakeCalls(); len(again) != 0 {
		t.Errorf("a second take gave %d calls, want none", len(again))
	}
}

// A body that is not UTF-8 is kept in base64; a delay holds the response
// back at least that long.
func TestEvidenceAndDelay(t *testing.T) {
	g := start(t, mock.Service{Name: "slow", Routes: []mock.Route{{Path: "/", Responses: []mock.Response{{Status: 200, DelayMS: 200}}}}})
	begin := time.Now()
	if status, _ := send(t, "PUT", g.URLs()["slow"]+"/", "\xff\x00"); status != 200 {
		t.Fatalf("status %d", status)
	}
	if took := time.Since(begin); took < 200*time.Millisecond {
		t.Errorf("answered after %v, before the 200 ms delay", took)
	}
	calls, _ := g.TakeCalls()
	if len(calls) != 1 || calls[0].Body != "" || calls[0].BodyBase64 != "/wA=" {
		t.Fatalf("evidence %+v", calls)
	}
}

// Concurrent requests take a route's responses one at a time: with
// [200, 200, 500], exactly two get 200.
func TestConcurrentCallsCountOnce(t *testing.T) {
	g := start(t, mock.Service{Name: "flaky", Routes: []mock.Route{{Path: "/", Responses: []mock.Response{{Status: 200}, {Status: 200}, {Status: 500}}}}})
	var wg sync.WaitGroup
	var mu sync.Mutex
	counts := map[int]int{}
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Get(g.URLs()["flaky"] + "/")
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			mu.Lock()
			counts[resp.StatusCode]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if counts[200] != 2 || counts[500] != 38 {
		t.Fatalf("statuses %v, want two 200 and 38 500", counts)
	}
}

// A flood of requests keeps the first MaxCalls as evidence and counts the
// rest; a body over the limit is answered 413 and noted.
func TestFloodAndLargeBody(t *testing.T) {
	g := start(t, mock.Service{Name: "sink", Routes: []mock.Route{{Path: "/", Responses: []mock.Response{{Status: 200}}}}})
	url := g.URLs()["sink"] + "/"
	client := &http.Client{}
	for i := 0; i < mock.MaxCalls+25; i++ {
		resp, err := client.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	calls, dropped := g.TakeCalls()
	if len(calls) != mock.MaxCalls || dropped != 25 {
		t.Fatalf("kept %d, dropped %d; want %d and 25", len(calls), dropped, mock.MaxCalls)
	}
	resp, err := client.Post(url, "application/octet-stream", bytes.NewReader(make([]byte, mock.MaxRequestBody+1)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	calls, _ = g.TakeCalls()
	if resp.StatusCode != 413 || len(calls) != 1 || calls[0].Status != 413 {
		t.Fatalf("status %d, calls %d", resp.StatusCode, len(calls))
	}
}

// Bad declarations are refused naming the mock, the route and the field.
func TestCheck(t *testing.T) {
	ok := mock.Route{Path: "/", Responses: []mock.Response{{Status: 200}}}
	for _, c := range []struct {
		svc  []mock.Service
		want string
	}{
		{[]mock.Service{{Name: "pay-ments", Routes: []mock.Route{ok}}}, `mock "pay-ments": expected a name of letters, digits and _`},
		{[]mock.Service{{Name: "a", Routes: []mock.Route{ok}}, {Name: "A", Routes: []mock.Route{ok}}}, `mock "A": declared twice`},
		{[]mock.Service{{Name: "a"}}, `mock "a": no routes and no plugin`},
		{[]mock.Service{{Name: "a", Routes: []mock.Route{{Path: "charges", Responses: ok.Responses}}}}, `mock "a": routes[0]: path "charges": expected a path starting with /`},
		{[]mock.Service{{Name: "a", Routes: []mock.Route{{Path: "/a/*/b", Responses: ok.Responses}}}}, `routes[0]: path "/a/*/b": * is only taken as the last segment`},
		{[]mock.Service{{Name: "a", Routes: []mock.Route{{Path: "/", Method: "GE T", Responses: ok.Responses}}}}, `routes[0]: method "GE T"`},
		{[]mock.Service{{Name: "a", Routes: []mock.Route{{Path: "/"}}}}, `routes[0]: responses: expected at least one`},
		{[]mock.Service{{Name: "a", Routes: []mock.Route{{Path: "/", Responses: []mock.Response{{Status: 42}}}}}}, `routes[0]: responses[0].status 42`},
		{[]mock.Service{{Name: "a", Routes: []mock.Route{{Path: "/", Responses: []mock.Response{{Status: 200, DelayMS: 60001}}}}}}, `responses[0].delay_ms 60001`},
		{[]mock.Service{{Name: "a", Routes: []mock.Route{{Path: "/", Responses: []mock.Response{{Status: 200, Headers: map[string]string{"x": "a\nb"}}}}}}}, `responses[0].headers["x"]: a value may not hold a line break`},
	} {
		err := mock.Check(c.svc)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
		if _, err := mock.Start(context.Background(), c.svc, "127.0.0.1"); err == nil {
			t.Errorf("Start took what Check refuses: %q", c.want)
		}
	}
	if mock.EnvName("payments") != "WASMEVAL_MOCK_PAYMENTS" {
		t.Error(mock.EnvName("payments"))
	}
}

// A mock written as a Wasm plugin (the conformance suite's Go reference
// plugin, built from source) answers through the host: its state goes
// from call to call, and an answer it cannot give is a fault on the call,
// a 500 to the submission.
func TestPluginMock(t *testing.T) {
	root, err := pluginbuild.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	wasm := filepath.Join(t.TempDir(), "conformance.wasm")
	if err := pluginbuild.Build(filepath.Join(root, "plugins", "conformance", "go"), wasm); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	h, err := host.New(host.Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	p, err := h.Load(context.Background(), wasm, "")
	if err != nil {
		t.Fatal(err)
	}
	handler := plugincall.MockHandler(p, map[string]any{}, nil)
	g := start(t, mock.Service{Name: "echo", Handler: handler}, mock.Service{Name: "refuse", Handler: handler})
	for i := 0; i < 3; i++ {
		status, body := send(t, "POST", g.URLs()["echo"]+"/rates?base=EUR", `{"n":1}`, "X-Trace", "t1")
		var got struct {
			Call  int
			State map[string]json.Number
			Query map[string][]string
			Body  string
		}
		if err := json.Unmarshal([]byte(body), &got); status != 200 || err != nil {
			t.Fatalf("call %d: %d %s (%v)", i, status, body, err)
		}
		wantState := ""
		if i > 0 {
			wantState = fmt.Sprint(i)
		}
		if got.Call != i || string(got.State["calls"]) != wantState || got.Query["base"][0] != "EUR" || got.Body != `{"n":1}` {
			t.Fatalf("call %d: the plugin saw %+v", i, got)
		}
	}
	status, body := send(t, "DELETE", g.URLs()["refuse"]+"/accounts/1", "")
	calls, _ := g.TakeCalls()
	if status != 500 || !strings.Contains(body, `cannot answer: cannot answer "DELETE /accounts/1"`) {
		t.Fatalf("refused: %d %q", status, body)
	}
	if len(calls) != 4 || calls[3].Fault == "" || calls[3].Mock != "refuse" || calls[3].Method != "DELETE" || calls[3].Path != "/accounts/1" || calls[3].Status != 500 {
		t.Fatalf("evidence %+v", calls)
	}
}
