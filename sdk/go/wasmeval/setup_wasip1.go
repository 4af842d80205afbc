//go:build wasip1

package wasmeval

// Setup serves the setup export with fns, the plugin's setup functions by
// name. The setup package makes the export with them (setup.Serve); an
// export of your own:
//
//	//go:wasmexport setup
//	func setup() int32 { return wasmeval.Setup(functions) }
func Setup(fns map[string]SetupFunction) int32 {
	if len(fns) == 0 {
		return serve(notServed("setup"))
	}
	return serve(func(dst, in []byte) ([]byte, error) { return handleSetup(dst, in, fns) })
}
