//go:build wasip1

package wasmeval

import (
	"io"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// DescribePlugin answers the describe export: fill in name, version, kinds
// (and functions for evaluators); the ABI version and transport are set.
//
//	//go:wasmexport describe
//	func describe() int32 { return wasmeval.DescribePlugin(wasmeval.Describe{Name: "my-verifier", Version: "1.0.0", Kinds: []string{"verifier"}}) }
func DescribePlugin(d Describe) int32 {
	if d.ABIVersion == 0 {
		d.ABIVersion = abi.Version
	}
	if d.Transport == "" {
		d.Transport = Transport
	}
	out, err := EncodeJSON(d)
	if err != nil {
		return describeFailed("describe: " + err.Error())
	}
	return describeOutput(out)
}

// Verify serves the verify export with fn.
//
//	//go:wasmexport verify
//	func verify() int32 { return wasmeval.Verify(check) }
func Verify(fn Verifier) int32 {
	return serve(func(dst, in []byte) ([]byte, error) { return handleVerify(dst, in, fn) })
}

// LoadCases serves the load_cases export with fn.
func LoadCases(fn Loader) int32 {
	return serve(func(dst, in []byte) ([]byte, error) { return handleLoad(dst, in, fn) })
}

// Evaluate serves the evaluate export with fn.
func Evaluate(fn Evaluator) int32 {
	return serve(func(dst, in []byte) ([]byte, error) { return handleEvaluate(dst, in, fn) })
}

// Test serves the test export with fn.
func Test(fn TestFunction) int32 {
	return serve(func(dst, in []byte) ([]byte, error) { return handleTest(dst, in, fn) })
}

// ServeRaw serves an export with a function that takes the input envelope's
// bytes and appends the output envelope's bytes to dst, for plugins that
// manage their envelopes themselves. An error fails the call with its
// message.
func ServeRaw(fn func(dst, input []byte) ([]byte, error)) int32 { return serve(fn) }

// The input and output buffers are kept from call to call: a plugin
// instance serves one call at a time, the decoded input copies what it
// keeps, and the output is written out before the call returns. Growing
// fresh buffers on every call is a measurable share of a short call.
var inputBuf, outputBuf []byte

// readAll appends everything r holds to buf.
func readAll(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
