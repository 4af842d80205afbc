package mock_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/mock"
	"github.com/wasmeval/wasmeval/engine/plugincall"
	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/runtime/docker"
	"github.com/wasmeval/wasmeval/engine/runtime/docker/dockertest"
	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// TestMain lets this test binary serve as a plugin worker, so a mock
// plugin can run with the "process" isolation wasmeval uses by default.
func TestMain(m *testing.M) {
	host.ServeWorker()
	os.Exit(m.Run())
}

// benchReply is the fixed JSON every target answers.
var benchReply = []byte(`{"id":"ch_1","object":"charge","status":"succeeded","amount":1250,"currency":"EUR"}`)

// benchRequest is a ~1 KB JSON charge request, as a submission would send.
func benchRequest() []byte {
	var items []string
	for i := 0; i < 8; i++ {
		items = append(items, fmt.Sprintf(`{"sku":"SKU-%03d","name":"item %d","qty":%d,"unit_amount":%d}`, i, i, i%3+1, 150*(i+1)))
	}
	body := `{"amount":1250,"currency":"EUR","customer":{"id":"cus_1","email":"ada@example.com","name":"Ada Lovelace"},` +
		`"description":"order 1042","metadata":{"order_id":"1042","channel":"web"},"capture":true,"items":[` +
		strings.Join(items, ",") + `]}`
	return []byte(body)
}

// benchRoutes is a route list of realistic size: nine routes that do not
// match (other paths and methods, then the same path with bodies it does
// not contain, so the body is parsed and compared), the matching one last.
func benchRoutes() []mock.Route {
	ok := []mock.Response{{Status: 201, Headers: map[string]string{"Content-Type": "application/json"}, Body: benchReply}}
	other := []mock.Response{{Status: 400, Body: []byte(`{"error":"not this one"}`)}}
	routes := []mock.Route{
		{Method: "GET", Path: "/v1/charges/{id}", Responses: other},
		{Method: "GET", Path: "/v1/customers/{id}", Responses: other},
		{Method: "POST", Path: "/v1/refunds", Responses: other},
		{Method: "POST", Path: "/v1/customers", Responses: other},
		{Path: "/v1/webhooks/*", Responses: other},
	}
	for _, cur := range []string{"USD", "GBP", "JPY", "CHF"} {
		routes = append(routes, mock.Route{Method: "POST", Path: "/v1/charges", Body: map[string]any{"currency": cur}, Responses: other})
	}
	return append(routes, mock.Route{Method: "POST", Path: "/v1/charges", Headers: map[string]string{"Content-Type": "application/json"},
		Body:      map[string]any{"currency": "EUR", "customer": map[string]any{"id": "cus_1"}, "capture": true},
		Responses: ok})
}

// target is one server the benchmark sends the request to.
type target struct {
	name   string
	url    string
	status []int // the statuses it may answer (a plugin's first charge differs)
	reply  []byte
	echo   bool // in the container: the Rust echo mock (any 200)
	total  time.Duration
	n      int
}

