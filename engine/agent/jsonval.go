package agent

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Values are decoded with json.Decoder.UseNumber: objects are
// map[string]any, lists []any, numbers json.Number, so large integers and
// exact decimals survive.

// typeName names a decoded JSON value's type as an error message says it.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// path builds JSON paths: "conversation[3].content".
type path string

func (p path) key(k string) path {
	if p == "" {
		return path(k)
	}
	return p + "." + path(k)
}

func (p path) index(i int) path { return p + path("["+strconv.Itoa(i)+"]") }

// decoder collects the source name for errors.
type decoder struct {
	source string
}

func (d *decoder) typeErr(p path, want string, got any) error {
	return &Error{Source: d.source, Path: string(p), Msg: "expected " + want + ", got " + typeName(got)}
}

func (d *decoder) errf(p path, format string, args ...any) error {
	return &Error{Source: d.source, Path: string(p), Msg: fmt.Sprintf(format, args...)}
}

// optString reads an optional string: absent or null is "".
func (d *decoder) optString(obj map[string]any, k string, p path) (string, error) {
	v, ok := obj[k]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", d.typeErr(p.key(k), "a string", v)
	}
	return s, nil
}

// optObject reads an optional object: absent or null is nil.
func (d *decoder) optObject(obj map[string]any, k string, p path) (map[string]any, error) {
	v, ok := obj[k]
	if !ok || v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, d.typeErr(p.key(k), "an object", v)
	}
	return m, nil
}

// optList reads an optional list: absent or null is nil.
func (d *decoder) optList(obj map[string]any, k string, p path) ([]any, error) {
	v, ok := obj[k]
	if !ok || v == nil {
		return nil, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, d.typeErr(p.key(k), "a list", v)
	}
	return l, nil
}

// optBool reads an optional boolean: absent or null is false.
func (d *decoder) optBool(obj map[string]any, k string, p path) (bool, error) {
	v, ok := obj[k]
	if !ok || v == nil {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, d.typeErr(p.key(k), "a boolean", v)
	}
	return b, nil
}

// optCount reads an optional non-negative integer; present reports whether
// it was there (and not null).
func (d *decoder) optCount(obj map[string]any, k string, p path) (n int64, present bool, err error) {
	v, ok := obj[k]
	if !ok || v == nil {
		return 0, false, nil
	}
	num, ok := v.(json.Number)
	if !ok {
		return 0, false, d.typeErr(p.key(k), "a non-negative integer", v)
	}
	i, err := strconv.ParseInt(string(num), 10, 64)
	if err != nil {
		// 3.0 is an integer written as a decimal; accept it.
		f, ferr := strconv.ParseFloat(string(num), 64)
		if ferr != nil || f != math.Trunc(f) || f < 0 || f > math.MaxInt64/2 {
			return 0, false, d.errf(p.key(k), "expected a non-negative integer, got %s", num)
		}
		i = int64(f)
	}
	if i < 0 {
		return 0, false, d.errf(p.key(k), "expected a non-negative integer, got %s", num)
	}
	return i, true, nil
}

// optNumber reads an optional non-negative, finite number.
func (d *decoder) optNumber(obj map[string]any, k string, p path) (f float64, present bool, err error) {
	v, ok := obj[k]
	if !ok || v == nil {
		return 0, false, nil
	}
	num, ok := v.(json.Number)
	if !ok {
		return 0, false, d.typeErr(p.key(k), "a non-negative number", v)
	}
	f, err = strconv.ParseFloat(string(num), 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false, d.errf(p.key(k), "expected a non-negative number, got %s", num)
	}
	return f, true, nil
}

// parseJSON decodes text as one JSON value with numbers as json.Number.
func parseJSON(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if off := dec.InputOffset(); !onlySpace(text[off:]) {
		return nil, fmt.Errorf("extra data after the JSON value at byte %d", off)
	}
	return v, nil
}

// onlySpace reports whether s holds nothing but JSON whitespace.
func onlySpace(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
		default:
			return false
		}
	}
	return true
}

// compact renders a decoded value as compact JSON.
func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
