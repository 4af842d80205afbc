package host

import (
	"strings"

	"github.com/wasmeval/wasmeval/plugins/abi/jsonvalue"
)

// batchResult is one result of a batch output: the call it answers, and
// the text of its output envelope or its error message.
type batchResult struct {
	call    int
	output  string // "" when the result has none
	err     string
	decoded bool // the output was decoded as it was read (scanBatchOutput's decode)
}

// scanBatchOutput reads a batch output in one pass, without building it:
// the fast path of batchResults, which a batch's host side spends most of
// its time in otherwise (encoding/json checks the whole text, then
// decodes it, then every output is scanned again on its own). Each
// result's output is left in place as its text, or, where decode takes it,
// decoded straight away: decode(n, s, at) reads result n's output object,
// which starts at s[at], and says where it ends, or ok=false to leave it
// to the output's own check.
//
// It takes only the shape every SDK writes —
// {"results":[{"call":N,"output":{…}} or {"call":N,"error":"…"}, …]} with
// any white space — and gives for it what encoding/json gives
// (FuzzScanBatchOutput holds it to that). Anything else (another key, a
// repeated one, a result with both an output and an error or neither, a
// call that is not a small natural number, an escape it does not decode
// as encoding/json does, invalid UTF-8) gives ok=false, and batchResults
// takes the encoding/json path, which also words the fault.
func scanBatchOutput(s string, decode func(n int, s string, at int) (end int, ok bool)) ([]batchResult, bool) {
	i := jsonvalue.SkipSpace(s, 0)
	if !strings.HasPrefix(s[i:], "{") {
		return nil, false
	}
	i = jsonvalue.SkipSpace(s, i+1)
	if !strings.HasPrefix(s[i:], `"results"`) {
		return nil, false
	}
	i = jsonvalue.SkipSpace(s, i+len(`"results"`))
	if !strings.HasPrefix(s[i:], ":") {
		return nil, false
	}
	i = jsonvalue.SkipSpace(s, i+1)
	if !strings.HasPrefix(s[i:], "[") {
		return nil, false
	}
	i = jsonvalue.SkipSpace(s, i+1)
	results := make([]batchResult, 0, 16)
	if strings.HasPrefix(s[i:], "]") {
		i++
	} else {
		for {
			var r batchResult
			var ok bool
			if r, i, ok = scanBatchResult(s, i, len(results), decode); !ok {
				return nil, false
			}
			results = append(results, r)
			i = jsonvalue.SkipSpace(s, i)
			if i >= len(s) {
				return nil, false
			}
			if s[i] == ']' {
				i++
				break
			}
			if s[i] != ',' {
				return nil, false
			}
			i = jsonvalue.SkipSpace(s, i+1)
		}
	}
	i = jsonvalue.SkipSpace(s, i)
	if !strings.HasPrefix(s[i:], "}") || jsonvalue.SkipSpace(s, i+1) != len(s) {
		return nil, false
	}
	return results, true
}

// scanBatchResult reads result n, the object at s[i], and returns the
// index past it.
func scanBatchResult(s string, i, n int, decode func(n int, s string, at int) (int, bool)) (batchResult, int, bool) {
	var r batchResult
	if !strings.HasPrefix(s[i:], "{") {
		return r, i, false
	}
	i = jsonvalue.SkipSpace(s, i+1)
	var haveCall, haveOutput, haveError bool
	for !strings.HasPrefix(s[i:], "}") {
		var key string
		switch {
		case strings.HasPrefix(s[i:], `"call"`):
			key = "call"
		case strings.HasPrefix(s[i:], `"output"`):
			key = "output"
		case strings.HasPrefix(s[i:], `"error"`):
			key = "error"
		default:
			return r, i, false
		}
		i = jsonvalue.SkipSpace(s, i+len(key)+2)
		if !strings.HasPrefix(s[i:], ":") {
			return r, i, false
		}
		i = jsonvalue.SkipSpace(s, i+1)
		switch key {
		case "call":
			if haveCall {
				return r, i, false
			}
			haveCall = true
			// A natural number of at most nine digits, no leading zero:
			// one encoding/json decodes into an int as is.
			j := i
			for j < len(s) && j-i <= 9 && s[j] >= '0' && s[j] <= '9' {
				r.call = r.call*10 + int(s[j]-'0')
				j++
			}
			if j == i || j-i > 9 || j-i > 1 && s[i] == '0' || j < len(s) && (s[j] == '.' || s[j]|0x20 == 'e') {
				return r, i, false
			}
			i = j
		case "output":
			if haveOutput {
				return r, i, false
			}
			haveOutput = true
			if strings.HasPrefix(s[i:], "null") {
				// encoding/json's json.RawMessage holds "null", which
				// counts as no output.
				end, ok := jsonvalue.ValueEnd(s, i)
				if !ok {
					return r, i, false
				}
				i = end
				break
			}
			if decode != nil && strings.HasPrefix(s[i:], "{") {
				if end, ok := decode(n, s, i); ok {
					r.output, r.decoded = s[i:end], true
					i = end
					break
				}
			}
			end, ok := jsonvalue.ValueEnd(s, i)
			if !ok {
				return r, i, false
			}
			r.output = s[i:end]
			i = end
		case "error":
			if haveError {
				return r, i, false
			}
			haveError = true
			end, ok := jsonvalue.ValueEnd(s, i)
			if !ok {
				return r, i, false
			}
			switch text := s[i:end]; {
			case text == "null": // encoding/json leaves the string empty
			case text[0] != '"' || strings.Contains(text, `\u`):
				// Not a string, or a \u escape, which encoding/json
				// decodes in its own way (lone surrogates): its path.
				return r, i, false
			case !strings.Contains(text, `\`):
				r.err = text[1 : len(text)-1]
			default:
				v, err := jsonvalue.Parse(text)
				if r.err, ok = v.(string); err != nil || !ok {
					return r, i, false
				}
			}
			i = end
		}
		i = jsonvalue.SkipSpace(s, i)
		if strings.HasPrefix(s[i:], ",") {
			i = jsonvalue.SkipSpace(s, i+1)
			if strings.HasPrefix(s[i:], "}") {
				return r, i, false // a trailing comma
			}
		} else if !strings.HasPrefix(s[i:], "}") {
			return r, i, false
		}
	}
	// Each result has an output or an error, not both: anything else is a
	// fault of the whole batch, which encoding/json's path words.
	if (r.output != "") == (r.err != "") {
		return r, i, false
	}
	return r, i + 1, true
}
