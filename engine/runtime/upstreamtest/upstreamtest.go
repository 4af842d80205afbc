// Package upstreamtest is what the runtimes' upstream tests share: a
// server on the engine's side of an upstream, and what a client in the
// session fetched from it.
package upstreamtest

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// Serve answers on l with "got PATH" until the test ends (or the server
// it returns is closed). /together is
// answered only once parallel requests for it are in, so a client that
// gets every answer had them carried at the same time, not one after
// another.
func Serve(t testing.TB, l net.Listener, parallel int) *http.Server {
	t.Helper()
	var mu sync.Mutex
	in := 0
	all := make(chan struct{})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/together" {
			mu.Lock()
			if in++; in == parallel {
				close(all)
			}
			mu.Unlock()
			select {
			case <-all:
			case <-time.After(2 * time.Minute):
				http.Error(w, "not all arrived", 500)
				return
			}
		}
		fmt.Fprintf(w, "got %s", r.URL.Path)
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return srv
}

// Fetched is what a client prints, a body a line, after getting /one/0
// to /one/N-1 one after another and then /together parallel times at once.
func Fetched(n, parallel int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "got /one/%d\n", i)
	}
	return b.String() + strings.Repeat("got /together\n", parallel)
}
