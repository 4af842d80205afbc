//go:build linux

package executor

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/runtime/upstreamtest"
)

// freePort is a loopback port nothing listens on.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// A forward carries connections from its TCP port to the Unix socket, one
// after another and many at once, with each side's end of writing passed
// on (an HTTP/1.0 exchange ends by the server closing).
func TestForwardCarriesConnections(t *testing.T) {
	x := pair(t)
	sock := filepath.Join(t.TempDir(), "up.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	const parallel = 8
	srv := upstreamtest.Serve(t, l, parallel)

	addr := freePort(t)
	if err := x.Forward(addr, sock, time.Minute); err != nil {
		t.Fatal(err)
	}
	cl := &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{DisableKeepAlives: true}}
	get := func(path string) (string, error) {
		resp, err := cl.Get("http://" + addr + path)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	for i := 0; i < 5; i++ {
		if body, err := get(fmt.Sprintf("/one/%d", i)); err != nil || body != fmt.Sprintf("got /one/%d", i) {
			t.Fatalf("request %d: %q %v", i, body, err)
		}
	}
	errs := make(chan error, parallel)
	for i := 0; i < parallel; i++ {
		go func() {
			body, err := get("/together")
			if err == nil && body != "got /together" {
				err = fmt.Errorf("body %q", body)
			}
			errs <- err
		}()
	}
	for i := 0; i < parallel; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}

	// A service the engine closed refuses, as a closed port would: the
	// connection ends without an answer.
	srv.Close()
	if body, err := get("/after"); err == nil {
		t.Errorf("closed service answered %q", body)
	}
}

// Forward requests the executor cannot or must not serve are refused
// with a reason, and the executor goes on.
func TestForwardRefusals(t *testing.T) {
	x := pair(t)
	sock := filepath.Join(t.TempDir(), "up.sock")
	taken := freePort(t)
	if err := x.Forward(taken, sock, time.Minute); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ listen, to, want string }{
		{taken, sock, "forwarded already"},
		{"0.0.0.0:0", sock, "not a loopback address"},
		{"127.0.0.1", sock, "missing port"},
		{freePort(t), "up.sock", "not an absolute socket path"},
	} {
		err := x.Forward(tc.listen, tc.to, time.Minute)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("forward %s to %s: %v, want %q", tc.listen, tc.to, err, tc.want)
		}
	}
	// A port something else holds.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := x.Forward(l.Addr().String(), sock, time.Minute); err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Errorf("forward of a taken port: %v", err)
	}
	if rep, err := x.Call(Request{Op: "sweep"}, time.Minute); err != nil || rep.Op != "swept" {
		t.Errorf("the executor after refusals: %+v %v", rep, err)
	}
}
