package host

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/abi/jsonvalue"
)

// scanVerifyOutput decodes a verify output straight from its text. It is
// the fast path for the host's busiest envelope: building a tree of the
// whole verdict and running the JSON Schema validator over it was most of
// the host's own work on a verify call, and a passing verdict carries the
// whole output twice (as actual and expected).
//
// An actual or expected value that is an object or a list is kept as its
// text (a json.RawMessage, checked to be JSON with jsonvalue.ValueEnd),
// as the built-in json check keeps a document it settles by its text
// (engine/verify's Env.RawJSON): the journal encodes it again and every report
// decodes it from there, so all see the same value. Scalars are decoded.
// A diff, which only failing verdicts carry and which is small, is decoded
// as the full path decodes it.
//
// It accepts only what the verify_output schema accepts and gives what
// the full path gives for it (FuzzScanVerifyOutput holds it to that). For
// anything else — an envelope the schema refuses, a repeated key, a weight
// that does not fit a float64 — it reports ok=false and the caller takes
// the full path, which also words the fault.
func scanVerifyOutput(out []byte) (abi.VerifyOutput, bool) {
	return scanVerifyOutputText(string(out))
}

// scanVerifyOutputText is scanVerifyOutput on the output's text.
func scanVerifyOutputText(s string) (abi.VerifyOutput, bool) {
	vo, end, ok := scanVerifyOutputIn(&verdictScanner{s: s, i: jsonvalue.SkipSpace(s, 0)})
	if !ok || jsonvalue.SkipSpace(s, end) != len(s) {
		return abi.VerifyOutput{}, false
	}
	return vo, true
}

// scanVerifyOutputOwned is scanVerifyOutputText for a verdict that owns
// the bytes b, which nothing writes to after this: it keeps parts of them.
func scanVerifyOutputOwned(b []byte) (abi.VerifyOutput, bool) {
	s := unsafe.String(unsafe.SliceData(b), len(b))
	vo, end, ok := scanVerifyOutputIn(&verdictScanner{s: s, i: jsonvalue.SkipSpace(s, 0), owned: true})
	if !ok || jsonvalue.SkipSpace(s, end) != len(s) {
		return abi.VerifyOutput{}, false
	}
	return vo, true
}

// scanVerifyOutputDetached is scanVerifyOutputText for a verdict that
// must keep no part of s (a cached entry's bytes, seen as a string).
func scanVerifyOutputDetached(s string) (abi.VerifyOutput, bool) {
	vo, end, ok := scanVerifyOutputIn(&verdictScanner{s: s, i: jsonvalue.SkipSpace(s, 0), detach: true})
	if !ok || jsonvalue.SkipSpace(s, end) != len(s) {
		return abi.VerifyOutput{}, false
	}
	return vo, true
}

// scanVerifyOutputAt decodes the verify output whose object starts at
// s[at] (a batch output holds many) and returns the index just past its
// closing brace. What it gives for the object's text is what
// scanVerifyOutput gives for that text alone; the verdict keeps no part
// of s, which holds the other calls' outputs too.
func scanVerifyOutputAt(s string, at int) (abi.VerifyOutput, int, bool) {
	return scanVerifyOutputIn(&verdictScanner{s: s, i: at, detach: true})
}

func scanVerifyOutputIn(sc *verdictScanner) (abi.VerifyOutput, int, bool) {
	var vo abi.VerifyOutput
	var haveAttrs, haveError, haveUnscored bool
	ok := sc.object(func(key string) bool {
		switch key {
		case "attributes":
			if haveAttrs {
				return false // a repeated key: the full path keeps the last
			}
			haveAttrs = true
			if sc.literal("null") {
				vo.Attributes = []abi.Attribute{}
				return true
			}
			// Room for two, what most verdicts hold (exit status and
			// output): growing from none took two allocations for them.
			vo.Attributes = make([]abi.Attribute, 0, 2)
			return sc.array(func() bool {
				a, ok := sc.attribute()
				vo.Attributes = append(vo.Attributes, a)
				return ok
			})
		case "error":
			if haveError {
				return false
			}
			haveError = true
			var ok bool
			vo.Error, ok = sc.str()
			vo.Error = sc.keep(vo.Error)
			return ok
		case "unscored":
			if haveUnscored {
				return false
			}
			haveUnscored = true
			var ok bool
			vo.Unscored, ok = sc.str()
			vo.Unscored = sc.keep(vo.Unscored)
			return ok && vo.Unscored != "" // the schema asks for a reason
		default:
			_, ok := sc.raw()
			return ok
		}
	})
	if !ok || !(haveAttrs || haveError || haveUnscored) {
		return abi.VerifyOutput{}, sc.i, false
	}
	if !haveAttrs {
		vo.Attributes = []abi.Attribute{}
	}
	return vo, sc.i, true
}

