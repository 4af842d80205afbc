package mock

import (
	"context"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// Handler answers a service's requests in place of routes: a Wasm plugin
// of the mock kind (engine/plugincall adapts one). It gets each request,
// how many the service answered before in the group and the state the
// previous answer left, and returns the response and the state for the
// next call. An error is a fault of the mock: the submission gets a 500,
// and the call's evidence says why, which makes its case an error.
type Handler interface {
	Answer(ctx context.Context, service string, req abi.MockRequest, call int, state any) (abi.MockResponse, any, error)
}