// BenchmarkMockRequest measures what a mock costs a submission per
// request: in the same iterations, one client sends the same POST (a
// ~1 KB JSON body) to a bare net/http server answering a fixed JSON
// response, to a mock service whose 10th and last route gives that
// response (method, path, a header and a JSON body subset), and to the
// host tests' mock plugin, run with each plugin isolation. Every
// iteration makes one request to each target, in a rotating order, so a
// change in the machine's load falls on all of them alike. It reports
// each target's µs/request and its difference to the bare server's
// (extra-µs/req): the figure the 0.5 ms target is read from. Calls are
// taken from the groups every benchRound iterations, as the engine takes
// them after each case, so every request's evidence is kept.
//
// Where a Docker engine is usable, a client inside a Docker runtime's
// container (testdata/benchclient) sends the same request, between the
// rounds outside, to another bare server, another routes mock and
// another service of the plugin (in worker processes) served on the
// session's upstreams: docker-bare, docker-routes and docker-plugin, what
// a submission on Docker sees through the runtime's forwarding.
//
// keepalive reuses one connection per target; newconn dials for every
// request, as a client without connection reuse does.
func BenchmarkMockRequest(b *testing.B) {
	reqBody := benchRequest()
	rustURLs := map[string]string{}
	var rustInProcess mock.Handler // how the engine runs a mock plugin
	var rustGroups []*mock.Group

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	serveBare(b, ln)

	services := []mock.Service{{Name: "routes", Routes: benchRoutes()}}
	plugin := benchMockPlugin(b)
	var processPlugin mock.Handler
	for _, iso := range []string{host.Process, host.InProcess} {
		h, err := host.New(host.Options{Isolation: iso, CacheDir: filepath.Join(b.TempDir(), "cache")})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { h.Close() })
		p, err := h.Load(context.Background(), plugin, "")
		if err != nil {
			b.Fatal(err)
		}
		handler := plugincall.MockHandler(p, map[string]any{}, nil)
		if iso == host.Process {
			processPlugin = handler
		}
		services = append(services, mock.Service{Name: "plugin_" + iso, Handler: handler})
	}
	// A Rust guest, which does far less per call than a Go one: the
	// conformance plugin's "echo" mock answers with the request it got.
	rustWasm := benchRustPlugin(b)
	for _, iso := range []string{host.Process, host.InProcess} {
		rust, err := benchHost(b, iso).Load(context.Background(), rustWasm, "")
		if err != nil {
			b.Fatal(err)
		}
		// The plugin answers by the service's name: each isolation gets
		// a group of its own.
		rg, err := mock.Start(context.Background(), []mock.Service{{Name: "echo", Handler: plugincall.MockHandler(rust, map[string]any{}, nil)}}, "127.0.0.1")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { rg.Close() })
		rustURLs[iso] = rg.URLs()["echo"]
		rustGroups = append(rustGroups, rg)
		if iso == host.InProcess {
			rustInProcess = plugincall.MockHandler(rust, map[string]any{}, nil)
		}
	}
	g, err := mock.Start(context.Background(), services, "127.0.0.1")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { g.Close() })
	urls := g.URLs()
	// The host tests' mock plugin accepts the first charge (201) and
	// refuses the later ones (409): both are its answers.
	targets := func() []*target {
		return []*target{
			{name: "bare", url: "http://" + ln.Addr().String(), status: []int{201}, reply: benchReply},
			{name: "routes", url: urls["routes"], status: []int{201}, reply: benchReply},
			{name: "plugin", url: urls["plugin_"+host.Process], status: []int{201, 409}},
			{name: "plugin-inprocess", url: urls["plugin_"+host.InProcess], status: []int{201, 409}},
			{name: "plugin-rust", url: rustURLs[host.Process], status: []int{200}},
			{name: "plugin-rust-inprocess", url: rustURLs[host.InProcess], status: []int{200}},
		}
	}

	docker := startInContainer(b, reqBody, processPlugin, rustInProcess)
	groups := append([]*mock.Group{g}, rustGroups...)
	if docker != nil {
		groups = append(groups, docker.group)
	}
	// The route that answers is the last one, and no request went
	// unmatched: the benchmark measures a match, not a 501.
	check := func(b *testing.B) {
		for _, g := range groups {
			calls, dropped := g.TakeCalls()
			if dropped != 0 {
				b.Fatalf("%d calls dropped between takes", dropped)
			}
			for _, c := range calls {
				if c.Fault != "" || c.Unmatched || (c.Mock == "routes" && c.Route != 9) {
					b.Fatalf("call %+v: expected the last route or the plugin to answer", c)
				}
			}
		}
	}

	for _, mode := range []struct {
		name      string
		keepAlive bool
	}{{"keepalive", true}, {"newconn", false}} {
		b.Run(mode.name, func(b *testing.B) {
			tr := &http.Transport{DisableKeepAlives: !mode.keepAlive, MaxIdleConnsPerHost: 4}
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr, Timeout: 2 * time.Minute}
			ts := targets()
			for _, t := range ts { // warm: connections, plugin instances
				send1(b, client, t, reqBody)
			}
			check(b)
			for _, t := range ts {
				t.total, t.n = 0, 0
			}
			var inside []*target
			if docker != nil {
				inside = docker.targets()
			}
			b.ResetTimer()
			for done := 0; done < b.N; {
				n := min(benchRound, b.N-done)
				for i := done; i < done+n; i++ {
					for j := range ts {
						send1(b, client, ts[(i+j)%len(ts)], reqBody)
					}
				}
				b.StopTimer()
				check(b)
				if docker != nil {
					docker.send(b, n, mode.name, inside)
					check(b)
				}
				b.StartTimer()
				done += n
			}
			b.StopTimer()
			ts = append(ts, inside...)
			base := ts[0].perRequest()
			for _, t := range ts {
				b.ReportMetric(t.perRequest(), t.name+"-µs/req")
				if t != ts[0] {
					b.ReportMetric(t.perRequest()-base, t.name+"-extra-µs/req")
				}
			}
		})
	}
}