// attribute decodes one attribute verdict.
func (sc *verdictScanner) attribute() (abi.Attribute, bool) {
	var a abi.Attribute
	const (
		name = 1 << iota
		actual
		expected
		diff
		correct
		weight
	)
	seen := 0
	once := func(bit int) bool {
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		return true
	}
	ok := sc.object(func(key string) bool {
		switch key {
		case "attribute":
			var ok bool
			a.Attribute, ok = sc.str()
			a.Attribute = sc.keep(a.Attribute)
			return once(name) && ok && a.Attribute != ""
		case "actual":
			v, ok := sc.raw()
			if ok {
				a.Actual = sc.value(v)
			}
			return once(actual) && ok
		case "expected":
			v, ok := sc.raw()
			if ok {
				a.Expected = sc.value(v)
			}
			return once(expected) && ok
		case "diff":
			if !once(diff) {
				return false
			}
			start := sc.i
			if d, ok := sc.diff(); ok {
				a.Diff = d
				return true
			}
			sc.i = start // the full path's, below
			v, ok := sc.raw()
			if !ok {
				return false
			}
			a.Diff, ok = diffOfText(sc.keep(v))
			return ok
		case "is_correct":
			switch {
			case sc.literal("true"):
				a.IsCorrect = true
			case sc.literal("false"):
			default:
				return false
			}
			return once(correct)
		case "weight":
			v, ok := sc.raw()
			if !once(weight) || !ok || !(v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
				return false
			}
			w, err := strconv.ParseFloat(v, 64)
			a.Weight = w
			return err == nil && w >= 0
		default:
			_, ok := sc.raw()
			return ok
		}
	})
	return a, ok && seen&(name|correct|weight) == name|correct|weight
}

// diff decodes a diff, or null, in place: what diffOfText gives for its
// text, for the diffs verifiers write (the schema's members, each once,
// and entries whose expected and actual values are strings, booleans or
// null). It refuses anything else — a number or a container in an entry,
// a member of another name, a repeated one — which the caller then hands
// to diffOfText, so the two can never disagree on what they both accept.
// A failing verdict's diff carries a line of the output or two; parsing
// it into a tree to check and copy it was half of what decoding a cached
// failing verdict cost.
func (sc *verdictScanner) diff() (*abi.Diff, bool) {
	if sc.literal("null") {
		return nil, true
	}
	d := &abi.Diff{}
	seen, ok := sc.fields(diffKeys, func(i int) bool {
		var ok bool
		switch i {
		case 0:
			d.Summary, ok = sc.strValue()
		case 1:
			d.Unified, ok = sc.strValue()
		case 2:
			d.Truncated, ok = sc.boolValue()
		default:
			ok = sc.array(func() bool {
				e, ok := sc.diffEntry()
				d.Entries = append(d.Entries, e)
				return ok
			})
		}
		return ok
	})
	return d, ok && seen&1 != 0 // a summary is required
}

