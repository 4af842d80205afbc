package wasmeval

import (
	"math"
	"strconv"
	"unsafe"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// The verify input envelope, decoded straight into its type. The general
// path parses an envelope into maps and lists and then reads the typed
// envelope out of them; for a verify call, the one every verifier serves
// and a run makes for every case, that tree (the envelope, its case and
// actual result, each key a new string) is most of the decoding. The fast
// path reads the same text into the same VerifyInput: config and expected
// are parsed as values, as before, and everything else goes straight into
// its field. It gives up, and the general path decodes the call as it
// always did, on anything it does not expect (a key that is escaped or
// repeated, a field of the wrong type, malformed JSON), so every error is
// still the general path's, word for word.

// fastVerifyInput decodes the verify input envelope at p.pos (no white
// space before it) and leaves p.pos after it. ok is false when the general
// path must decode it instead; p.pos is then anywhere.
func (p *parser) fastVerifyInput() (in *VerifyInput, ok bool) {
	if p.pos >= len(p.data) || p.data[p.pos] != '{' {
		return nil, false // not an object (a null too): an error
	}
	in = &VerifyInput{}
	more, ok := p.fastOpen()
	var seen uint
	for ok && more {
		var key []byte
		if key, ok = p.fastKey(); !ok {
			break
		}
		var bit uint
		switch string(key) {
		case "abi_version":
			bit = 1
			in.ABIVersion, ok = p.fastInt()
		case "config":
			bit = 2
			in.Config, ok = p.fastObject(1)
		case "case":
			bit = 4
			ok = p.fastCase(&in.Case)
		case "actual":
			bit = 8
			ok = p.fastActual(&in.Actual)
		case "expected":
			bit = 16
			in.Expected, ok = p.fastObject(1)
		default:
			_, err := p.value(1)
			ok = err == nil
		}
		if !ok || seen&bit != 0 {
			return nil, false
		}
		seen |= bit
		more, ok = p.fastNext()
	}
	return in, ok
}

// fastCase decodes a case (a member of the envelope) as caseOf does.
func (p *parser) fastCase(c *Case) bool {
	more, ok := p.fastOpen()
	if !ok {
		return false
	}
	var seen uint
	d := &decoder{}
	for more {
		key, ok := p.fastKey()
		if !ok {
			return false
		}
		var bit uint
		switch string(key) {
		case "id":
			bit = 1
			c.ID, ok = p.fastStr()
		case "checkpoint":
			bit = 2
			c.Checkpoint, ok = p.fastStr()
		case "group":
			bit = 4
			c.Group, ok = p.fastStr()
		case "group_type":
			bit = 8
			c.GroupType, ok = p.fastStr()
		case "arguments":
			bit = 16
			c.Arguments, ok = p.fastStrs()
		case "stdin":
			bit = 32
			if p.pos < len(p.data) && p.data[p.pos] == 'n' {
				_, ok = p.fastStr()
				break
			}
			var s string
			s, ok = p.fastStr()
			c.Stdin = &s
		case "timeout_s":
			bit = 64
			c.TimeoutS, ok = p.fastFloat()
		case "reset":
			bit = 128
			c.Reset, ok = p.fastBool()
		default:
			// The rarer fields, parsed as values and read as caseOf reads
			// them; the path is only put together for an error, which
			// sends the call to the general path anyway.
			v, err := p.value(2)
			ok = err == nil
			switch string(key) {
			case "env":
				bit = 256
				c.Env = d.strMap(at{}, v)
			case "input_files":
				bit = 512
				for _, f := range d.arr(at{}, v) {
					fm := d.obj(at{}, f)
					c.InputFiles = append(c.InputFiles, InputFile{Path: d.str(at{}, fm["path"]),
						Content: d.str(at{}, fm["content"]), Encoding: d.str(at{}, fm["encoding"])})
				}
			case "tracked_files":
				bit = 1024
				c.TrackedFiles = d.strs(at{}, v)
			case "expected":
				bit = 2048
				c.Expected = d.obj(at{}, v)
			case "extra":
				bit = 4096
				c.Extra = d.obj(at{}, v)
			}
		}
		if !ok || d.err != nil || seen&bit != 0 {
			return false
		}
		seen |= bit
		if more, ok = p.fastNext(); !ok {
			return false
		}
	}
	return true
}

// fastActual decodes an actual result (a member of the envelope) as
// actualOf does.
func (p *parser) fastActual(a *Actual) bool {
	more, ok := p.fastOpen()
	if !ok {
		return false
	}
	var seen uint
	for more {
		key, ok := p.fastKey()
		if !ok {
			return false
		}
		var bit uint
		switch string(key) {
		case "status_code":
			bit = 1
			a.StatusCode, ok = p.fastInt()
		case "output":
			bit = 2
			a.Output, ok = p.fastStr()
		case "stderr":
			bit = 4
			a.Stderr, ok = p.fastStr()
		case "files":
			bit = 8
			a.Files, ok = p.fastObject(2)
		case "timed_out":
			bit = 16
			a.TimedOut, ok = p.fastBool()
		case "mock_calls":
			// Rare and small: parsed as a value and read as actualOf
			// reads it.
			bit = 32
			var v any
			var err error
			if v, err = p.value(2); err == nil {
				d := &decoder{}
				a.MockCalls = d.mockCalls(at{}, v)
				ok = d.err == nil
			} else {
				ok = false
			}
		default:
			_, err := p.value(2)
			ok = err == nil
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		if more, ok = p.fastNext(); !ok {
			return false
		}
	}
	return true
}

// fastOpen reads the '{' of an object member's value and the white space
// after it; more says members follow. A null is read as {}: for the case
// and the actual result, both are the zero value.
func (p *parser) fastOpen() (more, ok bool) {
	if p.pos < len(p.data) && p.data[p.pos] == 'n' {
		_, err := p.literal("null", nil)
		return false, err == nil
	}
	if p.pos >= len(p.data) || p.data[p.pos] != '{' {
		return false, false
	}
	p.pos++
	p.skip()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return false, true
	}
	return true, true
}

// fastKey reads `"key":` and the white space around the colon, and
// returns the key's text: only keys of plain bytes, which are their own
// value.
func (p *parser) fastKey() ([]byte, bool) {
	data, i := p.data, p.pos
	if i >= len(data) || data[i] != '"' {
		return nil, false
	}
	i++
	start := i
	for i < len(data) && abi.IsPlainStringByte(data[i]) {
		i++
	}
	if i >= len(data) || data[i] != '"' {
		return nil, false
	}
	key := data[start:i]
	p.pos = i + 1
	p.skip()
	if p.pos >= len(data) || data[p.pos] != ':' {
		return nil, false
	}
	p.pos++
	p.skip()
	return key, true
}

// fastNext reads what follows a member's value: a ',' (more is true) or
// the '}'.
func (p *parser) fastNext() (more, ok bool) {
	p.skip()
	if p.pos >= len(p.data) {
		return false, false
	}
	switch p.data[p.pos] {
	case ',':
		p.pos++
		p.skip()
		return true, true
	case '}':
		p.pos++
		return false, true
	}
	return false, false
}

// fastObject parses an object member's value, at depth, as obj decodes
// it: an object or null.
func (p *parser) fastObject(depth int) (map[string]any, bool) {
	if p.pos >= len(p.data) || p.data[p.pos] != '{' && p.data[p.pos] != 'n' {
		return nil, false
	}
	v, err := p.value(depth)
	if err != nil {
		return nil, false
	}
	m, _ := v.(map[string]any)
	return m, true
}

// fastStr reads a string or null ("").
func (p *parser) fastStr() (string, bool) {
	if p.pos >= len(p.data) {
		return "", false
	}
	switch p.data[p.pos] {
	case '"':
		s, err := p.str()
		return s, err == nil
	case '\'':
		if !p.raw {
			return "", false
		}
		s, err := p.rawStr()
		return s, err == nil
	case 'n':
		_, err := p.literal("null", nil)
		return "", err == nil
	}
	return "", false
}

// fastStrs reads a list of strings (null elements are "") or null, as
// strs decodes it.
func (p *parser) fastStrs() ([]string, bool) {
	if p.pos < len(p.data) && p.data[p.pos] == 'n' {
		_, err := p.literal("null", nil)
		return nil, err == nil
	}
	if p.pos >= len(p.data) || p.data[p.pos] != '[' {
		return nil, false
	}
	p.pos++
	p.skip()
	out := make([]string, 0, 4)
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return out, true
	}
	for {
		s, ok := p.fastStr()
		if !ok {
			return nil, false
		}
		out = append(out, s)
		p.skip()
		if p.pos >= len(p.data) {
			return nil, false
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
			p.skip()
		case ']':
			p.pos++
			return out, true
		default:
			return nil, false
		}
	}
}

// fastFloat reads a number or null (0), as float decodes it.
func (p *parser) fastFloat() (float64, bool) {
	if p.pos >= len(p.data) {
		return 0, false
	}
	switch c := p.data[p.pos]; {
	case c == 'n':
		_, err := p.literal("null", nil)
		return 0, err == nil
	case c == '-' || c-'0' < 10:
		start := p.pos
		if !p.numberText() {
			return 0, false
		}
		f, _ := strconv.ParseFloat(unsafe.String(&p.data[start], p.pos-start), 64)
		return f, true
	}
	return 0, false
}

// fastInt reads an integer or null (0), as integer decodes it.
func (p *parser) fastInt() (int, bool) {
	f, ok := p.fastFloat()
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int(f), true
}

// fastBool reads a boolean or null (false).
func (p *parser) fastBool() (bool, bool) {
	if p.pos >= len(p.data) {
		return false, false
	}
	var err error
	v := false
	switch p.data[p.pos] {
	case 't':
		_, err = p.literal("true", nil)
		v = true
	case 'f':
		_, err = p.literal("false", nil)
	case 'n':
		_, err = p.literal("null", nil)
	default:
		return false, false
	}
	return v, err == nil
}
