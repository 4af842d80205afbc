package wasmeval

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// The SDKs of every language share one JSON model, so the same plugin gives
// the same bytes in Go, Rust and AssemblyScript (see docs/conformance.md):
//
//   - values are nil, bool, string, json.Number (the number's literal text,
//     kept exactly as written — integers beyond 2^53 survive), []any and
//     map[string]any: the form engine/verify compares;
//   - output is canonical: what encoding/json writes for such a value (keys
//     sorted by their UTF-8 bytes, no spaces, <>& and U+2028/U+2029
//     escaped), and numbers a plugin computes are written like
//     encoding/json writes a float64;
//   - malformed input is reported with the same message in every SDK.
//
// One Go-only exception: a json.RawMessage is written as it is, for a plugin
// that passes on a document it never decoded (engine/verify's Env.RawJSON).
// It must hold valid JSON; the host decodes it like any other value.

// errNonFinite is the same message in every SDK.
var errNonFinite = errors.New("cannot encode a non-finite number as JSON")

// MaxDepth bounds nesting so a hostile document cannot exhaust the stack.
const MaxDepth = 1000

// SyntaxError is malformed JSON: what was wrong and at which byte.
type SyntaxError struct {
	Offset int
	Reason string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.Reason)
}

// ParseJSON decodes one JSON document (surrounding whitespace allowed, no
// trailing data) into the shared value model.
func ParseJSON(data []byte) (any, error) { return parseJSON(data, nil, false) }

// envelopeScratch, when not nil, is the scratch buffer the SDK's own
// envelope parsing (an export's input, single or batch) reuses from call
// to call. It is set inside the guest only, where an instance serves one
// call at a time; natively the Handle functions may run concurrently, and
// parse with a scratch of their own.
var envelopeScratch *[]byte

// parseEnvelope parses an export's input envelope as ParseJSON does, a
// string value raw or not (docs/plugin-abi.md, "Raw strings").
func parseEnvelope(data []byte) (any, error) { return parseJSON(data, envelopeScratch, true) }

// parseJSON is ParseJSON, reusing *reuse as its scratch when reuse is not
// nil, and taking raw strings with raw.
func parseJSON(data []byte, reuse *[]byte, raw bool) (any, error) {
	p := parser{data: data, reuse: reuse, raw: raw}
	p.skip()
	v, err := p.value(0)
	if err == nil {
		p.skip()
		if p.pos < len(p.data) {
			err = &SyntaxError{p.pos, "unexpected data after the value"}
		}
	}
	if err != nil {
		// Invalid UTF-8 anywhere is reported first, whatever else is
		// wrong. A document that parsed is valid UTF-8: strings check
		// their own bytes and any other non-ASCII byte is a syntax error.
		if off := invalidUTF8(data); off >= 0 {
			return nil, &SyntaxError{off, "invalid UTF-8"}
		}
		return nil, err
	}
	return v, nil
}

func invalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}

type parser struct {
	data []byte
	pos  int
	// scratch holds a string being unescaped; allocated once per
	// document, as long as the rest of the input (a decoded string is
	// never longer than its text).
	scratch []byte
	// reuse, when not nil, holds a scratch buffer to use (if large
	// enough) and keeps the one allocated instead, for the next document.
	reuse *[]byte
	// lastText is the text of the last long string decoded, from after
	// its opening quote to its closing quote included, and lastStr its
	// value. A verify envelope holds a passing case's output twice (actual
	// and expected); the second is then a comparison, not a decode.
	lastText []byte
	lastStr  string
	// raw says a string value may be a raw string (abi.RawAt): the
	// parser reads an input envelope, whose long strings a host may
	// write so when describe says raw_strings. lastRaw is the last long
	// raw string read.
	raw     bool
	lastRaw string
}

// repeatMin is the shortest string text worth remembering.
const repeatMin = 64

func (p *parser) skip() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) fail(reason string) error { return &SyntaxError{p.pos, reason} }