// diffEntry decodes one entry of a diff (diff).
func (sc *verdictScanner) diffEntry() (abi.DiffEntry, bool) {
	var e abi.DiffEntry
	seen, ok := sc.fields(diffEntryKeys, func(i int) bool {
		var ok bool
		switch i {
		case 0:
			e.Path, ok = sc.strValue()
		case 1:
			var op string
			op, ok = sc.str()
			// The schema's names, as constants: nothing of s is kept.
			switch op {
			case "changed":
				e.Op = "changed"
			case "missing":
				e.Op = "missing"
			case "extra":
				e.Op = "extra"
			case "type":
				e.Op = "type"
			case "mismatch":
				e.Op = "mismatch"
			default:
				return false
			}
		case 2:
			e.Expected, ok = sc.scalar()
		default:
			e.Actual, ok = sc.scalar()
		}
		return ok
	})
	return e, ok && seen&3 == 3 // a path and an op are required
}

// The members a diff and a diff entry may have, in the order of the bits
// fields reports them by.
var (
	diffKeys      = []string{"summary", "unified", "truncated", "entries"}
	diffEntryKeys = []string{"path", "op", "expected", "actual"}
)

// fields consumes an object whose members are among keys, each at most
// once, calling member with the index of each in keys; a member of
// another name, or a repeated one, refuses the object. seen has bit i set
// for each keys[i] present.
func (sc *verdictScanner) fields(keys []string, member func(i int) bool) (seen int, ok bool) {
	ok = sc.object(func(key string) bool {
		i := slices.Index(keys, key)
		if i < 0 || seen&(1<<i) != 0 {
			return false
		}
		seen |= 1 << i
		return member(i)
	})
	return seen, ok
}

