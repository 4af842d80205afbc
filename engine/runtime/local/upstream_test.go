//go:build linux

package local

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/runtime/upstreamtest"
)

// fetchEnv makes the test binary a small HTTP client, run as a case:
// WASMEVAL_TEST_FETCH="URL N PARALLEL" gets URL/one N times one after
// another, then URL/together PARALLEL times at once, and prints each body
// on a line of its own.
const fetchEnv = "WASMEVAL_TEST_FETCH"

func init() {
	if v := os.Getenv(fetchEnv); v != "" {
		os.Exit(fetch(strings.Fields(v)))
	}
}

func fetch(args []string) int {
	if len(args) != 3 {
		fmt.Fprintln(os.Stderr, "fetch: want URL N PARALLEL")
		return 2
	}
	n, _ := strconv.Atoi(args[1])
	parallel, _ := strconv.Atoi(args[2])
	cl := &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{DisableKeepAlives: true}}
	get := func(path string) string {
		resp, err := cl.Get(args[0] + path)
		if err != nil {
			return "error: " + err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	for i := 0; i < n; i++ {
		fmt.Println(get("/one/" + strconv.Itoa(i)))
	}
	out := make(chan string, parallel)
	for i := 0; i < parallel; i++ {
		go func() { out <- get("/together") }()
	}
	for i := 0; i < parallel; i++ {
		fmt.Println(<-out)
	}
	return 0
}

// wantFetched checks what the fetch client printed.
func wantFetched(t *testing.T, out, want string) {
	t.Helper()
	if out != want {
		t.Fatalf("fetched:\n%s\nwant:\n%s", out, want)
	}
}

// A case and a server reach the engine's listener at the address
// Upstream returns, in every isolation: the launcher's namespaces leave
// the host's network shared.
func TestUpstreamReachable(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	eachIsolation(t, func(t *testing.T, iso Isolation) {
		s := openSessionWith(t, Options{Isolation: iso}, nil)
		up, ok := s.(runtime.Upstreams)
		if !ok {
			t.Fatal("the local session offers no upstreams")
		}
		l, addr, err := up.Upstream(context.Background(), "payments")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(addr, "127.0.0.1:") {
			t.Fatalf("address %q", addr)
		}
		const n, parallel = 3, 6
		upstreamtest.Serve(t, l, parallel)
		url := "http://" + addr
		res, err := s.Exec(context.Background(), runtime.ExecRequest{
			Argv: []string{exe}, Env: map[string]string{fetchEnv: fmt.Sprintf("%s %d %d", url, n, 0)}, Timeout: 2 * time.Minute,
		})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("case: %+v %v (stderr %q)", res, err, res.Stderr)
		}
		wantFetched(t, string(res.Stdout), upstreamtest.Fetched(n, 0))
		res, err = s.Exec(context.Background(), runtime.ExecRequest{
			Argv: []string{exe}, Env: map[string]string{fetchEnv: fmt.Sprintf("%s %d %d", url, 0, parallel)}, Timeout: 2 * time.Minute,
		})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("case: %+v %v (stderr %q)", res, err, res.Stderr)
		}
		wantFetched(t, string(res.Stdout), upstreamtest.Fetched(0, parallel))

		var out syncBuffer
		p, err := s.Start(context.Background(), runtime.StartRequest{
			Argv: []string{exe}, Env: map[string]string{fetchEnv: fmt.Sprintf("%s %d %d", url, 2, 0)}, Stdout: &out,
		})
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-p.Exited():
		case <-time.After(2 * time.Minute):
			t.Fatal("the server's requests did not end")
		}
		if st := p.State(); st.ExitCode != 0 {
			t.Fatalf("server: %+v", st)
		}
		wantFetched(t, out.String(), upstreamtest.Fetched(2, 0))

		// Close closes the listener.
		s.Close()
		if _, err := net.DialTimeout("tcp", addr, time.Minute); err == nil {
			t.Error("the upstream still listens after Close")
		}
	})
}
