package journal

import (
	"encoding/json"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// Every report, resume and rescore decodes the whole journal, and
// encoding/json spends most of a record's time on reflection and on
// scanning the line twice. A line the journal wrote has one layout: the
// record's JSON keys exactly as encodeRecord writes them, each once, with
// values of their fields' types. fastDecode reads such a line directly;
// anything else in it (another key or key case, a key twice, a value of
// another type, a string with escapes it does not take as they are, a
// number out of range) makes it give up, and the line is decoded by
// encoding/json, which then decides what the line is (a record, or a
// corrupt line and why). So a line fastDecode takes is decoded exactly as
// encoding/json would have decoded it, and no line it gives up on is
// decoded differently than before. fastdecode_test.go holds it to that.

// fastDecoder reads one line's body. With build false it only checks that
// the line is a record it can take (building nothing but the head, in
// headOnly mode): the line is then one encoding/json decodes without
// error. Each reader returns what it read and whether it could.
type fastDecoder struct {
	b     []byte
	i     int
	build bool
	// attrs false: the attributes are passed over as any JSON value
	// (decodeWithoutAttributes).
	attrs bool
}

// Modes of fastDecode.
const (
	decodeWhole       = iota // the record and its attributes
	decodeNoAttribute        // the record; its attributes are passed over
	decodeHeadOnly           // the head (checkpoint, group, id, epoch, attempt); the rest is checked
)

// fastDecode decodes body (a whole line without its newline) into a
// record and its stored attributes; ok is false when it cannot tell.
func fastDecode(body []byte, mode int) (rec *result.CaseRecord, stored []storedAttribute, ok bool) {
	if !fastCodec {
		return nil, nil, false
	}
	d := fastDecoder{b: body, build: mode != decodeHeadOnly, attrs: mode != decodeNoAttribute}
	rec = &result.CaseRecord{}
	if !d.record(rec, &stored) {
		return nil, nil, false
	}
	d.space()
	if d.i != len(d.b) {
		return nil, nil, false
	}
	if mode == decodeHeadOnly {
		return &result.CaseRecord{Checkpoint: rec.Checkpoint, Group: rec.Group, ID: rec.ID, Epoch: rec.Epoch, Attempt: rec.Attempt}, nil, true
	}
	return rec, stored, true
}

func (d *fastDecoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek is the next byte after white space; 0 at the end.
func (d *fastDecoder) peek() byte {
	d.space()
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

func (d *fastDecoder) skip(c byte) bool {
	if d.peek() == c {
		d.i++
		return true
	}
	return false
}

// literal consumes word.
func (d *fastDecoder) literal(word string) bool {
	if len(d.b)-d.i >= len(word) && string(d.b[d.i:d.i+len(word)]) == word {
		d.i += len(word)
		return true
	}
	return false
}

// null consumes a null.
func (d *fastDecoder) null() bool { return d.peek() == 'n' && d.literal("null") }

// begin starts an object or a list (open is its bracket): more says
// whether an element follows.
func (d *fastDecoder) begin(open byte) (more, ok bool) {
	if !d.skip(open) {
		return false, false
	}
	if d.skip(open + 2) { // '{'+2 is '}', '['+2 is ']'
		return false, true
	}
	return true, true
}

// next goes past an element of an object or a list (close is its closing
// bracket): more says whether another follows.
func (d *fastDecoder) next(close byte) (more, ok bool) {
	if d.skip(',') {
		return true, true
	}
	return false, d.skip(close)
}

// key reads an object key without escapes, and its colon.
func (d *fastDecoder) key() ([]byte, bool) {
	if d.peek() != '"' {
		return nil, false
	}
	start := d.i + 1
	for j := start; j < len(d.b); j++ {
		switch c := d.b[j]; {
		case c == '"':
			d.i = j + 1
			if !d.skip(':') {
				return nil, false
			}
			return d.b[start:j], true
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

// str reads a string (built when building, or when always is set).
func (d *fastDecoder) str(always bool) (string, bool) {
	if d.peek() != '"' {
		return "", false
	}
	start := d.i
	plain := true // no escapes, and UTF-8 as it is
	j := start + 1
	for ; j < len(d.b); j++ {
		c := d.b[j]
		if c == '"' {
			break
		}
		if c < 0x20 {
			return "", false
		}
		if c == '\\' {
			plain = false
			j++
			if j >= len(d.b) {
				return "", false
			}
			switch d.b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(d.b) {
					return "", false
				}
				for _, h := range d.b[j+1 : j+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return "", false
					}
				}
				j += 4
			default:
				return "", false
			}
		} else if c >= utf8.RuneSelf && plain {
			// Bytes that are not UTF-8 are replaced, as encoding/json
			// replaces them.
			r, size := utf8.DecodeRune(d.b[j:])
			if r == utf8.RuneError && size == 1 {
				plain = false
			}
			j += size - 1
		}
	}
	if j >= len(d.b) {
		return "", false
	}
	d.i = j + 1
	if !d.build && !always {
		return "", true
	}
	if plain {
		return string(d.b[start+1 : j]), true
	}
	return unquote(d.b[start:d.i])
}

// unquote reads a string token (its quotes included, its escapes checked
// by str) as encoding/json does: escapes decoded, a \u escape of half a
// surrogate pair and bytes that are not UTF-8 replaced by U+FFFD.
func unquote(tok []byte) (string, bool) {
	s := tok[1 : len(tok)-1]
	b := make([]byte, 0, len(s)+2*utf8.UTFMax)
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			i++
			switch s[i] {
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
				r := hex4(s[i+1:])
				i += 5
				if utf16.IsSurrogate(r) {
					if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
						if dec := utf16.DecodeRune(r, hex4(s[i+2:])); dec != unicode.ReplacementChar {
							b = utf8.AppendRune(b, dec)
							i += 6
							continue
						}
					}
					r = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, r)
				continue
			default: // '"', '\\', '/'
				b = append(b, s[i])
			}
			i++
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, unicode.ReplacementChar)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
		}
	}
	return string(b), true
}