func (p *parser) unexpected() error {
	if p.pos >= len(p.data) {
		return p.fail("unexpected end of input")
	}
	return p.fail(fmt.Sprintf("unexpected byte 0x%02x", p.data[p.pos]))
}

func (p *parser) literal(word string, v any) (any, error) {
	for i := 0; i < len(word); i++ {
		if p.pos >= len(p.data) || p.data[p.pos] != word[i] {
			return nil, p.unexpected()
		}
		p.pos++
	}
	return v, nil
}

func (p *parser) value(depth int) (any, error) {
	if p.pos >= len(p.data) {
		return nil, p.unexpected()
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		if depth >= MaxDepth {
			return nil, p.fail("nesting deeper than 1000")
		}
		return p.object(depth)
	case c == '[':
		if depth >= MaxDepth {
			return nil, p.fail("nesting deeper than 1000")
		}
		return p.array(depth)
	case c == '"':
		return p.str()
	case c == '\'' && p.raw:
		return p.rawStr()
	case c == 't':
		return p.literal("true", true)
	case c == 'f':
		return p.literal("false", false)
	case c == 'n':
		return p.literal("null", nil)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return nil, p.unexpected()
}

func (p *parser) object(depth int) (any, error) {
	p.pos++ // {
	m := map[string]any{}
	p.skip()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return m, nil
	}
	for {
		p.skip()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.unexpected()
		}
		k, err := p.key()
		if err != nil {
			return nil, err
		}
		p.skip()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.unexpected()
		}
		p.pos++
		p.skip()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		m[k] = v
		p.skip()
		if p.pos >= len(p.data) {
			return nil, p.unexpected()
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return m, nil
		default:
			return nil, p.unexpected()
		}
	}
}

func (p *parser) array(depth int) (any, error) {
	p.pos++ // [
	a := []any{}
	p.skip()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return a, nil
	}
	for {
		p.skip()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		p.skip()
		if p.pos >= len(p.data) {
			return nil, p.unexpected()
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return a, nil
		default:
			return nil, p.unexpected()
		}
	}
}

func (p *parser) number() (any, error) {
	start := p.pos
	if !p.numberText() {
		return nil, &SyntaxError{start, "invalid number"}
	}
	if p.pos-start == 1 {
		return digitNumbers[p.data[start]-'0'], nil // no string to allocate
	}
	return json.Number(p.data[start:p.pos]), nil
}

// digitNumbers are the one-digit numbers.
var digitNumbers = [10]any{json.Number("0"), json.Number("1"), json.Number("2"), json.Number("3"), json.Number("4"),
	json.Number("5"), json.Number("6"), json.Number("7"), json.Number("8"), json.Number("9")}

