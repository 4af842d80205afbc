package wasmeval

import (
	"strconv"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// Batches (docs/plugin-abi.md, "Batches"): verify_batch, evaluate_batch
// and test_batch answer many calls of their export in one call into the
// guest. The input is {"abi_version":1,"calls":[<single input>, …]}; the
// output holds, for each call in order, {"call":i,"output":<the single
// call's output>} or {"call":i,"error":"<the single call's failure>"}.
//
// One pass over the batch input: each call is parsed where it is, by the
// parser a single call uses, which also finds where the call ends, and
// then goes the single call's way from its parsed value (decode, the
// plugin's function, the same encoder), so its output is the single
// call's byte for byte. A call that does not parse is delimited without
// decoding and handed, as its own bytes, to the single call's path, so its
// failure is the message the same input gets alone (byte offsets and
// nesting counted from the call's start). Every result is appended to one
// output buffer.

// HandleVerifyBatch runs fn on every call of a verify_batch input.
func HandleVerifyBatch(input []byte, fn Verifier) ([]byte, error) {
	return handleVerifyBatch(nil, input, fn)
}

func handleVerifyBatch(dst, input []byte, fn Verifier) ([]byte, error) {
	return handleBatchFast(dst, input, func(dst []byte, v any) ([]byte, error) { return verifyValue(dst, v, fn) },
		func(dst []byte, p *parser) ([]byte, bool, error) { return verifyFast(dst, p, fn) })
}

// HandleEvaluateBatch runs fn on every call of an evaluate_batch input.
func HandleEvaluateBatch(input []byte, fn Evaluator) ([]byte, error) {
	return handleBatch(nil, input, func(dst []byte, v any) ([]byte, error) { return evaluateValue(dst, v, fn) })
}

// HandleTestBatch runs fn on every call of a test_batch input.
func HandleTestBatch(input []byte, fn TestFunction) ([]byte, error) {
	return handleBatch(nil, input, func(dst []byte, v any) ([]byte, error) { return testValue(dst, v, fn) })
}

// handleBatch appends the batch output for input to dst: one answers a
// call from its parsed input, as a single call does after parsing. An
// error means the input is not a batch, and dst holds nothing of use.
func handleBatch(dst, input []byte, one func(dst []byte, v any) ([]byte, error)) ([]byte, error) {
	return handleBatchFast(dst, input, one, nil)
}

// handleBatchFast is handleBatch with a fast path: fast answers a call
// from its text at the parser's position (moving the parser past it), as
// one would from its parsed value, or says false, having answered
// nothing, and one answers it.
func handleBatchFast(dst, input []byte, one func(dst []byte, v any) ([]byte, error), fast func(dst []byte, p *parser) ([]byte, bool, error)) ([]byte, error) {
	b := batcher{scan: spanScanner{data: input}, parser: parser{data: input, reuse: envelopeScratch, raw: true}, one: one, fast: fast}
	b.out = append(dst, `{"results":[`...)
	b.results = len(b.out)
	if !b.scan.batch(b.calls) {
		return nil, inputError(notBatch(input))
	}
	return append(b.out, "]}"...), nil
}

// batcher answers the calls as the scan meets them.
type batcher struct {
	scan   spanScanner
	parser parser
	one    func(dst []byte, v any) ([]byte, error)
	fast   func(dst []byte, p *parser) ([]byte, bool, error)
	// out is the output so far; results where its first result starts.
	out     []byte
	results int
}

// calls reads the calls array at the scan's position and answers each
// call; false when the array is malformed. A repeated calls key counts
// the last time, as in ParseJSON: its results replace the earlier ones.
func (b *batcher) calls() bool {
	s := &b.scan
	b.out = b.out[:b.results]
	if !s.at('[') {
		return false
	}
	s.pos++
	s.skip()
	if s.at(']') {
		s.pos++
		return true
	}
	for i := 0; ; i++ {
		s.skip()
		if !b.call(i) {
			return false
		}
		s.skip()
		if s.at(',') {
			s.pos++
			continue
		}
		if s.at(']') {
			s.pos++
			return true
		}
		return false
	}
}

// call answers the call at the scan's position, the i-th, and moves past
// it.
func (b *batcher) call(i int) bool {
	s, p := &b.scan, &b.parser
	start := s.pos
	if i > 0 {
		b.out = append(b.out, ',')
	}
	b.out = append(b.out, `{"call":`...)
	b.out = strconv.AppendInt(b.out, int64(i), 10)
	mark := len(b.out)
	b.out = append(b.out, `,"output":`...)
	p.pos = start
	if b.fast != nil {
		// The fast path's answer is the one below, from the parsed
		// value; it leaves calls it cannot answer to it.
		if out, ok, err := b.fast(b.out, p); ok {
			s.pos = p.pos
			if err != nil {
				b.out = append(b.out[:mark], `,"error":`...)
				b.out = AppendQuoted(b.out, err.Error())
			} else {
				b.out = out
			}
			b.out = append(b.out, '}')
			return true
		}
		p.pos = start
	}
	v, err := p.value(0)
	var out []byte
	if err == nil {
		s.pos = p.pos
		// one appends beyond mark, or fails without touching what is
		// before it.
		out, err = b.one(b.out, v)
	} else {
		end, ok := skipValue(s.data, start)
		if !ok {
			return false
		}
		s.pos = end
		// The call's own bytes, as a single call gets them: they fail to
		// parse alone too, and that is the call's failure.
		if v, err = parseEnvelope(s.data[start:end]); err != nil {
			err = inputError(err)
		} else {
			out, err = b.one(b.out, v)
		}
	}
	if err != nil {
		b.out = append(b.out[:mark], `,"error":`...)
		b.out = AppendQuoted(b.out, err.Error())
	} else {
		b.out = out
	}
	b.out = append(b.out, '}')
	return true
}

// notBatch says why an input is not a batch, in the words of ParseJSON and
// the envelope decoders.
func notBatch(data []byte) error {
	v, err := ParseJSON(data)
	if err != nil {
		return err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return &InputError{Path: "$", Got: TypeName(v), Expected: "an object"}
	}
	calls, ok := m["calls"]
	if !ok {
		return &InputError{Path: "$.calls", Got: "missing", Expected: "an array"}
	}
	return &InputError{Path: "$.calls", Got: TypeName(calls), Expected: "an array"}
}

// spanScanner walks a batch input's top-level object without decoding it.
type spanScanner struct {
	data []byte
	pos  int
}

func (s *spanScanner) skip() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *spanScanner) at(c byte) bool { return s.pos < len(s.data) && s.data[s.pos] == c }