// benchHost is a plugin host with the isolation iso.
func benchHost(b *testing.B, iso string) *host.Host {
	h, err := host.New(host.Options{Isolation: iso, CacheDir: filepath.Join(b.TempDir(), "cache")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close() })
	return h
}

// benchRustPlugin builds the Rust SDK's conformance plugin from source.
func benchRustPlugin(b *testing.B) string {
	root, err := pluginbuild.ModuleRoot()
	if err != nil {
		b.Fatal(err)
	}
	wasm := filepath.Join(b.TempDir(), "conformance-rust.wasm")
	if err := pluginbuild.BuildRust(filepath.Join(root, "plugins", "conformance", "rust", "lib.rs"), wasm); err != nil {
		b.Fatal(err)
	}
	return wasm
}

// send1 sends the request to t once, adds the time it took to t's, and
// fails the benchmark on an answer t should not give.
func send1(b *testing.B, client *http.Client, t *target, body []byte) {
	req, err := http.NewRequest("POST", t.url+"/v1/charges", bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	begin := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		b.Fatalf("%s: %v", t.name, err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(begin)
	if err != nil {
		b.Fatalf("%s: reading the response: %v", t.name, err)
	}
	if !slices.Contains(t.status, resp.StatusCode) || (t.reply != nil && !bytes.Equal(got, t.reply)) {
		b.Fatalf("%s answered %d %s, expected %v %s", t.name, resp.StatusCode, got, t.status, t.reply)
	}
	t.total += took
	t.n++
}

func (t *target) perRequest() float64 {
	if t.n == 0 {
		return 0
	}
	return float64(t.total) / float64(time.Microsecond) / float64(t.n)
}

// benchMockPlugin builds the host tests' mock plugin
// (plugins/host/testdata/mock) from source.
func benchMockPlugin(b *testing.B) string {
	root, err := pluginbuild.ModuleRoot()
	if err != nil {
		b.Fatal(err)
	}
	wasm := filepath.Join(b.TempDir(), "mock.wasm")
	if err := pluginbuild.Build(filepath.Join(root, "plugins", "host", "testdata", "mock"), wasm); err != nil {
		if os.Getenv("CI") == "true" {
			b.Fatal(err)
		}
		b.Skip(err)
	}
	return wasm
}

// benchRound is how many iterations run between two takes of the calls
// (and, in the container, one run of the client).
const benchRound = 50

// serveBare serves the baseline on l: a net/http handler that reads the
// request and answers the fixed response.
func serveBare(b *testing.B, l net.Listener) {
	bare := &http.Server{ReadHeaderTimeout: time.Minute, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		w.Write(benchReply)
	})}
	go bare.Serve(l)
	b.Cleanup(func() { bare.Close() })
}

