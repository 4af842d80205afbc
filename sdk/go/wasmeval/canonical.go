package wasmeval

import (
	"bytes"
	"encoding/json"
	"math/bits"
	"sync"
	"unicode/utf8"
	"unsafe"
)

// AppendCanonicalJSON appends the JSON document text to dst written
// canonically: the bytes EncodeJSON writes for ParseJSON's value of text,
// made without building the value (no maps, no lists, no strings but the
// rare escaped key). ok is false, and dst is returned unchanged, when text
// is not a document ParseJSON accepts; ParseJSON then says why.
//
// A plugin that passes a document on unchanged, or compares two and finds
// them the same (SameJSON), can put the result in its output as a
// json.RawMessage instead of the parsed value: the output's bytes are the
// same, and for a document of some size it is several times less work
// than parsing and encoding it.
func AppendCanonicalJSON(dst []byte, text string) ([]byte, bool) {
	c := canonicalizers.Get().(*canonicalizer)
	defer c.release()
	out, ok := c.document(dst, text)
	if !ok {
		return dst, false
	}
	return out, true
}

// canonicalizers keeps canonicalizers with their stacks from call to call.
var canonicalizers = sync.Pool{New: func() any { return new(canonicalizer) }}

// release puts c back in the pool, without the text it read.
func (c *canonicalizer) release() {
	c.data, c.text, c.p = nil, "", parser{}
	canonicalizers.Put(c)
}

// SameJSON reports whether want and got are the same JSON document, as
// ParseJSON reads them: the same values, wherever their texts differ in
// white space, key order or escapes (numbers are compared as written:
// 1.0 and 1 are not the same here, though CompareJSON finds them equal).
// If they are, it returns the document written canonically (see
// AppendCanonicalJSON), which stands for both parsed values in a verdict:
// CompareJSON finds no difference between them, whatever its options.
// False also when either text is not valid JSON.
func SameJSON(want, got string) (json.RawMessage, bool) {
	c := canonicalizers.Get().(*canonicalizer)
	defer c.release()
	out, ok := c.document(make([]byte, 0, len(got)+16), got)
	if !ok {
		return nil, false
	}
	if want != got {
		n := len(out)
		both, ok := c.document(out, want)
		if !ok || !bytes.Equal(both[:n], both[n:]) {
			return nil, false
		}
		out = both[:n]
	}
	return json.RawMessage(out), true
}

// canonicalizer writes a document canonically straight from its text. It
// checks exactly what the parser checks (a text it accepts is one ParseJSON
// accepts, and the other way round), keeps scalars as they are written
// whenever the encoder would write them so, and sorts each object's members
// by key once its text is written, keeping the last of a repeated key.
//
// It is one loop over the text with a stack of the open containers, not a
// recursive descent, and it copies the text in runs, not token by token:
// the text from pending on is canonical as it is, and is copied only when
// something must be left out (white space) or written otherwise (a string
// with escapes, an object's members out of order). Inside a Wasm guest a
// function call, an append or a jump costs far more than the few bytes
// most tokens have.
type canonicalizer struct {
	data []byte
	text string // data as a string: keys are slices of it
	// open are the containers being written, innermost last.
	open []container
	// members are the members of the objects being written, innermost
	// last; tmp holds an object's text while its members are put in order.
	members []member
	tmp     []byte
	// keys holds the decoded keys that had escapes.
	keys []byte
	// p decodes the rare string with escapes.
	p parser
}

// container is an open object or array: where its bracket is in the
// output and, for an object, where its members start in members.
type container struct {
	at     int32
	object bool
	base   int32
}

// member is an object member: its key, data[key:keyEnd] (or, when
// escaped, keys[key:keyEnd]), its first 8 bytes as a big-endian number
// (zero-padded), and where `"key":value` is in the output. It holds no
// pointer, so moving members costs the collector nothing.
type member struct {
	prefix      uint64
	key, keyEnd int32
	escaped     bool
	start, end  int32
}

