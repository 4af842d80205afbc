// Package mock serves a mock plugin's export, mock, with one function: the
// response of a mock service (an upstream a submission under test calls)
// to one request. Import it and hand it your function from an init
// function:
//
//	func init() { mock.Serve(answer) }
//
// The package exports mock itself (so write no //go:wasmexport mock of
// your own beside it). mock has no batch form: each call of a mock in a
// group gets the state the call before it left.
package mock

import (
	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval/internal/served"
)

var fn wasmeval.MockFunction

// Serve makes f the plugin's mock function.
func Serve(f func(*wasmeval.MockInput) (*wasmeval.MockOutput, error)) {
	fn = f
	served.Set(abi.KindMock, f != nil)
}