// inContainer is the benchmark's client inside a Docker runtime's
// container, reaching the bare server and the routes mock through the
// runtime's upstreams (the container has no other network).
type inContainer struct {
	session runtime.Session
	group   *mock.Group
	bare    string // base URLs inside the container
	routes  string
	plugin  string
	rust    string
}

// startInContainer opens a Docker runtime's session whose submission is
// the client (built from testdata/benchclient for the daemon's Linux),
// serves the bare server and the routes mock on upstreams of it, and
// returns them; nil, with a line in the log, when there is no usable
// Docker engine (a failure under CI=true, which has one).
func startInContainer(b *testing.B, reqBody []byte, plugin, rust mock.Handler) *inContainer {
	cli, err := docker.Connect()
	if err == nil {
		_, err = docker.Ping(context.Background(), cli)
	}
	if err == nil {
		_, err = docker.FindBusybox()
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			b.Fatalf("docker engine required under CI: %v", err)
		}
		b.Logf("no usable Docker engine, the in-container targets are left out: %v", err)
		return nil
	}
	sub := b.TempDir()
	build := exec.Command("go", "build", "-trimpath", "-o", filepath.Join(sub, "benchclient"), "./testdata/benchclient")
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build the benchmark's client: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(sub, "request.json"), reqBody, 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "reply.json"), benchReply, 0o644); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	rt, err := docker.New(ctx, docker.Options{Spec: dockertest.Spec(b, dockertest.Image(b, "busybox")), BaseDir: b.TempDir(), Client: cli})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { rt.Close() })
	s, err := rt.Open(ctx, runtime.SessionSpec{Submission: sub, Label: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	up, ok := s.(runtime.Upstreams)
	if !ok {
		b.Fatal("the Docker runtime's session gives no upstreams")
	}
	l, bareAddr, err := up.Upstream(ctx, "bare")
	if err != nil {
		b.Fatal(err)
	}
	serveBare(b, l)
	g, err := mock.StartOn(ctx, []mock.Service{{Name: "routes", Routes: benchRoutes()}, {Name: "plugin", Handler: plugin}, {Name: "echo", Handler: rust}}, up.Upstream)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { g.Close() })
	urls := g.URLs()
	return &inContainer{session: s, group: g, bare: "http://" + bareAddr, routes: urls["routes"], plugin: urls["plugin"], rust: urls["echo"]}
}

func (c *inContainer) targets() []*target {
	return []*target{{name: "docker-bare", url: c.bare, reply: benchReply}, {name: "docker-routes", url: c.routes, reply: benchReply},
		{name: "docker-plugin", url: c.plugin}, {name: "docker-plugin-rust-inprocess", url: c.rust, echo: true}}
}

// send runs the client in the container for n rounds (mode: keepalive or
// newconn) and adds the time its requests took to ts.
func (c *inContainer) send(b *testing.B, n int, mode string, ts []*target) {
	argv := []string{"./benchclient", strconv.Itoa(n), mode, "request.json"}
	for _, t := range ts {
		reply := "-" // the plugin's answers
		switch {
		case t.echo:
			reply = "echo"
		case t.reply != nil:
			reply = "reply.json"
		}
		argv = append(argv, t.url, reply)
	}
	res, err := c.session.Exec(context.Background(), runtime.ExecRequest{
		Argv: argv,
		Env:  map[string]string{"PATH": "/bin:/usr/bin"}, Timeout: 10 * time.Minute})
	if err != nil || res.ExitCode != 0 {
		b.Fatalf("the client in the container: %+v %v\n%s", res, err, res.Stderr)
	}
	lines := strings.Fields(string(res.Stdout))
	if len(lines) != len(ts) {
		b.Fatalf("the client in the container printed %q, expected %d totals", res.Stdout, len(ts))
	}
	for i, line := range lines {
		ns, err := strconv.ParseInt(line, 10, 64)
		if err != nil {
			b.Fatalf("the client in the container printed %q: %v", res.Stdout, err)
		}
		ts[i].total += time.Duration(ns)
		ts[i].n += n
	}
}
