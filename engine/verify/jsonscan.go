package verify

import (
	"unicode/utf8"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// validJSONText reports whether data is one JSON document the fast parser
// accepts, checking the grammar without building the value. Strings with
// invalid UTF-8 are refused (the full parser replaces the bad bytes, so the
// text would not be the value).
func validJSONText(data string) bool {
	i := skipJSONSpace(data, 0)
	end, ok := scanJSONValue(data, i)
	return ok && skipJSONSpace(data, end) == len(data)
}

// JSONValueEnd scans the one JSON value that starts at s[i] (no leading
// space) without building it and returns the index just past it. ok is
// false when no value starts there or it is one the fast parser refuses,
// such as a string with invalid UTF-8 — so the text of an accepted value is
// exactly the value ParseJSON gives. Callers use it to keep part of a
// document as text (a json.RawMessage) rather than decode it.
func JSONValueEnd(s string, i int) (end int, ok bool) { return scanJSONValue(s, i) }

// scanJSONValue checks the value at s[i] in one loop with an explicit stack
// of open containers, rather than by recursive descent: it runs for every
// JSON output a verifier plugin passes on as text, and inside a Wasm guest
// each function call and interface return costs far more than a branch.
// It accepts exactly what parseJSONFast accepts (FuzzValidJSONText holds
// the two together), nesting limit included.
func scanJSONValue(s string, i int) (int, bool) {
	var stackBuf [64]byte
	open := stackBuf[:0] // '{' or '[' per open container
	for {
		// A value starts at s[i].
		if i >= len(s) {
			return i, false
		}
		switch c := s[i]; {
		case c == '{' || c == '[':
			if len(open) >= maxJSONDepth {
				return i, false
			}
			open = append(open, c)
			i = skipJSONSpace(s, i+1)
			if i < len(s) && s[i] == c+2 { // '}' is '{'+2, ']' is '['+2
				open = open[:len(open)-1]
				i++
				break
			}
			if c == '{' {
				var ok bool
				if i, ok = scanJSONKey(s, i); !ok {
					return i, false
				}
			}
			continue // the first member's value
		case c == '"':
			var ok bool
			if i, ok = scanJSONString(s, i); !ok {
				return i, false
			}
		case c == '-' || c >= '0' && c <= '9':
			var ok bool
			if i, ok = scanJSONNumber(s, i); !ok {
				return i, false
			}
		case c == 't' && len(s)-i >= 4 && s[i:i+4] == "true",
			c == 'n' && len(s)-i >= 4 && s[i:i+4] == "null":
			i += 4
		case c == 'f' && len(s)-i >= 5 && s[i:i+5] == "false":
			i += 5
		default:
			return i, false
		}
		// A value ended at s[i]: close containers or move to the next
		// element.
		for {
			if len(open) == 0 {
				return i, true
			}
			i = skipJSONSpace(s, i)
			if i >= len(s) {
				return i, false
			}
			top := open[len(open)-1]
			if s[i] == top+2 {
				open = open[:len(open)-1]
				i++
				continue
			}
			if s[i] != ',' {
				return i, false
			}
			i = skipJSONSpace(s, i+1)
			if top == '{' {
				var ok bool
				if i, ok = scanJSONKey(s, i); !ok {
					return i, false
				}
			}
			break
		}
	}
}

// scanJSONKey checks `"key" :` at s[i] and returns the index of the
// member's value.
func scanJSONKey(s string, i int) (int, bool) {
	if i >= len(s) || s[i] != '"' {
		return i, false
	}
	i, ok := scanJSONString(s, i)
	if !ok {
		return i, false
	}
	i = skipJSONSpace(s, i)
	if i >= len(s) || s[i] != ':' {
		return i, false
	}
	return skipJSONSpace(s, i+1), true
}

// scanJSONString checks the string whose opening quote is s[i]: valid
// escapes, no control characters, valid UTF-8.
func scanJSONString(s string, i int) (int, bool) {
	i++ // the opening quote
	for {
		// Runs of plain ASCII, most of any string, in a tight loop.
		for i < len(s) && abi.IsPlainStringByte(s[i]) {
			i++
		}
		if i >= len(s) {
			return i, false
		}
		switch c := s[i]; {
		case c == '"':
			return i + 1, true
		case c == '\\':
			if i+1 >= len(s) {
				return i, false
			}
			switch s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(s)-i < 6 || !isHex(s[i+2]) || !isHex(s[i+3]) || !isHex(s[i+4]) || !isHex(s[i+5]) {
					return i, false
				}
				i += 6
			default:
				return i, false
			}
		case c < 0x20:
			return i, false
		default: // the first byte of a multi-byte sequence
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return i, false
			}
			i += size
		}
	}
}

// scanJSONNumber checks the number grammar at s[i].
func scanJSONNumber(s string, i int) (int, bool) {
	if s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		i = skipDigits(s, i)
	default:
		return i, false
	}
	if i < len(s) && s[i] == '.' {
		j := skipDigits(s, i+1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := skipDigits(s, i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

func skipDigits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

func skipJSONSpace(s string, i int) int {
	for i < len(s) && isJSONSpace(s[i]) {
		i++
	}
	return i
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
