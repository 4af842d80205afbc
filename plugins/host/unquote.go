package host

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// unquoteLit decodes a JSON string literal, quotes included, that
// jsonvalue.ValueEnd accepted (so its escapes are well formed and its
// UTF-8 valid), giving what encoding/json gives for it. It lives here, not
// in jsonvalue, because jsonvalue is built into plugins (through the
// engine's checks), whose pinned digests change with any change to it.
func unquoteLit(lit string) (string, bool) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return "", false
	}
	return unquote(lit[1 : len(lit)-1])
}

// unquote decodes the inside of a JSON string as encoding/json does: an
// invalid byte or a lone surrogate (\ud800) becomes U+FFFD, and a
// malformed escape is refused. encoding/json's own decoding of one string
// (json.Unmarshal, which jsonvalue.Parse uses for a string with escapes)
// cost a verdict several microseconds, a hit's largest part: verdicts
// carry outputs as strings, which a trailing newline makes escaped. s
// holds no unescaped quote and no control byte (ValueEnd checked).
func unquote(s string) (string, bool) {
	b := make([]byte, 0, len(s)+utf8.UTFMax)
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 >= len(s) {
				return "", false
			}
			switch s[i+1] {
			case '"', '\\', '/':
				b = append(b, s[i+1])
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := hex4(s, i+2)
				if !ok {
					return "", false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					if r2, ok := hex4(s, i+2); ok && s[i] == '\\' && s[i+1] == 'u' {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							b = utf8.AppendRune(b, dec)
							i += 6
							continue
						}
					}
					r = utf8.RuneError
				}
				b = utf8.AppendRune(b, r)
				continue
			default:
				return "", false
			}
			i += 2
		case c < utf8.RuneSelf:
			// A run up to the next escape is copied whole when it is
			// valid UTF-8, as it nearly always is.
			j := strings.IndexByte(s[i:], '\\')
			if j < 0 {
				j = len(s) - i
			}
			if run := s[i : i+j]; utf8.ValidString(run) {
				b = append(b, run...)
				i += j
				continue
			}
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
		}
	}
	return string(b), true
}

// hex4 reads the four hex digits of a \u escape at s[i:].
func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
