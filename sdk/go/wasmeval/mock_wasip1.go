//go:build wasip1

package wasmeval

// Mock serves the mock export with fn. The mock package makes the export
// with it (mock.Serve); an export of your own:
//
//	//go:wasmexport mock
//	func mock() int32 { return wasmeval.Mock(answer) }
func Mock(fn MockFunction) int32 {
	if fn == nil {
		return serve(notServed("mock"))
	}
	return serve(func(dst, in []byte) ([]byte, error) { return handleMock(dst, in, fn) })
}
