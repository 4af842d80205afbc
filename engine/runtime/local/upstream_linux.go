//go:build linux

package local

import (
	"context"
	"fmt"
	"net"

	"github.com/wasmeval/wasmeval/engine/runtime"
)

// Upstream opens a listener on the loopback interface for a service the
// engine serves. The launcher's namespaces are PID, mount and user ones,
// never a network namespace: in every isolation mode a case and a server
// share the host's network, so the host's 127.0.0.1 is theirs too.
func (s *session) Upstream(ctx context.Context, name string) (net.Listener, string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", fmt.Errorf("local runtime: open a listener for %s: %w", name, err)
	}
	s.upstreams = append(s.upstreams, l)
	return l, l.Addr().String(), nil
}

// closeUpstreams closes every listener Upstream opened (Close); the
// caller may have closed them already.
func (s *session) closeUpstreams() {
	for _, l := range s.upstreams {
		l.Close()
	}
	s.upstreams = nil
}

var _ runtime.Upstreams = (*session)(nil)