// key is m's key, without copying it.
func (c *canonicalizer) key(m *member) string {
	if m.escaped {
		return unsafe.String(unsafe.SliceData(c.keys[m.key:]), int(m.keyEnd-m.key))
	}
	return c.text[m.key:m.keyEnd]
}

// less orders members by key bytes, as the encoder sorts a map's keys.
func (c *canonicalizer) less(a, b *member) bool {
	if a.prefix != b.prefix {
		return a.prefix < b.prefix
	}
	return c.keyLess(a, b)
}

func (c *canonicalizer) keyLess(a, b *member) bool { return c.key(a) < c.key(b) }

// keyPrefix is the first 8 bytes of k as a big-endian number, zero-padded.
func keyPrefix(k string) uint64 {
	if len(k) >= 8 {
		return bits.ReverseBytes64(load64(unsafe.Slice(unsafe.StringData(k), 8), 0))
	}
	var p uint64
	for j := 0; j < len(k); j++ {
		p |= uint64(k[j]) << (56 - 8*j)
	}
	return p
}

// canonicalPlain are the bytes that stand for themselves both in a JSON
// string's text and in the canonical encoding: printable ASCII other than
// the quote, the backslash and <, > and &.
var canonicalPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// jsonSpace is JSON's white space.
var jsonSpace = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// maxCanonical bounds the texts written from their text (members hold
// int32 offsets); ParseJSON takes any longer one.
const maxCanonical = 1 << 28

// document writes text canonically after dst; false when text is not a
// document ParseJSON accepts.
func (c *canonicalizer) document(dst []byte, text string) ([]byte, bool) {
	if len(text) > maxCanonical-len(dst) {
		return dst, false
	}
	c.text, c.keys = text, c.keys[:0]
	c.data = unsafe.Slice(unsafe.StringData(text), len(text))
	c.p = parser{data: c.data}
	c.open, c.members = c.open[:0], c.members[:0]
	return c.run(dst)
}