// numberText moves past the number at p.pos; false when it is not one.
func (p *parser) numberText() bool {
	digits := func() int {
		n := 0
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.data[p.pos] == '-' {
		p.pos++
	}
	if p.pos < len(p.data) && p.data[p.pos] == '0' {
		p.pos++
	} else if digits() == 0 {
		return false
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return false
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return false
		}
	}
	return true
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// str decodes a string; a lone surrogate escape becomes U+FFFD, as in
// encoding/json. Plain bytes are skipped with a table lookup. A string with
// escapes is decoded byte by byte into scratch by index: inside a Wasm
// guest an append (a runtime call) per run of plain bytes between escapes
// costs more than the bytes themselves, and JSON text held in a string has
// an escape every few bytes.
func (p *parser) str() (string, error) {
	data, i := p.data, p.pos+1 // after the opening quote
	if p.lastText != nil && hasPrefix(data[i:], p.lastText) {
		p.pos = i + len(p.lastText)
		return p.lastStr, nil
	}
	s, err := p.decodeStr()
	if err == nil && p.pos-i >= repeatMin {
		p.lastText, p.lastStr = data[i:p.pos], s
	}
	return s, err
}

// rawStr reads a raw string: its bytes, copied, checked to be UTF-8.
func (p *parser) rawStr() (string, error) {
	start, end, ok := abi.RawAt(p.data, p.pos)
	if !ok {
		return "", p.fail("invalid raw string")
	}
	text := p.data[start:end]
	if len(text) >= repeatMin && string(text) == p.lastRaw {
		// A passing case's expected output, the actual one's text.
		p.pos = end
		return p.lastRaw, nil
	}
	if !utf8.Valid(text) {
		return "", p.fail("invalid UTF-8")
	}
	p.pos = end
	s := string(text)
	if len(s) >= repeatMin {
		p.lastRaw = s
	}
	return s, nil
}

// key decodes an object's key. Parsing an envelope inside the guest
// (p.reuse set: one call at a time), a short plain key is looked up in
// keyCache first: envelopes repeat the same few keys call after call, and
// each would otherwise be a new string.
func (p *parser) key() (string, error) {
	if p.reuse == nil {
		return p.str()
	}
	data, i := p.data, p.pos+1
	j := i
	for j < len(data) && j-i <= maxCachedKey && abi.IsPlainStringByte(data[j]) {
		j++
	}
	if j >= len(data) || data[j] != '"' || j == i || j-i > maxCachedKey {
		return p.str()
	}
	b := data[i:j]
	slot := &keyCache[(len(b)*31+int(b[0])*7+int(b[len(b)-1]))%len(keyCache)]
	if *slot != string(b) {
		*slot = string(b)
	}
	p.pos = j + 1
	return *slot, nil
}

// keyCache holds the keys key looked up last; maxCachedKey is the longest
// it holds.
var keyCache [64]string

const maxCachedKey = 32

// decodeStr decodes the string at p.pos (see str).
func (p *parser) decodeStr() (string, error) {
	data, i := p.data, p.pos+1 // after the opening quote
	start := i
	for i+8 <= len(data) {
		if m := stringSpecial8(load64(data, i)); m != 0 {
			i += firstMarked(m)
			break
		}
		i += 8
	}
	for i < len(data) && abi.IsPlainStringByte(data[i]) {
		i++
	}
	if i < len(data) && data[i] == '"' {
		p.pos = i + 1
		return string(data[start:i]), nil
	}
	if p.scratch == nil {
		n := len(data) - start
		if p.reuse != nil && cap(*p.reuse) >= n {
			p.scratch = (*p.reuse)[:n] // written before it is read
		} else {
			p.scratch = make([]byte, n)
			if p.reuse != nil {
				*p.reuse = p.scratch
			}
		}
	}
	out := p.scratch
	w := copy(out, data[start:i])
	for {
		// A run of plain bytes, eight at a time: each word is stored
		// whole, and the bytes past the run are written over next. The
		// text ahead is never shorter than the room left in out (a
		// decoded string is never longer than its text), so the word
		// fits.
		// The escapes \", \\ and \/, of which JSON text held in a string
		// has one every few bytes, are taken in the same loop.
		for i+8 <= len(data) {
			x := load64(data, i)
			store64(out, w, x)
			if m := stringSpecial8(x); m != 0 {
				k := firstMarked(m)
				i += k
				w += k
				if x>>(8*k)&0xff == '\\' && i+1 < len(data) && escapeSame[data[i+1]] {
					out[w] = data[i+1]
					w++
					i += 2
					continue
				}
				break
			}
			i += 8
			w += 8
		}
		if i+1 >= len(data) {
			if i >= len(data) {
				p.pos = i
				return "", p.fail("unexpected end of input")
			}
		} else if data[i] == '\\' && escapeSame[data[i+1]] {
			// \", \\ or \/, the escapes of JSON text held in a string.
			out[w] = data[i+1]
			w++
			i += 2
			continue
		}
		c := data[i]
		if abi.IsPlainStringByte(c) {
			out[w] = c
			w++
			i++
			continue
		}
		switch {
		case c == '"':
			p.pos = i + 1
			return string(out[:w]), nil
		case c < 0x20:
			p.pos = i
			return "", p.fail("control character in string")
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n <= 1 {
				p.pos = i
				return "", p.fail("invalid UTF-8")
			}
			w += copy(out[w:], data[i:i+n])
			i += n
			continue
		}
		// A backslash.
		if i+1 >= len(data) {
			p.pos = i + 1
			return "", p.fail("unexpected end of input")
		}
		esc := data[i+1]
		switch esc {
		case '"', '\\', '/':
		case 'b':
			esc = '\b'
		case 'f':
			esc = '\f'
		case 'n':
			esc = '\n'
		case 'r':
			esc = '\r'
		case 't':
			esc = '\t'
		case 'u':
			r, ok := hex4(data[i+2:])
			if !ok {
				p.pos = i
				return "", p.fail("invalid escape")
			}
			i += 6
			if utf16.IsSurrogate(r) {
				r2, ok := rune(0), false
				if r < 0xDC00 && i+1 < len(data) && data[i] == '\\' && data[i+1] == 'u' {
					r2, ok = hex4(data[i+2:])
				}
				if ok && r2 >= 0xDC00 && r2 <= 0xDFFF {
					r = utf16.DecodeRune(r, r2)
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			// At most 4 bytes for at least 6 of text: it fits.
			w += utf8.EncodeRune(out[w:], r)
			continue
		default:
			p.pos = i
			return "", p.fail("invalid escape")
		}
		out[w] = esc
		w++
		i += 2
	}
}

// escapeSame are the escaped bytes that stand for themselves.
var escapeSame = [256]bool{'"': true, '\\': true, '/': true}

// EncodeJSON writes v canonically. Besides the shared model it accepts the
// Go types plugins naturally build: float64 and the integer types, []string,
// map[string]string, map[string][]string (a mock request's query and
// headers) and []map[string]any, and the ABI envelopes.
func EncodeJSON(v any) ([]byte, error) { return AppendJSON(nil, v) }

// AppendJSON appends v, written as EncodeJSON writes it, to dst.
func AppendJSON(dst []byte, v any) ([]byte, error) {
	e := encoder{buf: dst}
	if err := e.value(v); err != nil {
		return nil, err
	}
	return e.buf, nil
}

type encoder struct {
	buf []byte
	// last is the most recently encoded object and where its text is in
	// buf. A verdict for a passing case usually holds one document twice
	// (actual and expected are the same parsed value); the second time it
	// is copied instead of walked and sorted again.
	last struct {
		obj        unsafe.Pointer
		start, end int
	}
}

func (e *encoder) value(v any) error {
	switch t := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case bool:
		e.buf = strconv.AppendBool(e.buf, t)
	case string:
		e.str(t)
	case json.Number:
		if t == "" {
			t = "0"
		}
		e.buf = append(e.buf, t...)
	case json.RawMessage:
		if len(t) == 0 {
			t = json.RawMessage("null")
		}
		e.buf = append(e.buf, t...)
	case float64:
		return e.float(t)
	case float32:
		return e.float(float64(t))
	case int:
		e.buf = strconv.AppendInt(e.buf, int64(t), 10)
	case int64:
		e.buf = strconv.AppendInt(e.buf, t, 10)
	case int32:
		e.buf = strconv.AppendInt(e.buf, int64(t), 10)
	case uint64:
		e.buf = strconv.AppendUint(e.buf, t, 10)
	case []any:
		e.buf = append(e.buf, '[')
		for i, x := range t {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			if err := e.value(x); err != nil {
				return err
			}
		}
		e.buf = append(e.buf, ']')
	case []string:
		e.buf = append(e.buf, '[')
		for i, x := range t {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.str(x)
		}
		e.buf = append(e.buf, ']')
	case []int:
		e.buf = append(e.buf, '[')
		for i, x := range t {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.buf = strconv.AppendInt(e.buf, int64(x), 10)
		}
		e.buf = append(e.buf, ']')
	case []map[string]any:
		a := make([]any, len(t))
		for i, x := range t {
			a[i] = x
		}
		return e.value(a)
	case map[string]string:
		m := make(map[string]any, len(t))
		for k, x := range t {
			m[k] = x
		}
		return e.value(m)
	case map[string][]string:
		m := make(map[string]any, len(t))
		for k, x := range t {
			if x == nil {
				x = []string{}
			}
			m[k] = x
		}
		return e.value(m)
	case map[string]any:
		ptr := reflect.ValueOf(t).UnsafePointer()
		if ptr != nil && ptr == e.last.obj {
			e.buf = append(e.buf, e.buf[e.last.start:e.last.end]...)
			return nil
		}
		start := len(e.buf)
		var small [16]string // most objects have few keys: no allocation
		keys := small[:0]
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		e.buf = append(e.buf, '{')
		for i, k := range keys {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.str(k)
			e.buf = append(e.buf, ':')
			if err := e.value(t[k]); err != nil {
				return err
			}
		}
		e.buf = append(e.buf, '}')
		e.last.obj, e.last.start, e.last.end = ptr, start, len(e.buf)
	case *VerifyOutput:
		return e.verifyOutput(t)
	case VerifyOutput:
		return e.verifyOutput(&t)
	default:
		if m, ok := toValue(v); ok {
			return e.value(m)
		}
		return fmt.Errorf("cannot encode a %T as JSON", v)
	}
	return nil
}

// verifyOutput writes a verdict field by field, exactly as the map toValue
// makes of it would be written (keys in sorted order), without building the
// maps: this is every verifier's output.
func (e *encoder) verifyOutput(t *VerifyOutput) error {
	e.buf = append(e.buf, `{"attributes":[`...)
	for i := range t.Attributes {
		a := &t.Attributes[i]
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = append(e.buf, `{"actual":`...)
		if err := e.value(a.Actual); err != nil {
			return err
		}
		e.buf = append(e.buf, `,"attribute":`...)
		e.str(a.Attribute)
		if a.Diff != nil {
			e.buf = append(e.buf, `,"diff":`...)
			if err := e.value(*a.Diff); err != nil {
				return err
			}
		}
		e.buf = append(e.buf, `,"expected":`...)
		if err := e.value(a.Expected); err != nil {
			return err
		}
		e.buf = append(e.buf, `,"is_correct":`...)
		e.buf = strconv.AppendBool(e.buf, a.IsCorrect)
		e.buf = append(e.buf, `,"weight":`...)
		if err := e.float(a.Weight); err != nil {
			return err
		}
		e.buf = append(e.buf, '}')
	}
	e.buf = append(e.buf, ']')
	if t.Error != "" {
		e.buf = append(e.buf, `,"error":`...)
		e.str(t.Error)
	}
	if t.Unscored != "" {
		e.buf = append(e.buf, `,"unscored":`...)
		e.str(t.Unscored)
	}
	e.buf = append(e.buf, '}')
	return nil
}

// float writes f as encoding/json does: shortest round-trip digits, plain
// notation for 1e-6 <= |f| < 1e21, exponent notation otherwise.
func (e *encoder) float(f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return errNonFinite
	}
	e.buf = AppendFloat(e.buf, f)
	return nil
}

// AppendFloat appends f formatted as canonical JSON (abi.AppendFloat).
func AppendFloat(b []byte, f float64) []byte { return abi.AppendFloat(b, f) }

// str writes a JSON string the way encoding/json does.
func (e *encoder) str(s string) {
	e.buf = AppendQuoted(e.buf, s)
}

// AppendQuoted appends s as a JSON string, escaped the way encoding/json
// escapes it (abi.AppendQuoted).
func AppendQuoted(b []byte, s string) []byte { return abi.AppendQuoted(b, s) }
