package abi

import (
	"encoding/json"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf8"
)

// MarshalJSON encodes an attribute verdict. The actual and expected values
// are usually whole decoded documents (maps, lists, json.Number), which
// encoding/json walks by reflection — slow natively and far slower inside a
// Wasm plugin, where a verifier spends much of its time encoding them. The
// bytes are exactly what encoding/json produces for the same struct.
func (a Attribute) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 256)
	b = append(b, `{"attribute":`...)
	b = AppendQuoted(b, a.Attribute)
	var err error
	b = append(b, `,"actual":`...)
	if b, err = appendValue(b, a.Actual); err != nil {
		return nil, err
	}
	b = append(b, `,"expected":`...)
	if b, err = appendValue(b, a.Expected); err != nil {
		return nil, err
	}
	if a.Diff != nil {
		d, err := json.Marshal(a.Diff)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"diff":`...)
		b = append(b, d...)
	}
	b = append(b, `,"is_correct":`...)
	b = strconv.AppendBool(b, a.IsCorrect)
	b = append(b, `,"weight":`...)
	if b, err = appendFloat(b, a.Weight); err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// appendValue encodes the JSON value shapes decoding produces directly and
// hands anything else to encoding/json.
func appendValue(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return AppendQuoted(b, v), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case int:
		// What YAML decoding gives for an integer (a case's expected
		// status_code): written as encoding/json writes it.
		return strconv.AppendInt(b, int64(v), 10), nil
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case uint64:
		return strconv.AppendUint(b, v, 10), nil
	case json.Number:
		if validNumber(string(v)) {
			return append(b, v...), nil
		}
	case float64:
		return appendFloat(b, v)
	case map[string]any:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '{')
		var keys [smallMap]string
		for i, k := range sortedKeys(v, &keys) {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendQuoted(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendValue(b, v[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case []any:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendValue(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	data, err := json.Marshal(v)
	return append(b, data...), err
}

const hexDigits = "0123456789abcdef"

// AppendQuoted appends s as a JSON string, escaped exactly as encoding/json
// escapes it: HTML characters and U+2028/U+2029 included, invalid UTF-8
// replaced by U+FFFD. The host and the Go SDK both write strings with it.
func AppendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	// The text is written into b's spare room, a word of eight bytes at a
	// time: a word is stored whole and the output advanced past its plain
	// bytes, so a run costs no call and no per-byte loop (JSON held in a
	// JSON string, a verify input's output, has a quote every few bytes).
	// Room for 16 more bytes is kept ahead: a word and an escape.
	n := len(b)
	b = slices.Grow(b, len(s)+16)
	b = b[:cap(b)]
	i := 0
	for i < len(s) {
		if len(b)-n < 16 {
			b = slices.Grow(b[:n], len(s)-i+16)
			b = b[:cap(b)]
		}
		if i+8 <= len(s) {
			w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
				uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
			putWord(b[n:n+8], w)
			m := quoteSpecial8(w)
			if m == 0 {
				i += 8
				n += 8
				continue
			}
			k := bits.TrailingZeros64(m) >> 3
			i += k
			n += k
		} else if c := s[i]; plainASCII[c] {
			b[n] = c
			i++
			n++
			continue
		}
		// s[i] needs escaping, or is the first byte of a character
		// beyond ASCII.
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"', '\\':
				b[n], b[n+1] = '\\', c
				n += 2
			case '\b':
				b[n], b[n+1] = '\\', 'b'
				n += 2
			case '\f':
				b[n], b[n+1] = '\\', 'f'
				n += 2
			case '\n':
				b[n], b[n+1] = '\\', 'n'
				n += 2
			case '\r':
				b[n], b[n+1] = '\\', 'r'
				n += 2
			case '\t':
				b[n], b[n+1] = '\\', 't'
				n += 2
			default: // other control characters, <, > and &
				b[n], b[n+1], b[n+2], b[n+3], b[n+4], b[n+5] = '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF]
				n += 6
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += copy(b[n:], `\ufffd`)
		case r == '\u2028' || r == '\u2029':
			b[n], b[n+1], b[n+2], b[n+3], b[n+4], b[n+5] = '\\', 'u', '2', '0', '2', hexDigits[r&0xF]
			n += 6
		default:
			n += copy(b[n:], s[i:i+size])
		}
		i += size
	}
	b = b[:n]
	return append(b, '"')
}

// putWord stores w into b's eight bytes, lowest byte first.
func putWord(b []byte, w uint64) {
	_ = b[7]
	b[0], b[1], b[2], b[3] = byte(w), byte(w>>8), byte(w>>16), byte(w>>24)
	b[4], b[5], b[6], b[7] = byte(w>>32), byte(w>>40), byte(w>>48), byte(w>>56)
}

// quoteSpecial8 marks the bytes of w that AppendQuoted does not copy as
// they are: '"', '\\', control characters, '<', '>', '&' and bytes
// beyond ASCII. Only the lowest mark is exact (a borrow can mark a byte
// above a marked one), and only the lowest is used.
func quoteSpecial8(w uint64) uint64 {
	const lsb, msb = 0x0101010101010101, 0x8080808080808080
	q, b := w^(lsb*'"'), w^(lsb*'\\')
	lt, gt, amp := w^(lsb*'<'), w^(lsb*'>'), w^(lsb*'&')
	return ((q-lsb)&^q | (b-lsb)&^b | (lt-lsb)&^lt | (gt-lsb)&^gt | (amp-lsb)&^amp | (w - lsb*0x20) | w) & msb
}

// IsPlainStringByte reports whether c stands for itself inside a JSON
// string's text: printable ASCII other than the quote and the backslash.
// The parsers (engine/verify's and the Go SDK's) scan runs of such bytes in
// a tight loop.
func IsPlainStringByte(c byte) bool { return plainStringByte[c] }

var plainStringByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// plainASCII marks the bytes a JSON string holds as they are when written
// as encoding/json writes it: IsPlainStringByte less the HTML characters.
var plainASCII = func() (t [256]bool) {
	t = plainStringByte
	t['<'], t['>'], t['&'] = false, false, false
	return t
}()

// appendFloat formats like encoding/json (AppendFloat), with its error
// for a non-finite number.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		_, err := json.Marshal(f) // the standard error
		return nil, err
	}
	return AppendFloat(b, f), nil
}

// AppendFloat appends a finite f as encoding/json formats it: the shortest
// representation, exponent form outside [1e-6, 1e21).
func AppendFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// validNumber checks the JSON number grammar (what encoding/json requires
// of a json.Number it writes).
func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() bool {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i > start
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		digits()
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == len(s)
}
