package wasmeval

import "fmt"

// The Handle functions are the transport-free core of the entry points:
// input envelope bytes in, canonical output envelope bytes out. An error
// means the call fails ("reported failure" with that message); a verdict
// the plugin reached deliberately belongs in the output's Error field.
// Tests of a plugin's logic can call them natively.

// Verifier is the one function a verifier plugin writes.
type Verifier func(*VerifyInput) (*VerifyOutput, error)

// Loader is the one function a loader plugin writes.
type Loader func(*LoadInput) (*LoadOutput, error)

// Evaluator is the one function an evaluator plugin writes; it dispatches
// on in.Function.
type Evaluator func(*EvaluateInput) (*EvaluateOutput, error)

// TestFunction is the one function a test-function plugin writes.
type TestFunction func(*TestInput) (*TestOutput, error)

// finish appends the output envelope to dst.
func finish(dst []byte, out any, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	return AppendJSON(dst, out)
}

func inputError(err error) error { return fmt.Errorf("invalid input: %w", err) }

// HandleVerify runs fn on a verify input envelope.
func HandleVerify(input []byte, fn Verifier) ([]byte, error) { return handleVerify(nil, input, fn) }

func handleVerify(dst, input []byte, fn Verifier) ([]byte, error) {
	p := parser{data: input, reuse: envelopeScratch, raw: true}
	p.skip()
	if in, ok := p.fastVerifyInput(); ok {
		if p.skip(); p.pos == len(input) {
			return runVerifier(dst, in, fn)
		}
	}
	v, err := parseEnvelope(input)
	if err != nil {
		return nil, inputError(err)
	}
	return verifyValue(dst, v, fn)
}

// verifyValue is handleVerify on the parsed input.
func verifyValue(dst []byte, v any, fn Verifier) ([]byte, error) {
	in, err := verifyInputOf(v)
	if err != nil {
		return nil, inputError(err)
	}
	return runVerifier(dst, in, fn)
}

// verifyFast is handleVerify on the input at p.pos, decoded by the fast
// path; false, with nothing done, when the general path must decode it.
func verifyFast(dst []byte, p *parser, fn Verifier) ([]byte, bool, error) {
	in, ok := p.fastVerifyInput()
	if !ok {
		return nil, false, nil
	}
	out, err := runVerifier(dst, in, fn)
	return out, true, err
}

// runVerifier is handleVerify on the decoded input.
func runVerifier(dst []byte, in *VerifyInput, fn Verifier) ([]byte, error) {
	out, err := fn(in)
	if err == nil && out == nil {
		out = &VerifyOutput{}
	}
	return finish(dst, out, err)
}

// HandleLoad runs fn on a load_cases input envelope.
func HandleLoad(input []byte, fn Loader) ([]byte, error) { return handleLoad(nil, input, fn) }

func handleLoad(dst, input []byte, fn Loader) ([]byte, error) {
	v, err := parseEnvelope(input)
	if err != nil {
		return nil, inputError(err)
	}
	return loadValue(dst, v, fn)
}

// loadValue is handleLoad on the parsed input.
func loadValue(dst []byte, v any, fn Loader) ([]byte, error) {
	in, err := loadInputOf(v)
	if err != nil {
		return nil, inputError(err)
	}
	out, err := fn(in)
	if err == nil && out == nil {
		out = &LoadOutput{Done: true}
	}
	return finish(dst, out, err)
}

// HandleEvaluate runs fn on an evaluate input envelope.
func HandleEvaluate(input []byte, fn Evaluator) ([]byte, error) {
	return handleEvaluate(nil, input, fn)
}

func handleEvaluate(dst, input []byte, fn Evaluator) ([]byte, error) {
	v, err := parseEnvelope(input)
	if err != nil {
		return nil, inputError(err)
	}
	return evaluateValue(dst, v, fn)
}

// evaluateValue is handleEvaluate on the parsed input.
func evaluateValue(dst []byte, v any, fn Evaluator) ([]byte, error) {
	in, err := evaluateInputOf(v)
	if err != nil {
		return nil, inputError(err)
	}
	out, err := fn(in)
	if err == nil && out == nil {
		out = &EvaluateOutput{}
	}
	return finish(dst, out, err)
}

// HandleTest runs fn on a test input envelope.
func HandleTest(input []byte, fn TestFunction) ([]byte, error) { return handleTest(nil, input, fn) }

func handleTest(dst, input []byte, fn TestFunction) ([]byte, error) {
	v, err := parseEnvelope(input)
	if err != nil {
		return nil, inputError(err)
	}
	return testValue(dst, v, fn)
}

// testValue is handleTest on the parsed input.
func testValue(dst []byte, v any, fn TestFunction) ([]byte, error) {
	in, err := testInputOf(v)
	if err != nil {
		return nil, inputError(err)
	}
	out, err := fn(in)
	if err == nil && out == nil {
		out = &TestOutput{}
	}
	return finish(dst, out, err)
}