// batch reads {"calls":[…], …}, handing the calls array to calls; false
// for anything else, including an input that has no calls array.
func (s *spanScanner) batch(calls func() bool) bool {
	s.skip()
	if !s.at('{') {
		return false
	}
	s.pos++
	s.skip()
	found := false
	if s.at('}') {
		s.pos++
	} else {
		for {
			s.skip()
			if !s.at('"') {
				return false
			}
			kStart := s.pos
			if !s.value() {
				return false
			}
			key := s.data[kStart:s.pos]
			s.skip()
			if !s.at(':') {
				return false
			}
			s.pos++
			s.skip()
			if isCallsKey(key) {
				if !calls() {
					return false
				}
				found = true
			} else if !s.value() {
				return false
			}
			s.skip()
			if s.at(',') {
				s.pos++
				continue
			}
			if s.at('}') {
				s.pos++
				break
			}
			return false
		}
	}
	s.skip()
	return found && s.pos == len(s.data)
}

// isCallsKey says whether a key's JSON text (quotes included) is "calls",
// however it is escaped.
func isCallsKey(text []byte) bool {
	if string(text) == `"calls"` {
		return true
	}
	for _, c := range text {
		if c == '\\' {
			p := parser{data: text}
			k, err := p.str()
			return err == nil && k == "calls"
		}
	}
	return false
}

// value moves past one value: a string, an object or array (brackets
// matched, strings skipped) or a scalar (up to the next delimiter). It
// checks no more than it needs to find the value's end.
func (s *spanScanner) value() bool {
	end, ok := skipValue(s.data, s.pos)
	s.pos = end
	return ok
}

// skipValue returns where the value at i ends. It is one loop over local
// variables, with no call per string: inside a Wasm guest a call or a
// field access per byte costs more than the byte's test.
func skipValue(data []byte, i int) (int, bool) {
	if i >= len(data) {
		return i, false
	}
	switch data[i] {
	case '"', '{', '[':
	case '\'':
		_, end, ok := abi.RawAt(data, i)
		return end, ok
	default:
		start := i
		for i < len(data) && !scalarEnd[data[i]] {
			i++
		}
		return i, i > start
	}
	depth := 0
	for i < len(data) {
		c := data[i]
		i++
		switch structural[c] {
		case 0:
			continue
		case '"':
			for i < len(data) {
				c = data[i]
				if !stringSpecial[c] {
					i++
					continue
				}
				if c == '"' {
					break
				}
				i += 2 // a backslash and the byte it escapes
			}
			if i >= len(data) {
				return i, false
			}
			i++ // the closing quote
			if depth == 0 {
				return i, true
			}
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return i, true
			}
		case '\'':
			// A raw string (abi.RawAt), whose bytes may hold anything.
			_, end, ok := abi.RawAt(data, i-1)
			if !ok {
				return i, false
			}
			i = end
		}
	}
	return i, false
}

var (
	// structural maps the bytes that open or close a value to '"', '{'
	// (both openers) or '}' (both closers), every other byte to 0.
	structural = [256]byte{'"': '"', '{': '{', '[': '{', '}': '}', ']': '}', '\'': '\''}
	// stringSpecial are the bytes that end a run of a string's text.
	stringSpecial = [256]bool{'"': true, '\\': true}
	// scalarEnd are the bytes that end a scalar's text.
	scalarEnd = [256]bool{',': true, ']': true, '}': true, ' ': true, '\t': true, '\n': true, '\r': true,
		'{': true, '[': true, '"': true, ':': true}
)
