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
	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
)

// trivialServerEnv makes this test binary serve as the trivial server the
// benchmark starts through the runtime, like a submission's server.
const trivialServerEnv = "WASMEVAL_TRIVIAL_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(trivialServerEnv) == "1" {
		l, err := net.Listen("tcp", net.JoinHostPort(os.Getenv("HOST"), os.Getenv("PORT")))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"ok":true}`)
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
			Health: problem.HealthCheck{Path: "/", Attempts: 200, Delay: 20 * time.Millisecond, StartupTimeout: 20 * time.Second},
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
