//go:build wasip1 && !wasmeval_extism

package wasmeval

import (
	"os"
	"unsafe"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// The native transport (docs/plugin-abi.md, "Transports"), this SDK's
// default: the host asks wasmeval_input for room for the input and writes
// it there, runs the export, then asks wasmeval_output where the output
// (or, after a non-zero status, the error message) is, and reads it in
// one copy. No Extism function is imported, so the host drives the module
// on wazero directly. Build with -tags wasmeval_extism for Extism's ABI.

// Transport is the transport this build speaks: native. (Built with
// -tags wasmeval_extism it may be set to stdio or extism instead.)
var Transport = abi.TransportNative

var (
	// armed says the host wrote this call's input through wasmeval_input;
	// an export called without it (by a host that took the plugin for an
	// Extism one) reads stdin instead.
	armed bool
	// result is what wasmeval_output hands the host.
	result []byte
)

//go:wasmexport wasmeval_input
func nativeInput(n int32) int32 {
	if n < 0 {
		n = 0
	}
	if cap(inputBuf) < int(n) || cap(inputBuf) == 0 {
		inputBuf = make([]byte, n, max(int(n), 64))
	}
	inputBuf = inputBuf[:n]
	armed, result = true, nil
	return int32(uintptr(unsafe.Pointer(unsafe.SliceData(inputBuf[:cap(inputBuf)]))))
}

//go:wasmexport wasmeval_output
func nativeOutput() int64 {
	if len(result) == 0 {
		return 0
	}
	return int64(uintptr(unsafe.Pointer(unsafe.SliceData(result))))<<32 | int64(len(result))
}

func describeOutput(out []byte) int32 {
	if Transport != abi.TransportNative {
		return describeFailed("this plugin sets wasmeval.Transport to " + Transport + ", which needs a build with -tags wasmeval_extism")
	}
	outputBuf, result = out, out
	return 0
}

func describeFailed(msg string) int32 {
	if !armed {
		// A host that runs the plugin through Extism reads neither.
		os.Stderr.WriteString(msg + "\n")
	}
	armed, result = false, []byte(msg)
	return 1
}

func serve(handle func(dst, in []byte) ([]byte, error)) int32 {
	native := armed
	armed = false
	var input []byte
	if native {
		input = inputBuf
	} else {
		// Called through Extism with a describe of the plugin's own that
		// says stdio: the stdio transport, failures on stderr.
		var err error
		if input, err = readAll(os.Stdin, inputBuf[:0]); err != nil {
			return fail(native, "read input: "+err.Error())
		}
		inputBuf = input
	}
	out, err := handle(outputBuf[:0], input)
	if err != nil {
		return fail(native, err.Error())
	}
	outputBuf = out
	if native {
		result = out
		return 0
	}
	if _, err := os.Stdout.Write(out); err != nil {
		return fail(native, "write output: "+err.Error())
	}
	return 0
}

func fail(native bool, msg string) int32 {
	if native {
		result = append(outputBuf[:0], msg...)
		outputBuf = result
		return 1
	}
	os.Stderr.WriteString(msg + "\n")
	return 1
}

var assetBuf []byte

// ReadAsset returns a file of the problem directory through the host's
// read_asset function; ok is false when the host refused (the reason is in
// the run log).
func ReadAsset(path string) (data []byte, ok bool) {
	if cap(assetBuf) == 0 {
		assetBuf = make([]byte, 64<<10)
	}
	p := []byte(path)
	for {
		buf := assetBuf[:cap(assetBuf)]
		n := hostReadAsset(unsafe.Pointer(unsafe.SliceData(p)), uint32(len(p)), unsafe.Pointer(unsafe.SliceData(buf)), uint32(len(buf)))
		if n < 0 {
			return nil, false
		}
		if n <= int64(len(buf)) {
			return append([]byte(nil), buf[:n]...), true
		}
		assetBuf = make([]byte, n)
	}
}

//go:wasmimport wasmeval read_asset
func hostReadAsset(path unsafe.Pointer, pathLen uint32, buf unsafe.Pointer, bufCap uint32) int64

//go:wasmimport wasmeval log
func hostLog(level int32, msg unsafe.Pointer, msgLen uint32)

// Log writes a line to the run log at a level: "debug", "info", "warn"
// or "error" (anything else is info).
func Log(level, msg string) {
	l := int32(2)
	switch level {
	case "debug":
		l = 1
	case "warn":
		l = 3
	case "error":
		l = 4
	}
	b := []byte(msg)
	hostLog(l, unsafe.Pointer(unsafe.SliceData(b)), uint32(len(b)))
}