func (c *canonicalizer) run(out []byte) ([]byte, bool) {
	data := c.data
	// The stacks are local variables (kept in the function's registers),
	// handed back to c for the next document when this one is done.
	open, members := c.open[:0], c.members[:0]
	i := 0
	for i < len(data) && jsonSpace[data[i]] {
		i++
	}
	// data[pending:i] is canonical text not copied to out yet: the output
	// so far is out followed by it, and len(out)+i-pending is where the
	// output is at data[i].
	pending := i
	// key says a member's key comes before the next value. Each turn of
	// the loop reads one element or member (key, value, and what closes
	// or follows it): a turn of a loop is a jump through the function's
	// dispatch table in a Wasm guest, and a member costs one.
	key := false
	for {
		if key {
			key = false
			if i >= len(data) || data[i] != '"' {
				return out, false
			}
			m := member{start: int32(len(out) + i - pending)}
			// The run of canonical bytes, eight at a time, and the key's
			// prefix, written out here: a call costs more than a short
			// key.
			j := i + 1
			for {
				if j+8 > len(data) {
					for j < len(data) && canonicalPlain[data[j]] {
						j++
					}
					break
				}
				if m := canonicalSpecial8(load64(data, j)); m != 0 {
					j += firstMarked(m)
					break
				}
				j += 8
			}
			if j < len(data) && data[j] == '"' {
				m.key, m.keyEnd = int32(i+1), int32(j)
				if n := j - i - 1; i+9 <= len(data) && n <= 8 {
					m.prefix = bits.ReverseBytes64(load64(data, i+1) & (1<<(8*n) - 1 | -(uint64(n) >> 3)))
				} else {
					m.prefix = keyPrefix(c.text[i+1 : j])
				}
				i = j + 1
			} else {
				out = append(out, data[pending:i]...)
				var k string
				var ok bool
				if out, i, k, ok = c.str(out, i, j); !ok {
					return out, false
				}
				pending = i
				m.escaped, m.key, m.prefix = true, int32(len(c.keys)), keyPrefix(k)
				c.keys = append(c.keys, k...)
				m.keyEnd = int32(len(c.keys))
			}
			if i < len(data) && jsonSpace[data[i]] {
				out, i, pending = dropSpace(out, data, i, pending)
			}
			if i >= len(data) || data[i] != ':' {
				return out, false
			}
			i++
			if i < len(data) && jsonSpace[data[i]] {
				out, i, pending = dropSpace(out, data, i, pending)
			}
			members = append(members, m)
		}
		// A value starts at data[i].
		if i >= len(data) {
			return out, false
		}
		switch ch := data[i]; {
		case ch == '"':
			j := i + 1
			for {
				if j+8 > len(data) {
					for j < len(data) && canonicalPlain[data[j]] {
						j++
					}
					break
				}
				if m := canonicalSpecial8(load64(data, j)); m != 0 {
					j += firstMarked(m)
					break
				}
				j += 8
			}
			if j < len(data) && data[j] == '"' {
				i = j + 1
				break
			}
			out = append(out, data[pending:i]...)
			var ok bool
			if out, i, _, ok = c.str(out, i, j); !ok {
				return out, false
			}
			pending = i
		case ch-'0' < 10 || ch == '-':
			// The number grammar, as the parser checks it, with runs of
			// digits tested eight at a time: the integer part, then a
			// fraction or exponent.
			j := i
			if ch == '-' {
				j++
			}
			d := j
			for j+8 <= len(data) {
				if m := nonDigit8(load64(data, j)); m != 0 {
					j += firstMarked(m)
					break
				}
				j += 8
			}
			for j < len(data) && data[j]-'0' < 10 {
				j++
			}
			if j == d || j > d+1 && data[d] == '0' {
				// No digits, or a leading zero: the parser stops after
				// the 0 and finds a digit where a delimiter must be.
				return out, false
			}
			if j < len(data) && data[j] == '.' {
				j++
				d = j
				for j+8 <= len(data) {
					if m := nonDigit8(load64(data, j)); m != 0 {
						j += firstMarked(m)
						break
					}
					j += 8
				}
				for j < len(data) && data[j]-'0' < 10 {
					j++
				}
				if j == d {
					return out, false
				}
			}
			if j < len(data) && data[j]|0x20 == 'e' {
				var ok bool
				if j, ok = numberRest(data, j); !ok {
					return out, false
				}
			}
			i = j
		case ch == '{' || ch == '[':
			if len(open) >= MaxDepth {
				return out, false
			}
			at := int32(len(out) + i - pending)
			i++
			if i < len(data) && jsonSpace[data[i]] {
				out, i, pending = dropSpace(out, data, i, pending)
			}
			if i < len(data) && data[i] == ch+2 { // '}' is '{'+2, ']' is '['+2
				i++
				break // an empty one is written as it is
			}
			open = append(open, container{at: at, object: ch == '{', base: int32(len(members))})
			key = ch == '{'
			continue // its first element
		case ch == 't' && len(data)-i >= 4 && c.text[i:i+4] == "true",
			ch == 'n' && len(data)-i >= 4 && c.text[i:i+4] == "null":
			i += 4
		case ch == 'f' && len(data)-i >= 5 && c.text[i:i+5] == "false":
			i += 5
		default:
			return out, false
		}
		// A value ended before data[i]: close containers, or go on to the
		// next element.
		for {
			if len(open) == 0 {
				if i < len(data) && jsonSpace[data[i]] {
					out, i, pending = dropSpace(out, data, i, pending)
				}
				if i < len(data) {
					return out, false
				}
				c.open, c.members = open, members
				return append(out, data[pending:i]...), true
			}
			top := &open[len(open)-1]
			if top.object {
				members[len(members)-1].end = int32(len(out) + i - pending)
			}
			if i < len(data) && jsonSpace[data[i]] {
				out, i, pending = dropSpace(out, data, i, pending)
			}
			if i >= len(data) {
				return out, false
			}
			ch := data[i]
			if ch == ',' {
				i++
				if i < len(data) && jsonSpace[data[i]] {
					out, i, pending = dropSpace(out, data, i, pending)
				}
				key = top.object
				break
			}
			if !top.object {
				if ch != ']' {
					return out, false
				}
				i++
				open = open[:len(open)-1]
				continue
			}
			if ch != '}' {
				return out, false
			}
			ms := members[top.base:]
			ordered := true
			for k := 1; k < len(ms); k++ {
				if ms[k-1].prefix >= ms[k].prefix {
					ordered = false // or keys that only differ further on
					break
				}
			}
			if !ordered {
				// The '}' stays pending: it comes after the members in
				// their order.
				out = append(out, data[pending:i]...)
				pending = i
				out = c.order(out, int(top.at), ms)
			}
			i++
			members = members[:top.base]
			open = open[:len(open)-1]
		}
	}
}

