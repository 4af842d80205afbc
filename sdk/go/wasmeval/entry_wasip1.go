//go:build wasip1

package wasmeval

import (
	"errors"
	"io"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/sdk/go/wasmeval/internal/served"
)

// DescribePlugin answers the describe export: fill in name, version, kinds
// (and functions for evaluators); the ABI version and transport are set,
// the setup package's functions are added to functions (when the plugin
// declares kind setup), and so is batch: the batch exports the plugin's
// kind packages (verifier, evaluator, testfunction) serve for the kinds
// it declares. Set Batch yourself (an empty list for none) only if you
// write batch exports of your own.
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
	// The SDK's input decoding takes raw strings (parseEnvelope), which
	// only the native transport carries.
	d.RawStrings = d.Transport == abi.TransportNative
	if d.Batch == nil {
		d.Batch = served.Batch(d.Kinds)
	}
	d.Functions = served.Functions(d.Kinds, d.Functions)
	out, err := EncodeJSON(d)
	if err != nil {
		return describeFailed("describe: " + err.Error())
	}
	return describeOutput(out)
}

// Verify serves the verify export with fn. The verifier package makes
// both verify and verify_batch with it (verifier.Serve); an export of your
// own serves single calls only:
//
//	//go:wasmexport verify
//	func verify() int32 { return wasmeval.Verify(check) }
func Verify(fn Verifier) int32 {
	if fn == nil {
		return serve(notServed("verifier"))
	}
	return serve(func(dst, in []byte) ([]byte, error) { return handleVerify(dst, in, fn) })
}

// VerifyBatch serves the verify_batch export with fn: every call of the
// batch as Verify would serve it alone.
func VerifyBatch(fn Verifier) int32 {
	if fn == nil {
		return serve(notServed("verifier"))
	}
	return serve(func(dst, in []byte) ([]byte, error) { return handleVerifyBatch(dst, in, fn) })
}

// LoadCases serves the load_cases export with fn.
func LoadCases(fn Loader) int32 {
	if fn == nil {
		return serve(notServed("loader"))
	}
	return serve(func(dst, in []byte) ([]byte, error) { return handleLoad(dst, in, fn) })
}

// Evaluate serves the evaluate export with fn.
func Evaluate(fn Evaluator) int32 {
	if fn == nil {
		return serve(notServed("evaluator"))
	}
	return serve(func(dst, in []byte) ([]byte, error) { return handleEvaluate(dst, in, fn) })
}

// EvaluateBatch serves the evaluate_batch export with fn.
func EvaluateBatch(fn Evaluator) int32 {
	if fn == nil {
		return serve(notServed("evaluator"))
	}
	one := func(dst []byte, v any) ([]byte, error) { return evaluateValue(dst, v, fn) }
	return serve(func(dst, in []byte) ([]byte, error) { return handleBatch(dst, in, one) })
}

// Test serves the test export with fn.
func Test(fn TestFunction) int32 {
	if fn == nil {
		return serve(notServed("testfunction"))
	}
	return serve(func(dst, in []byte) ([]byte, error) { return handleTest(dst, in, fn) })
}

// TestBatch serves the test_batch export with fn.
func TestBatch(fn TestFunction) int32 {
	if fn == nil {
		return serve(notServed("testfunction"))
	}
	one := func(dst []byte, v any) ([]byte, error) { return testValue(dst, v, fn) }
	return serve(func(dst, in []byte) ([]byte, error) { return handleBatch(dst, in, one) })
}

// notServed fails the export of a kind package (verifier, …) that was
// linked in without being given a function.
func notServed(pkg string) func(dst, in []byte) ([]byte, error) {
	err := errors.New("no function serves this export: call " + pkg + ".Serve from an init function")
	return func([]byte, []byte) ([]byte, error) { return nil, err }
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

// The parser's scratch buffer for strings with escapes is kept likewise.
var scratchBuf []byte

func init() { envelopeScratch = &scratchBuf }

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
