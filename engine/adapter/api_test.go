package adapter_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/adapter"
	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
)

// trivialServerEnv makes this test binary serve as the trivial server the
// benchmark starts through the runtime, like a submission's server.
const trivialServerEnv = "WASMEVAL_TRIVIAL_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(agentServerEnv) == "1" {
		serveAgent()
		return
	}
	if os.Getenv(trivialServerEnv) == "1" {
		if runAsServerMode(os.Getenv(serverModeEnv)) {
			return
		}
		l, err := net.Listen("tcp", net.JoinHostPort(os.Getenv("HOST"), os.Getenv("PORT")))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/bytes":
				w.Write([]byte{0, 1, 2, 0xff})
			case "/text":
				w.Header().Add("X-Multi", "a")
				w.Header().Add("X-Multi", "b")
				io.WriteString(w, "not json")
			case "/empty":
				w.WriteHeader(http.StatusNoContent)
			case "/big":
				io.WriteString(w, strings.Repeat("x", 100))
			case "/echo":
				body, _ := io.ReadAll(r.Body)
				fmt.Fprintf(w, "%s %s %s %s", r.Method, r.URL.RawQuery, r.Header.Get("Content-Type"), body)
			default:
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"ok":true}`)
			}
		}))
		return
	}
	os.Exit(m.Run())
}

// startTrivial starts the trivial server through the local runtime and the
// API adapter's server handling.
func startTrivial(tb testing.TB) (*adapter.API, runtime.Session, func()) {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	rt := local.New(local.Options{BaseDir: tb.TempDir()})
	sess, err := rt.Open(context.Background(), runtime.SessionSpec{Submission: tb.TempDir(), Label: "bench"})
	if err != nil {
		tb.Fatal(err)
	}
	api := &adapter.API{
		Server: adapter.Server{Command: []string{exe}, Config: problem.Server{
			Env:    map[string]string{trivialServerEnv: "1"},
			Health: problem.HealthCheck{Path: "/", Delay: 20 * time.Millisecond, StartupTimeout: 20 * time.Second},
		}},
		Response: problem.ResponseJSON, OutputCap: 1 << 20,
	}
	if err := api.Begin(context.Background(), sess); err != nil {
		tb.Fatal(err)
	}
	if down := api.Server.Down(); down != "" {
		tb.Fatal(down)
	}
	return api, sess, func() { api.End(); sess.Close() }
}

// BenchmarkAPIAdapter measures requests per second through the API adapter
// (request building, response capture, header and JSON handling) against a
// bare net/http client loop, both against the same trivial server started
// in the same run. ratio is adapter req/s over bare req/s.
func BenchmarkAPIAdapter(b *testing.B) {
	api, workspace, stop := startTrivial(b)
	defer stop()
	url := api.Server.BaseURL() + "/"
	c := &cases.Case{ID: "bench", Request: &cases.Request{Method: http.MethodGet, Path: "/"}, Timeout: 5 * time.Second}
	client := &http.Client{}
	ctx := context.Background()

	bare := func(n int) time.Duration {
		start := time.Now()
		for i := 0; i < n; i++ {
			resp, err := client.Get(url)
			if err != nil {
				b.Fatal(err)
			}
			io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		return time.Since(start)
	}
	through := func(n int) time.Duration {
		start := time.Now()
		for i := 0; i < n; i++ {
			out, err := api.Run(ctx, workspace, c)
			if err != nil || out.StatusCode != 200 || out.Output != `{"ok":true}` {
				b.Fatalf("%+v %v", out, err)
			}
		}
		return time.Since(start)
	}
	bare(100) // warm both connection pools
	through(100)
	b.ResetTimer()
	// Interleave halves so machine noise hits both loops alike.
	var tBare, tAdapter time.Duration
	half := max(b.N/2, 1)
	tBare += bare(half)
	tAdapter += through(half)
	tBare += bare(half)
	tAdapter += through(half)
	b.StopTimer()
	bareRate := float64(2*half) / tBare.Seconds()
	adapterRate := float64(2*half) / tAdapter.Seconds()
	b.ReportMetric(bareRate, "bare-req/s")
	b.ReportMetric(adapterRate, "adapter-req/s")
	b.ReportMetric(adapterRate/bareRate, "ratio")
}

// The trivial server answers through the adapter with its headers and body.
func TestAPIAdapterAgainstTrivialServer(t *testing.T) {
	api, workspace, stop := startTrivial(t)
	defer stop()
	c := &cases.Case{ID: "t", Request: &cases.Request{Method: http.MethodPost, Path: "/x", Query: map[string][]string{"a": {"1"}}, Body: []byte("{}"), ContentType: "application/json"}, Timeout: 5 * time.Second}
	out, err := api.Run(context.Background(), workspace, c)
	if err != nil || out.StatusCode != 200 || out.Output != `{"ok":true}` || out.Headers["content-type"] != "application/json" ||
		strings.Join(out.Command, " ") != "POST /x?a=1" || out.AdapterError || out.Error != "" {
		t.Errorf("%+v %v", out, err)
	}
}

// Response formats and caps: binary bodies in base64, text capped with a
// marker, a body that is not JSON noted (an empty one is fine), repeated
// headers joined, the request's body and content type sent as given.
func TestAPIAdapterResponseFormats(t *testing.T) {
	api, workspace, stop := startTrivial(t)
	defer stop()
	api.OutputCap = 50
	run := func(r *cases.Request) result.Execution {
		t.Helper()
		out, err := api.Run(context.Background(), workspace, &cases.Case{ID: "f", Request: r, Timeout: 5 * time.Second})
		if err != nil || out.AdapterError {
			t.Fatalf("%+v %v", out, err)
		}
		return out
	}
	if out := run(&cases.Request{Method: "GET", Path: "/bytes", Response: problem.ResponseBinary}); out.Output != "AAEC/w==" {
		t.Errorf("binary: %q", out.Output)
	}
	out := run(&cases.Request{Method: "GET", Path: "/text"})
	if out.Error != "response body is not JSON" || out.Output != "not json" || out.Headers["x-multi"] != "a, b" {
		t.Errorf("text under json: %+v", out)
	}
	if out := run(&cases.Request{Method: "GET", Path: "/empty"}); out.StatusCode != 204 || out.Error != "" || out.Output != "" {
		t.Errorf("empty: %+v", out)
	}
	out = run(&cases.Request{Method: "GET", Path: "/big", Response: problem.ResponseText})
	if out.OutputDropped != 50 || !strings.HasPrefix(out.Output, strings.Repeat("x", 50)+"\n[wasmeval: output truncated, 50 more bytes dropped]") {
		t.Errorf("cap: %+v", out)
	}
	out = run(&cases.Request{Method: "PUT", Path: "/echo", Query: map[string][]string{"k": {"v w"}}, Body: []byte("hi"), ContentType: "text/plain",
		Headers: map[string]string{"Content-Type": "text/x-custom"}, Response: problem.ResponseText})
	if out.Output != "PUT k=v+w text/x-custom hi" {
		t.Errorf("echo: %q", out.Output)
	}
	// A case without a request is the adapter's error, not a crash.
	bad, err := api.Run(context.Background(), workspace, &cases.Case{ID: "none", Timeout: time.Second})
	if err != nil || !bad.AdapterError || !strings.Contains(bad.Error, "case has no request") {
		t.Errorf("no request: %+v %v", bad, err)
	}
}