// numberRest checks a number's fraction and exponent, the first of them
// at data[i], and returns where the number ends.
func numberRest(data []byte, i int) (int, bool) {
	if i < len(data) && data[i] == '.' {
		i++
		n := digitRun(data, i)
		if n == 0 {
			return i, false
		}
		i += n
	}
	if i < len(data) && data[i]|0x20 == 'e' {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		n := digitRun(data, i)
		if n == 0 {
			return i, false
		}
		i += n
	}
	return i, true
}

// digitRun is the number of decimal digits at data[i].
func digitRun(data []byte, i int) int {
	start := i
	for i+8 <= len(data) {
		if m := nonDigit8(load64(data, i)); m != 0 {
			return i + firstMarked(m) - start
		}
		i += 8
	}
	for i < len(data) && data[i]-'0' < 10 {
		i++
	}
	return i - start
}

// dropSpace leaves out the white space at data[i]: it copies what was
// pending before it and returns the index after it.
func dropSpace(out, data []byte, i, pending int) ([]byte, int, int) {
	out = append(out, data[pending:i]...)
	for i < len(data) && jsonSpace[data[i]] {
		i++
	}
	return out, i, i
}

// str writes the string whose opening quote is data[i] and whose text is
// canonical up to data[j], and returns where it ends and its value. A
// string with bytes beyond j that are still canonical (valid UTF-8 other
// than U+2028 and U+2029) is copied; any other is decoded by the parser
// and encoded again.
func (c *canonicalizer) str(out []byte, i, j int) (o []byte, end int, value string, ok bool) {
	data := c.data
	for j < len(data) {
		ch := data[j]
		if canonicalPlain[ch] {
			j++
			continue
		}
		if ch == '"' {
			return append(out, data[i:j+1]...), j + 1, c.text[i+1 : j], true
		}
		if ch < utf8.RuneSelf {
			break // an escape, a control character or <, > or &
		}
		r, n := utf8.DecodeRune(data[j:])
		if r == utf8.RuneError && n <= 1 {
			return out, j, "", false
		}
		if r == '\u2028' || r == '\u2029' {
			break
		}
		j += n
	}
	c.p.pos = i
	s, err := c.p.str()
	if err != nil {
		return out, i, "", false
	}
	return AppendQuoted(out, s), c.p.pos, s, true
}

// order puts the members of the object whose '{' is out[open] in key
// order, as the encoder writes a map: sorted by their bytes, a repeated
// key once with its last value. The closing '}' is not in out yet.
func (c *canonicalizer) order(out []byte, open int, ms []member) []byte {
	sorted := true
	for i := 1; i < len(ms); i++ {
		if !c.less(&ms[i-1], &ms[i]) {
			sorted = false
			break
		}
	}
	if sorted {
		return out
	}
	// Insertion sort, stable: a repeated key's members stay in text order.
	for i := 1; i < len(ms); i++ {
		m := ms[i]
		j := i
		for ; j > 0 && c.less(&m, &ms[j-1]); j-- {
			ms[j] = ms[j-1]
		}
		ms[j] = m
	}
	c.tmp = append(c.tmp[:0], out[open:]...)
	out = append(out[:open], '{')
	first := true
	for i := range ms {
		m := &ms[i]
		if i+1 < len(ms) && !c.less(m, &ms[i+1]) {
			continue // a later value of the same key wins
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(out, c.tmp[int(m.start)-open:int(m.end)-open]...)
	}
	return out
}
