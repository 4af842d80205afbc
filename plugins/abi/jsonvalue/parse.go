// Package jsonvalue decodes JSON into the canonical form the engine and
// the plugin host compare and carry values in (map[string]any, []any,
// json.Number, string, bool, nil), fast and without reflection, and scans
// JSON text without decoding it. It belongs with the ABI: every envelope a
// plugin returns is parsed here, and engine/verify's checks parse outputs
// with the same code, so a value means the same on both sides.
package jsonvalue

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// MaxDepth matches encoding/json's nesting limit, so both parsers accept
// the same documents.
const MaxDepth = 10000

// Parse decodes one JSON document keeping numbers exact (json.Number), and
// refuses trailing data.
func Parse(data string) (any, error) { return parse(data, false) }

// ParseShared is Parse for documents that repeat a large value, as a
// verdict repeats a passing output as its actual and expected value: an
// object or list of at least sharedMin bytes whose text follows the same
// text just parsed is the same value, not a second copy. The result must
// not be modified.
func ParseShared(data string) (any, error) { return parse(data, true) }

func parse(data string, share bool) (any, error) {
	if v, ok := parseFast(data, share); ok {
		return v, nil
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(data)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return v, nil
}

// parseFast decodes the common case of a JSON document directly into
// the canonical form (map[string]any, []any, json.Number, string, bool,
// nil) without reflection. It is several times faster than encoding/json
// with UseNumber — which matters most inside Wasm plugins, where every
// allocation and reflective call costs an order of magnitude more than
// natively. It reports ok=false for anything it does not handle itself;
// Parse then defers to encoding/json, which gives the exact value or
// the standard error message, so results never depend on which parser ran.
func parseFast(data string, share bool) (v any, ok bool) {
	p := jsonParser{s: data, share: share}
	p.space()
	v, ok = p.value(0)
	if !ok {
		return nil, false
	}
	p.space()
	return v, p.i == len(p.s)
}

type jsonParser struct {
	s string
	i int
	// share reuses the last large object or list parsed when its text
	// comes again (ParseShared). Parsing depends only on the bytes
	// read and a value's text ends at its own closing bracket, so the
	// same text is the same value.
	share    bool
	lastText string
	lastVal  any
}

// sharedMin is the smallest object or list text worth remembering.
const sharedMin = 256

func (p *jsonParser) space() { p.i = SkipSpace(p.s, p.i) }

func (p *jsonParser) value(depth int) (any, bool) {
	if p.i >= len(p.s) {
		return nil, false
	}
	switch c := p.s[p.i]; {
	case c == '{' || c == '[':
		if p.share && p.lastText != "" && strings.HasPrefix(p.s[p.i:], p.lastText) {
			p.i += len(p.lastText)
			return p.lastVal, true
		}
		start := p.i
		var v any
		var ok bool
		if c == '{' {
			v, ok = p.object(depth + 1)
		} else {
			v, ok = p.array(depth + 1)
		}
		if ok && p.share && p.i-start >= sharedMin {
			p.lastText, p.lastVal = p.s[start:p.i], v
		}
		return v, ok
	case c == '"':
		return p.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		for _, lit := range [...]struct {
			text string
			v    any
		}{{"true", true}, {"false", false}, {"null", nil}} {
			if len(p.s)-p.i >= len(lit.text) && p.s[p.i:p.i+len(lit.text)] == lit.text {
				p.i += len(lit.text)
				return lit.v, true
			}
		}
		return nil, false
	}
}

func (p *jsonParser) object(depth int) (any, bool) {
	if depth > MaxDepth {
		return nil, false
	}
	p.i++ // {
	m := map[string]any{}
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return m, true
	}
	for {
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return nil, false
		}
		k, ok := p.str()
		if !ok {
			return nil, false
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, false
		}
		p.i++
		p.space()
		v, ok := p.value(depth)
		if !ok {
			return nil, false
		}
		m[k.(string)] = v // a repeated key: the last one wins, as in encoding/json
		p.space()
		if p.i >= len(p.s) {
			return nil, false
		}
		switch p.s[p.i] {
		case ',':
			p.i++
			p.space()
		case '}':
			p.i++
			return m, true
		default:
			return nil, false
		}
	}
}

func (p *jsonParser) array(depth int) (any, bool) {
	if depth > MaxDepth {
		return nil, false
	}
	p.i++ // [
	l := []any{}
	p.space()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return l, true
	}
	for {
		v, ok := p.value(depth)
		if !ok {
			return nil, false
		}
		l = append(l, v)
		p.space()
		if p.i >= len(p.s) {
			return nil, false
		}
		switch p.s[p.i] {
		case ',':
			p.i++
			p.space()
		case ']':
			p.i++
			return l, true
		default:
			return nil, false
		}
	}
}

// str decodes a string. Strings with escapes or invalid UTF-8 (rare in
// program output) go through encoding/json, whose replacement rules
// (U+FFFD for bad bytes and lone surrogates) are then applied exactly.
func (p *jsonParser) str() (any, bool) {
	start := p.i
	p.i++ // opening quote
	simple := true
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			if simple {
				return p.s[start+1 : p.i-1], true
			}
			var out string
			if err := json.Unmarshal([]byte(p.s[start:p.i]), &out); err != nil {
				return nil, false
			}
			return out, true
		case c == '\\':
			simple = false
			p.i += 2 // the escaped byte cannot end the string
		case c < 0x20:
			return nil, false
		case c < utf8.RuneSelf:
			p.i++
		default:
			r, size := utf8.DecodeRuneInString(p.s[p.i:])
			if r == utf8.RuneError && size == 1 {
				simple = false
			}
			p.i += size
		}
	}
	return nil, false
}

// number checks the JSON number grammar and keeps the literal text.
func (p *jsonParser) number() (any, bool) {
	end, ok := scanNumber(p.s, p.i)
	if !ok {
		return nil, false
	}
	v := json.Number(p.s[p.i:end])
	p.i = end
	return v, true
}
