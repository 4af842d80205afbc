package jsonvalue

import (
	"unicode/utf8"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// ValidText reports whether data is one JSON document the fast parser
// accepts, checking the grammar without building the value. Strings with
// invalid UTF-8 are refused (the full parser replaces the bad bytes, so the
// text would not be the value).
func ValidText(data string) bool {
	i := SkipSpace(data, 0)
	end, ok := scanValue(data, i)
	return ok && SkipSpace(data, end) == len(data)
}

// ValueEnd scans the one JSON value that starts at s[i] (no leading
// space) without building it and returns the index just past it. ok is
// false when no value starts there or it is one the fast parser refuses,
// such as a string with invalid UTF-8 — so the text of an accepted value is
// exactly the value Parse gives. Callers use it to keep part of a
// document as text (a json.RawMessage) rather than decode it.
func ValueEnd(s string, i int) (end int, ok bool) { return scanValue(s, i) }

// Between tokens scanValue tests a byte against ' ' alone before skipping
// space (SkipSpace checks what it is): no JSON token starts with a byte
// that low, and the verdicts it checks most, canonical JSON, have no space.

// scanValue checks the value at s[i] in one loop with an explicit stack
// of open containers, rather than by recursive descent: it runs for every
// JSON output a verifier plugin passes on as text, and inside a Wasm guest
// each function call and interface return costs far more than a branch.
// It accepts exactly what parseFast accepts (FuzzValidText holds
// the two together), nesting limit included.
func scanValue(s string, i int) (int, bool) {
	var stackBuf [64]byte
	open := stackBuf[:0] // '{' or '[' per open container
	// key says a member's key comes before the next value. Strings, keys
	// and numbers are scanned here, eight bytes at a time, rather than by
	// calls (scanString, scanKey, scanNumber take the rare rest): a turn
	// of the loop per element is all it costs.
	key := false
	for {
		if key {
			key = false
			if i >= len(s) || s[i] != '"' {
				return i, false
			}
			j := i + 1
			for {
				if j+8 > len(s) {
					for j < len(s) && abi.IsPlainStringByte(s[j]) {
						j++
					}
					break
				}
				if m := stringSpecial8(load64(s, j)); m != 0 {
					j += firstMarked(m)
					break
				}
				j += 8
			}
			if j < len(s) && s[j] == '"' {
				i = j + 1
			} else {
				var ok bool
				if i, ok = scanString(s, i); !ok {
					return i, false
				}
			}
			if i < len(s) && s[i] <= ' ' {
				i = SkipSpace(s, i)
			}
			if i >= len(s) || s[i] != ':' {
				return i, false
			}
			i++
			if i < len(s) && s[i] <= ' ' {
				i = SkipSpace(s, i)
			}
		}
		// A value starts at s[i].
		if i >= len(s) {
			return i, false
		}
		switch c := s[i]; {
		case c == '"':
			j := i + 1
			for {
				if j+8 > len(s) {
					for j < len(s) && abi.IsPlainStringByte(s[j]) {
						j++
					}
					break
				}
				if m := stringSpecial8(load64(s, j)); m != 0 {
					j += firstMarked(m)
					break
				}
				j += 8
			}
			if j < len(s) && s[j] == '"' {
				i = j + 1 // plain bytes to the closing quote, as most are
				break
			}
			var ok bool
			if i, ok = scanString(s, i); !ok {
				return i, false
			}
		case c-'0' < 10 || c == '-':
			j := i
			if c == '-' {
				j++
			}
			start := j
			for {
				if j+8 > len(s) {
					for j < len(s) && s[j]-'0' < 10 {
						j++
					}
					break
				}
				if m := nonDigit8(load64(s, j)); m != 0 {
					j += firstMarked(m)
					break
				}
				j += 8
			}
			if j == start || j > start+1 && s[start] == '0' {
				// No digits, or a leading zero (a number ends after it,
				// and a digit is no delimiter).
				return j, false
			}
			if j < len(s) && s[j] == '.' {
				j++
				start = j
				for {
					if j+8 > len(s) {
						for j < len(s) && s[j]-'0' < 10 {
							j++
						}
						break
					}
					if m := nonDigit8(load64(s, j)); m != 0 {
						j += firstMarked(m)
						break
					}
					j += 8
				}
				if j == start {
					return j, false
				}
			}
			if j < len(s) && s[j]|0x20 == 'e' {
				var ok bool
				if j, ok = scanNumber(s, i); !ok {
					return j, false
				}
			}
			i = j
		case c == '{' || c == '[':
			if len(open) >= MaxDepth {
				return i, false
			}
			open = append(open, c)
			i++
			if i < len(s) && s[i] <= ' ' {
				i = SkipSpace(s, i)
			}
			if i < len(s) && s[i] == c+2 { // '}' is '{'+2, ']' is '['+2
				open = open[:len(open)-1]
				i++
				break
			}
			key = c == '{'
			continue // the first member's value
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
			if i < len(s) && s[i] <= ' ' {
				i = SkipSpace(s, i)
			}
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
			i++
			if i < len(s) && s[i] <= ' ' {
				i = SkipSpace(s, i)
			}
			key = top == '{'
			break
		}
	}
}

// scanString checks the string whose opening quote is s[i]: valid
// escapes, no control characters, valid UTF-8.
func scanString(s string, i int) (int, bool) {
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

// scanNumber checks the number grammar at s[i].
func scanNumber(s string, i int) (int, bool) {
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

// SkipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func SkipSpace(s string, i int) int {
	for i < len(s) && IsSpace(s[i]) {
		i++
	}
	return i
}

// IsSpace says whether c is JSON white space.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
