package abi

import (
	"encoding/json"
	"maps"
	"math"
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
		for i, k := range slices.Sorted(maps.Keys(v)) {
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
	start, i := 0, 0
	for {
		// Runs of bytes that need no escaping are copied whole.
		for i < len(s) && plainASCII[s[i]] {
			i++
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default: // other control characters, <, > and &
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			start = i + n
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			start = i + n
		}
		i += n
	}
	b = append(b, s[start:]...)
	return append(b, '"')
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