// hex4 is the value of four hex digits (checked by str); -1 when they are
// not four.
func hex4(s []byte) rune {
	if len(s) < 4 {
		return -1
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// optStr reads a string or null (the zero string).
func (d *fastDecoder) optStr() (string, bool) {
	if d.null() {
		return "", true
	}
	return d.str(false)
}

// headStr is optStr for a string read even when the rest is only
// checked (the head's).
func (d *fastDecoder) headStr() (string, bool) {
	if d.null() {
		return "", true
	}
	return d.str(true)
}

// number reads a JSON number's text.
func (d *fastDecoder) number() ([]byte, bool) {
	d.space()
	start, j := d.i, d.i
	digits := func() bool {
		k := j
		for j < len(d.b) && d.b[j] >= '0' && d.b[j] <= '9' {
			j++
		}
		return j > k
	}
	if j < len(d.b) && d.b[j] == '-' {
		j++
	}
	if j < len(d.b) && d.b[j] == '0' {
		j++
	} else if !digits() {
		return nil, false
	}
	if j < len(d.b) && d.b[j] == '.' {
		j++
		if !digits() {
			return nil, false
		}
	}
	if j < len(d.b) && (d.b[j] == 'e' || d.b[j] == 'E') {
		j++
		if j < len(d.b) && (d.b[j] == '+' || d.b[j] == '-') {
			j++
		}
		if !digits() {
			return nil, false
		}
	}
	d.i = j
	return d.b[start:j], true
}

// float reads a number, or null (zero).
func (d *fastDecoder) float() (float64, bool) {
	if d.null() {
		return 0, true
	}
	raw, ok := d.number()
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(raw), 64)
	return v, err == nil
}

// int64 reads an integer, or null (zero).
func (d *fastDecoder) int64() (int64, bool) {
	if d.null() {
		return 0, true
	}
	raw, ok := d.number()
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(string(raw), 10, 64)
	return v, err == nil
}

func (d *fastDecoder) int() (int, bool) {
	v, ok := d.int64()
	return int(v), ok && int64(int(v)) == v
}

// boolean reads true, false, or null (false).
func (d *fastDecoder) boolean() (v, ok bool) {
	switch d.peek() {
	case 't':
		return true, d.literal("true")
	case 'f':
		return false, d.literal("false")
	case 'n':
		return false, d.literal("null")
	}
	return false, false
}

// strings reads a list of strings (null: nil; [] is an empty list).
func (d *fastDecoder) strings() ([]string, bool) {
	if d.null() {
		return nil, true
	}
	more, ok := d.begin('[')
	var list []string
	if d.build {
		list = []string{}
	}
	for more {
		s, ok := d.optStr()
		if !ok {
			return nil, false
		}
		if d.build {
			list = append(list, s)
		}
		more, ok = d.next(']')
		if !ok {
			return nil, false
		}
	}
	return list, ok
}

// stringMap reads an object of strings (null: nil). A key given twice
// keeps its last value, as encoding/json does.
func (d *fastDecoder) stringMap() (map[string]string, bool) {
	if d.null() {
		return nil, true
	}
	more, ok := d.begin('{')
	var m map[string]string
	if d.build {
		m = map[string]string{}
	}
	for more {
		k, ok := d.str(false)
		if !ok || !d.skip(':') {
			return nil, false
		}
		v, ok := d.optStr()
		if !ok {
			return nil, false
		}
		if d.build {
			m[k] = v
		}
		if more, ok = d.next('}'); !ok {
			return nil, false
		}
	}
	return m, ok
}

// value reads any JSON value as encoding/json decodes it into an any
// with UseNumber: a number keeps its text (json.Number), as the checks
// made it (a verdict's 187.0 is read back as 187.0, an id beyond 2^53
// with every digit).
func (d *fastDecoder) value() (any, bool) {
	switch c := d.peek(); {
	case c == '{':
		return d.anyMap()
	case c == '[':
		more, ok := d.begin('[')
		var list []any
		if d.build {
			list = []any{}
		}
		for more {
			v, ok := d.value()
			if !ok {
				return nil, false
			}
			if d.build {
				list = append(list, v)
			}
			if more, ok = d.next(']'); !ok {
				return nil, false
			}
		}
		if !d.build {
			return nil, ok
		}
		return list, ok
	case c == '"':
		s, ok := d.str(false)
		if !d.build {
			return nil, ok
		}
		return s, ok
	case c == 't' || c == 'f':
		b, ok := d.boolean()
		if !d.build {
			return nil, ok
		}
		return b, ok
	case c == 'n':
		return nil, d.null()
	}
	raw, ok := d.number()
	if !d.build {
		return nil, ok
	}
	return json.Number(raw), ok
}

// anyMap reads an object of any values (a key given twice keeps its last
// value).
func (d *fastDecoder) anyMap() (any, bool) {
	more, ok := d.begin('{')
	var m map[string]any
	if d.build {
		m = map[string]any{}
	}
	for more {
		k, ok := d.str(false)
		if !ok || !d.skip(':') {
			return nil, false
		}
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		if d.build {
			m[k] = v
		}
		if more, ok = d.next('}'); !ok {
			return nil, false
		}
	}
	if !d.build {
		return nil, ok
	}
	return m, ok
}

// seen notes one of an object's keys (bit): false when it came before.
func seen(keys *uint64, bit uint64) bool {
	if *keys&bit != 0 {
		return false
	}
	*keys |= bit
	return true
}

// record reads a record's object.
func (d *fastDecoder) record(rec *result.CaseRecord, stored *[]storedAttribute) bool {
	more, ok := d.begin('{')
	var keys uint64
	for more {
		key, ok := d.key()
		if !ok {
			return false
		}
		var bit uint64
		switch string(key) {
		case "problem":
			bit = 1 << 0
			rec.Problem, ok = d.optStr()
		case "problem_version":
			bit = 1 << 1
			rec.ProblemVersion, ok = d.int()
		case "checkpoint":
			bit = 1 << 2
			rec.Checkpoint, ok = d.headStr()
		case "version":
			bit = 1 << 3
			rec.Version, ok = d.int()
		case "group":
			bit = 1 << 4
			rec.Group, ok = d.headStr()
		case "group_type":
			bit = 1 << 5
			var s string
			s, ok = d.optStr()
			rec.GroupType = problem.GroupType(s)
		case "id":
			bit = 1 << 6
			rec.ID, ok = d.headStr()
		case "index":
			bit = 1 << 7
			rec.Index, ok = d.int()
		case "original_checkpoint":
			bit = 1 << 8
			rec.OriginalCheckpoint, ok = d.optStr()
		case "original_group":
			bit = 1 << 9
			rec.OriginalGroup, ok = d.optStr()
		case "started_at":
			bit = 1 << 10
			if !d.null() {
				start := d.i
				if _, ok = d.str(false); ok {
					// As encoding/json does: the string as it is written.
					ok = rec.StartedAt.UnmarshalJSON(d.b[start:d.i]) == nil
				}
			}
		case "duration_s":
			bit = 1 << 11
			rec.Duration, ok = d.float()
		case "case":
			bit = 1 << 12
			if !d.null() {
				rec.Case = &result.CaseInfo{}
				ok = d.caseInfo(rec.Case)
			}
		case "result":
			bit = 1 << 13
			ok = d.null() || d.outcome(&rec.Result)
		case "attributes":
			bit = 1 << 14
			if d.attrs {
				*stored, ok = d.attributes()
			} else {
				build := d.build
				d.build = false
				_, ok = d.value()
				d.build = build
			}
		case "score":
			bit = 1 << 15
			rec.Score, ok = d.float()
		case "passed":
			bit = 1 << 16
			rec.Passed, ok = d.boolean()
		case "outcome":
			bit = 1 << 17
			var s string
			s, ok = d.optStr()
			rec.Outcome = result.Outcome(s)
		case "error_kind":
			bit = 1 << 18
			var s string
			s, ok = d.optStr()
			rec.ErrorKind = result.ErrorKind(s)
		case "unscored":
			bit = 1 << 19
			rec.Unscored, ok = d.optStr()
		case "epoch":
			bit = 1 << 20
			rec.Epoch, ok = d.int()
		case "attempt":
			bit = 1 << 21
			rec.Attempt, ok = d.int()
		default:
			return false
		}
		if !ok || !seen(&keys, bit) {
			return false
		}
		if more, ok = d.next('}'); !ok {
			return false
		}
	}
	return ok
}

func (d *fastDecoder) caseInfo(c *result.CaseInfo) bool {
	more, ok := d.begin('{')
	var keys uint64
	for more {
		key, ok := d.key()
		if !ok {
			return false
		}
		var bit uint64
		switch string(key) {
		case "arguments":
			bit = 1 << 0
			c.Arguments, ok = d.strings()
		case "stdin":
			bit = 1 << 1
			if !d.null() {
				var s string
				s, ok = d.str(false)
				c.Stdin = &s
			}
		case "env":
			bit = 1 << 2
			c.Env, ok = d.stringMap()
		case "input_files":
			bit = 1 << 3
			c.InputFiles, ok = d.strings()
		case "timeout_s":
			bit = 1 << 4
			c.TimeoutS, ok = d.float()
		case "reset":
			bit = 1 << 5
			c.Reset, ok = d.boolean()
		case "source":
			bit = 1 << 6
			c.Source, ok = d.optStr()
		case "instruction":
			bit = 1 << 7
			c.Instruction, ok = d.optStr()
		case "category":
			bit = 1 << 8
			c.Category, ok = d.optStr()
		case "tags":
			bit = 1 << 9
			c.Tags, ok = d.strings()
		case "apps":
			bit = 1 << 10
			c.Apps, ok = d.strings()
		default:
			return false
		}
		if !ok || !seen(&keys, bit) {
			return false
		}
		if more, ok = d.next('}'); !ok {
			return false
		}
	}
	return ok
}

func (d *fastDecoder) outcome(o *result.Execution) bool {
	more, ok := d.begin('{')
	var keys uint64
	for more {
		key, ok := d.key()
		if !ok {
			return false
		}
		var bit uint64
		switch string(key) {
		case "command":
			bit = 1 << 0
			o.Command, ok = d.strings()
		case "status_code":
			bit = 1 << 1
			o.StatusCode, ok = d.int()
		case "output":
			bit = 1 << 2
			o.Output, ok = d.optStr()
		case "stderr":
			bit = 1 << 3
			o.Stderr, ok = d.optStr()
		case "output_dropped":
			bit = 1 << 4
			o.OutputDropped, ok = d.int64()
		case "stderr_dropped":
			bit = 1 << 5
			o.StderrDropped, ok = d.int64()
		case "elapsed_s":
			bit = 1 << 6
			o.Elapsed, ok = d.float()
		case "timed_out":
			bit = 1 << 7
			o.TimedOut, ok = d.boolean()
		case "signal":
			bit = 1 << 8
			o.Signal, ok = d.optStr()
		case "files":
			bit = 1 << 9
			if !d.null() {
				if d.peek() != '{' {
					return false
				}
				var m any
				if m, ok = d.anyMap(); ok && d.build {
					o.Files = m.(map[string]any)
				}
			}
		case "headers":
			bit = 1 << 10
			o.Headers, ok = d.stringMap()
		case "artifacts":
			bit = 1 << 11
			o.Artifacts, ok = d.strings()
		case "adapter_error":
			bit = 1 << 12
			o.AdapterError, ok = d.boolean()
		case "error":
			bit = 1 << 13
			o.Error, ok = d.optStr()
		case "plugin_error":
			bit = 1 << 14
			o.PluginError, ok = d.optStr()
		case "oom_killed":
			bit = 1 << 15
			o.OOMKilled, ok = d.boolean()
		case "agent":
			bit = 1 << 16
			o.Agent, ok = d.boolean()
		case "server_startup_s":
			bit = 1 << 17
			o.ServerStartup, ok = d.float()
		case "mock_calls":
			// Rare and nested: the span is scanned and decoded by
			// encoding/json, whose result the fast path must equal.
			bit = 1 << 18
			d.space()
			start := d.i
			build := d.build
			d.build = false
			_, ok = d.value()
			d.build = build
			if ok && build {
				ok = json.Unmarshal(d.b[start:d.i], &o.MockCalls) == nil
			}
		case "mock_calls_dropped":
			bit = 1 << 19
			o.MockCallsDropped, ok = d.int()
		case "mock_error":
			bit = 1 << 20
			o.MockError, ok = d.optStr()
		default:
			return false
		}
		if !ok || !seen(&keys, bit) {
			return false
		}
		if more, ok = d.next('}'); !ok {
			return false
		}
	}
	return ok
}

func (d *fastDecoder) attributes() ([]storedAttribute, bool) {
	if d.null() {
		return nil, true
	}
	more, ok := d.begin('[')
	var list []storedAttribute
	if d.build {
		list = []storedAttribute{}
	}
	for more {
		var a storedAttribute
		// A null element is the zero attribute.
		if !d.null() && !d.attribute(&a) {
			return nil, false
		}
		if d.build {
			list = append(list, a)
		}
		if more, ok = d.next(']'); !ok {
			return nil, false
		}
	}
	return list, ok
}

func (d *fastDecoder) attribute(a *storedAttribute) bool {
	more, ok := d.begin('{')
	var keys uint64
	for more {
		key, ok := d.key()
		if !ok {
			return false
		}
		var bit uint64
		switch string(key) {
		case "attribute":
			bit = 1 << 0
			a.Attribute, ok = d.optStr()
		case "actual":
			bit = 1 << 1
			a.Actual, ok = d.value()
		case "expected":
			bit = 1 << 2
			a.Expected, ok = d.value()
		case "diff":
			bit = 1 << 3
			if !d.null() {
				a.Diff = &verify.Diff{}
				ok = d.diff(a.Diff)
			}
		case "is_correct":
			bit = 1 << 4
			a.IsCorrect, ok = d.boolean()
		case "weight":
			bit = 1 << 5
			a.Weight, ok = d.float()
		case "check":
			bit = 1 << 6
			a.Check, ok = d.optStr()
		case "actual_from":
			bit = 1 << 7
			// Read in every mode: one that names no field makes the line
			// corrupt, which encoding/json's path says.
			a.ActualFrom, ok = d.headStr()
			if a.ActualFrom != "" && a.ActualFrom != fromOutput && a.ActualFrom != fromStderr {
				return false
			}
		default:
			return false
		}
		if !ok || !seen(&keys, bit) {
			return false
		}
		if more, ok = d.next('}'); !ok {
			return false
		}
	}
	return ok
}

func (d *fastDecoder) diff(df *verify.Diff) bool {
	more, ok := d.begin('{')
	var keys uint64
	for more {
		key, ok := d.key()
		if !ok {
			return false
		}
		var bit uint64
		switch string(key) {
		case "summary":
			bit = 1 << 0
			df.Summary, ok = d.optStr()
		case "entries":
			bit = 1 << 1
			df.Entries, ok = d.diffEntries()
		case "unified":
			bit = 1 << 2
			df.Unified, ok = d.optStr()
		case "truncated":
			bit = 1 << 3
			df.Truncated, ok = d.boolean()
		default:
			return false
		}
		if !ok || !seen(&keys, bit) {
			return false
		}
		if more, ok = d.next('}'); !ok {
			return false
		}
	}
	return ok
}

func (d *fastDecoder) diffEntries() ([]verify.DiffEntry, bool) {
	if d.null() {
		return nil, true
	}
	more, ok := d.begin('[')
	var list []verify.DiffEntry
	if d.build {
		list = []verify.DiffEntry{}
	}
	for more {
		var e verify.DiffEntry
		if !d.null() && !d.diffEntry(&e) {
			return nil, false
		}
		if d.build {
			list = append(list, e)
		}
		if more, ok = d.next(']'); !ok {
			return nil, false
		}
	}
	return list, ok
}

func (d *fastDecoder) diffEntry(e *verify.DiffEntry) bool {
	more, ok := d.begin('{')
	var keys uint64
	for more {
		key, ok := d.key()
		if !ok {
			return false
		}
		var bit uint64
		switch string(key) {
		case "path":
			bit = 1 << 0
			e.Path, ok = d.optStr()
		case "op":
			bit = 1 << 1
			e.Op, ok = d.optStr()
		case "expected":
			bit = 1 << 2
			e.Expected, ok = d.value()
		case "actual":
			bit = 1 << 3
			e.Actual, ok = d.value()
		default:
			return false
		}
		if !ok || !seen(&keys, bit) {
			return false
		}
		if more, ok = d.next('}'); !ok {
			return false
		}
	}
	return ok
}