// strValue consumes a JSON string and returns its value, kept (a part
// of s only when it has no escapes and the scanner may keep parts of s).
func (sc *verdictScanner) strValue() (string, bool) {
	v, ok := sc.raw()
	if !ok || v[0] != '"' {
		return "", false
	}
	if !strings.Contains(v, `\`) {
		return sc.keep(v[1 : len(v)-1]), true // JSONValueEnd checked its UTF-8
	}
	return unquoteLit(v)
}

// boolValue consumes true or false.
func (sc *verdictScanner) boolValue() (bool, bool) {
	switch {
	case sc.literal("true"):
		return true, true
	case sc.literal("false"):
		return false, true
	}
	return false, false
}

// scalar consumes a string, true, false or null and returns its value;
// anything else is refused (diff).
func (sc *verdictScanner) scalar() (any, bool) {
	sc.space()
	if sc.i < len(sc.s) && sc.s[sc.i] == '"' {
		return sc.strValue()
	}
	if sc.literal("null") {
		return nil, true
	}
	return sc.boolValue()
}

// diffOfText decodes a diff (or null) and checks it against the schema's
// diff by hand.
func diffOfText(text string) (*abi.Diff, bool) {
	doc, err := jsonvalue.Parse(text)
	if err != nil {
		return nil, false
	}
	if doc == nil {
		return nil, true
	}
	d, ok := doc.(map[string]any)
	if !ok || !isType[string](d, "summary", true) || !isType[string](d, "unified", false) ||
		!isType[bool](d, "truncated", false) || !isType[[]any](d, "entries", false) {
		return nil, false
	}
	entries, _ := d["entries"].([]any)
	for _, item := range entries {
		e, ok := item.(map[string]any)
		if !ok || !isType[string](e, "path", true) {
			return nil, false
		}
		switch e["op"] {
		case "changed", "missing", "extra", "type", "mismatch":
		default:
			return nil, false
		}
	}
	return diffOf(d), true
}

// isType reports whether m[key] has type T, or is absent and not required.
func isType[T any](m map[string]any, key string, required bool) bool {
	v, ok := m[key]
	if !ok {
		return !required
	}
	_, ok = v.(T)
	return ok
}

// verdictScanner walks a JSON text whose shape the caller knows.
type verdictScanner struct {
	s string
	i int
	// last is the text of the last object, list or string value decoded
	// (value), and lastVal what it decoded to: a passing verdict's
	// expected value is usually the same text as its actual one, and is
	// neither checked nor decoded again (raw). For a cached verdict of
	// outputs that end in a newline, that was a third of its decoding.
	last    string
	lastVal any
	// detach says the verdict must not keep parts of s (kept strings are
	// copied).
	detach bool
	// owned says s is the text of a byte slice the verdict owns, which
	// nothing else reads or writes: an object or list value is kept as
	// part of it rather than copied. (Only such a value is: a string the
	// verdict keeps never lies inside one, so a caller writing to a
	// json.RawMessage cannot change a string.)
	owned bool
}

// keep is a string of s to keep in the verdict.
func (sc *verdictScanner) keep(v string) string {
	if sc.detach {
		return strings.Clone(v)
	}
	return v
}

func (sc *verdictScanner) space() {
	for sc.i < len(sc.s) {
		switch sc.s[sc.i] {
		case ' ', '\t', '\n', '\r':
			sc.i++
		default:
			return
		}
	}
}

// next skips space and consumes c if it comes next.
func (sc *verdictScanner) next(c byte) bool {
	sc.space()
	if sc.i < len(sc.s) && sc.s[sc.i] == c {
		sc.i++
		return true
	}
	return false
}

// literal consumes true, false or null if it comes next.
func (sc *verdictScanner) literal(word string) bool {
	sc.space()
	if strings.HasPrefix(sc.s[sc.i:], word) {
		if end := sc.i + len(word); end == len(sc.s) || !isWordByte(sc.s[end]) {
			sc.i = end
			return true
		}
	}
	return false
}

func isWordByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// raw consumes one JSON value and returns its text.
func (sc *verdictScanner) raw() (string, bool) {
	sc.space()
	if last := sc.last; len(last) > 0 && strings.HasPrefix(sc.s[sc.i:], last) {
		// The text of the object, list or string just decoded comes
		// again: such a text ends at its own closing bracket or quote,
		// so this is the same value, already checked. (Numbers and
		// literals are never kept: "1" is a prefix of "12".)
		sc.i += len(last)
		return last, true
	}
	end, ok := jsonvalue.ValueEnd(sc.s, sc.i)
	if !ok {
		return "", false
	}
	v := sc.s[sc.i:end]
	sc.i = end
	return v, true
}

// str consumes a JSON string and returns its value.
func (sc *verdictScanner) str() (string, bool) {
	v, ok := sc.raw()
	if !ok || v[0] != '"' {
		return "", false
	}
	if !strings.Contains(v, `\`) {
		return v[1 : len(v)-1], true // JSONValueEnd checked its UTF-8
	}
	return unquoteLit(v)
}

// value gives a verdict value as the full path's decoding would, except
// that an object or list is kept as its text.
func (sc *verdictScanner) value(v string) any {
	if v == sc.last {
		return sc.lastVal // the same text as the value before (raw)
	}
	switch v[0] {
	case '{', '[':
		if sc.owned {
			b := unsafe.Slice(unsafe.StringData(v), len(v))
			sc.last, sc.lastVal = v, json.RawMessage(b[:len(v):len(v)])
		} else {
			sc.last, sc.lastVal = v, json.RawMessage(v)
		}
		return sc.lastVal
	case '"':
		var decoded string
		if !strings.Contains(v, `\`) {
			decoded = sc.keep(v[1 : len(v)-1]) // JSONValueEnd checked its UTF-8
		} else {
			decoded, _ = unquoteLit(v)
		}
		sc.last, sc.lastVal = v, decoded
		return sc.lastVal
	case 't':
		return true
	case 'f':
		return false
	case 'n':
		return nil
	default:
		return json.Number(sc.keep(v))
	}
}

// object consumes an object, calling member for each key with the scanner
// at the member's value.
func (sc *verdictScanner) object(member func(key string) bool) bool {
	if !sc.next('{') {
		return false
	}
	if sc.next('}') {
		return true
	}
	for {
		key, ok := sc.str()
		if !ok || !sc.next(':') || !member(key) {
			return false
		}
		if sc.next('}') {
			return true
		}
		if !sc.next(',') {
			return false
		}
	}
}

// array consumes an array, calling item with the scanner at each element.
func (sc *verdictScanner) array(item func() bool) bool {
	if !sc.next('[') {
		return false
	}
	if sc.next(']') {
		return true
	}
	for {
		if !item() {
			return false
		}
		if sc.next(']') {
			return true
		}
		if !sc.next(',') {
			return false
		}
	}
}
