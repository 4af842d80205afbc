package runtime

import (
	"context"
	"net"
)

// Upstreams is implemented by sessions whose processes can reach services
// the engine serves (a problem's mock upstreams). It is optional: a caller
// asserts it on a Session, and a session without it cannot give its
// processes any service of the engine's.
type Upstreams interface {
	// Upstream opens a listener for one service and returns it with the
	// host:port at which the session's processes (cases and servers)
	// reach it; the caller serves the listener. The address stays valid
	// for the session's life, whatever the runtime does underneath (a
	// replaced container gets the same address). The session closes the
	// listener at Close at the latest. name identifies the service in
	// errors.
	Upstream(ctx context.Context, name string) (net.Listener, string, error)
}
