//go:build wasip1

package wasmeval

import (
	"io"
	"os"

	pdk "github.com/extism/go-pdk"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// Transport is how this plugin's kind exports exchange envelopes: stdio
// (the default: one bulk copy each way) or extism. DescribePlugin declares
// it, the entry points use it; set it in an init function to change it.
var Transport = abi.TransportStdio

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
		pdk.SetErrorString("describe: " + err.Error())
		return 1
	}
	pdk.Output(out)
	return 0
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

// The input and output buffers are kept from call to call: a plugin
// instance serves one call at a time, the decoded input copies what it
// keeps, and the output is written out before the call returns. Growing
// fresh buffers on every call is a measurable share of a short call.
var inputBuf, outputBuf []byte

func serve(handle func(dst, in []byte) ([]byte, error)) int32 {
	var input []byte
	if Transport == abi.TransportStdio {
		var err error
		if input, err = readAll(os.Stdin, inputBuf[:0]); err != nil {
			pdk.SetErrorString("read input: " + err.Error())
			return 1
		}
		inputBuf = input
	} else {
		input = pdk.Input()
	}
	out, err := handle(outputBuf[:0], input)
	if err != nil {
		pdk.SetErrorString(err.Error())
		return 1
	}
	outputBuf = out
	if Transport == abi.TransportStdio {
		if _, err := os.Stdout.Write(out); err != nil {
			pdk.SetErrorString("write output: " + err.Error())
			return 1
		}
		return 0
	}
	pdk.Output(out)
	return 0
}

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

// ReadAsset returns a file of the problem directory through the host's
// read_asset function; ok is false when the host refused (the reason is in
// the run log).
func ReadAsset(path string) (data []byte, ok bool) {
	mem := pdk.AllocateString(path)
	defer mem.Free()
	off := readAsset(mem.Offset())
	if off == 0 {
		return nil, false
	}
	m := pdk.FindMemory(off)
	defer m.Free()
	return m.ReadBytes(), true
}

//go:wasmimport extism:host/user read_asset
func readAsset(uint64) uint64
