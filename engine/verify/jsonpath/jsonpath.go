// Package jsonpath parses and applies the subset of JSONPath (RFC 9535)
// that checks use to look at one part of a JSON document: the root `$`,
// member names (`.name`, `['any key']`, `["any key"]`), array indexes
// (`[2]`, `[-1]` for the last element) and wildcards (`[*]`, `.*`) that
// select every element of an array or every member of an object.
// Recursive descent, filters, slices and unions are not part of it, and a
// path that uses them is refused with a message saying so.
//
// Selecting reports every place the path leads to, found or not: a path
// without wildcards leads to exactly one place, and a missing member on
// the way is reported there ("$.a.b", with why it is missing) rather than
// dropped, so a check can say what it did not find.
package jsonpath

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind tells what a segment selects.
type Kind uint8

const (
	// Member selects the member of an object with the segment's Key.
	Member Kind = iota
	// Index selects the element of an array at Index (from the end when
	// negative: -1 is the last element).
	Index
	// Wildcard selects every element of an array or member of an object.
	Wildcard
)

// Segment is one step of a path.
type Segment struct {
	Kind  Kind
	Key   string
	Index int
}

// Path is a parsed path.
type Path struct {
	root string
	segs []Segment
}

// Syntax describes the accepted forms, for error messages.
const Syntax = "$ followed by .name, ['name'], [index], [-index], [*] or .*"

// maxIndex bounds an index so that it fits an int everywhere (a Wasm
// guest included) with room to negate it.
const maxIndex = 1<<31 - 1

// Error is a path that cannot be parsed: the text, the byte offset where
// reading stopped and why.
type Error struct {
	Path   string
	Offset int
	Msg    string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%q at character %d: %s", e.Path, e.Offset+1, e.Msg)
}

// Parse parses a path that starts with `$`.
func Parse(s string) (Path, error) { return ParseRooted(s, "$") }

// ParseRooted parses a path that starts with root instead of `$` (the
// name of what it is applied to, such as `expected`).
func ParseRooted(s, root string) (Path, error) {
	p := Path{root: root}
	fail := func(at int, format string, args ...any) (Path, error) {
		return Path{}, &Error{Path: s, Offset: at, Msg: fmt.Sprintf(format, args...)}
	}
	if !strings.HasPrefix(s, root) {
		if s == "" {
			return fail(0, "empty path (a path is %s)", syntaxFor(root))
		}
		hint := ""
		switch {
		case s[0] == '.' || s[0] == '[':
			hint = fmt.Sprintf("; did you mean %s%s?", root, s)
		case isNameByte(s[0]):
			hint = fmt.Sprintf("; did you mean %s.%s?", root, s)
		}
		return fail(0, "a path starts with %s (a path is %s)%s", root, syntaxFor(root), hint)
	}
	if !utf8.ValidString(s) {
		at := 0
		for at < len(s) {
			r, size := utf8.DecodeRuneInString(s[at:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			at += size
		}
		return fail(at, "invalid UTF-8")
	}
	i := len(root)
	for i < len(s) {
		switch s[i] {
		case '.':
			i++
			if i < len(s) && s[i] == '.' {
				return fail(i-1, "recursive descent (..) is not supported (a path is %s)", syntaxFor(root))
			}
			if i < len(s) && s[i] == '*' {
				p.segs = append(p.segs, Segment{Kind: Wildcard})
				i++
				continue
			}
			start := i
			for i < len(s) && isNameByte(s[i]) {
				i++
			}
			if i == start {
				if i == len(s) {
					return fail(i, "a member name must follow the dot")
				}
				return fail(i, "%q cannot start a member name after a dot; write other names as ['name']", s[i])
			}
			p.segs = append(p.segs, Segment{Kind: Member, Key: s[start:i]})
		case '[':
			seg, next, err := parseBracket(s, i)
			if err != nil {
				return Path{}, err
			}
			p.segs = append(p.segs, seg)
			i = next
		default:
			return fail(i, "unexpected %q (a path is %s)", s[i], syntaxFor(root))
		}
	}
	return p, nil
}

func syntaxFor(root string) string {
	if root == "$" {
		return Syntax
	}
	return root + " followed by .name, ['name'] or [index]"
}

// isNameByte reports whether c may be part of a member name written after
// a dot: ASCII letters, digits, _ and -, and any non-ASCII character.
func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c >= utf8.RuneSelf
}

// parseBracket parses the bracketed segment at s[open] == '['.
func parseBracket(s string, open int) (Segment, int, error) {
	fail := func(at int, format string, args ...any) (Segment, int, error) {
		return Segment{}, 0, &Error{Path: s, Offset: at, Msg: fmt.Sprintf(format, args...)}
	}
	i := skipSpace(s, open+1)
	if i == len(s) {
		return fail(open, "unclosed [")
	}
	var seg Segment
	switch c := s[i]; {
	case c == '*':
		seg.Kind = Wildcard
		i++
	case c == '\'' || c == '"':
		key, next, err := parseQuoted(s, i)
		if err != nil {
			return Segment{}, 0, err
		}
		seg = Segment{Kind: Member, Key: key}
		i = next
	case c == '-' || c >= '0' && c <= '9':
		start := i
		if c == '-' {
			i++
		}
		digits := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == digits {
			return fail(start, "expected an index after -")
		}
		n, err := strconv.Atoi(s[digits:i])
		if err != nil || n > maxIndex {
			return fail(start, "index %s is too large", s[start:i])
		}
		if c == '-' {
			if n == 0 {
				return fail(start, "index -0 is not an index (the last element is -1)")
			}
			n = -n
		}
		seg = Segment{Kind: Index, Index: n}
	case c == '?':
		return fail(i, "filters ([?...]) are not supported (a path is %s)", Syntax)
	case c == ':':
		return fail(i, "slices ([a:b]) are not supported (a path is %s)", Syntax)
	default:
		return fail(i, "unexpected %q in brackets (expected ['name'], [index] or [*])", c)
	}
	i = skipSpace(s, i)
	if i == len(s) {
		return fail(open, "unclosed [")
	}
	switch s[i] {
	case ']':
		return seg, i + 1, nil
	case ':':
		return fail(i, "slices ([a:b]) are not supported (a path is %s)", Syntax)
	case ',':
		return fail(i, "unions ([a,b]) are not supported; use one check per value, or [*]")
	}
	return fail(i, "unexpected %q where ] closes the brackets", s[i])
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// parseQuoted reads a quoted member name at s[i] (' or "): the other
// quote stands for itself, and backslash escapes are JSON's (\\, \/, \b,
// \f, \n, \r, \t, \uXXXX) plus \' and \".
func parseQuoted(s string, i int) (string, int, error) {
	quote := s[i]
	start := i
	i++
	var b strings.Builder
	for {
		if i >= len(s) {
			return "", 0, &Error{Path: s, Offset: start, Msg: "unterminated quoted name"}
		}
		c := s[i]
		switch {
		case c == quote:
			return b.String(), i + 1, nil
		case c < 0x20:
			return "", 0, &Error{Path: s, Offset: i, Msg: "control character in a quoted name (write it escaped, e.g. \\n)"}
		case c != '\\':
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return "", 0, &Error{Path: s, Offset: i, Msg: "unterminated escape"}
		}
		e := s[i+1]
		i += 2
		switch e {
		case '\\', '/', '\'', '"':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, next, ok := parseUnicode(s, i)
			if !ok {
				return "", 0, &Error{Path: s, Offset: i - 2, Msg: "invalid \\u escape (expected \\u and four hex digits)"}
			}
			b.WriteRune(r)
			i = next
		default:
			return "", 0, &Error{Path: s, Offset: i - 2, Msg: fmt.Sprintf("unknown escape \\%c", e)}
		}
	}
}

// parseUnicode reads the four hex digits after \u at s[i], and a second
// \uXXXX when the first is a high surrogate.
func parseUnicode(s string, i int) (rune, int, bool) {
	hex := func(at int) (rune, bool) {
		if at+4 > len(s) {
			return 0, false
		}
		n, err := strconv.ParseUint(s[at:at+4], 16, 32)
		return rune(n), err == nil
	}
	r, ok := hex(i)
	if !ok {
		return 0, 0, false
	}
	i += 4
	if utf16.IsSurrogate(r) {
		if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
			if r2, ok := hex(i + 2); ok {
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					return dec, i + 6, true
				}
			}
		}
		return utf8.RuneError, i, true
	}
	return r, i, true
}

// Segments returns the path's steps.
func (p Path) Segments() []Segment { return p.segs }

// HasWildcard reports whether the path can select more than one value.
func (p Path) HasWildcard() bool {
	for _, s := range p.segs {
		if s.Kind == Wildcard {
			return true
		}
	}
	return false
}

// String writes the path in canonical form: `.name` for identifiers,
// `["name"]` (JSON-quoted) for other names, `[i]` and `[*]`. Paths in
// diffs are written the same way.
func (p Path) String() string {
	root := p.root
	if root == "" {
		root = "$"
	}
	return appendSegments(root, p.segs)
}

func appendSegments(prefix string, segs []Segment) string {
	var b strings.Builder
	b.WriteString(prefix)
	for _, s := range segs {
		switch s.Kind {
		case Member:
			b.WriteString(Child("", s.Key))
		case Index:
			b.WriteString("[" + strconv.Itoa(s.Index) + "]")
		case Wildcard:
			b.WriteString("[*]")
		}
	}
	return b.String()
}

// Child extends a path with a member name, the way diffs write it:
// `.name` for an identifier, `["name"]` otherwise.
func Child(path, key string) string {
	if isIdentifier(key) {
		return path + "." + key
	}
	q, _ := json.Marshal(key)
	return path + "[" + string(q) + "]"
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// Location is one place a path leads to in a document. Path is where,
// with each wildcard replaced by the member or index it stood for (other
// steps as written, so a negative index stays negative). When Found is
// false, Reason says why nothing is there ("$.a is a number").
type Location struct {
	Path   string
	Value  any
	Found  bool
	Reason string
}

// Options tune Select.
type Options struct {
	// ParseText reads a string as a JSON document when the path goes on
	// into it (an expected file's content, a document written as text). A
	// string that is not JSON then has nothing inside.
	ParseText func(string) (any, error)
}

// Select applies the path to a decoded document (objects as
// map[string]any, arrays as []any) and returns every place it leads to,
// in document order (object members by sorted name). A path without
// wildcards returns exactly one location; a wildcard over an empty array
// or object returns none from there.
func (p Path) Select(doc any, opts Options) []Location {
	root := p.root
	if root == "" {
		root = "$"
	}
	var out []Location
	p.walk(root, doc, 0, opts, &out)
	return out
}

func (p Path) walk(at string, v any, i int, opts Options, out *[]Location) {
	for ; i < len(p.segs); i++ {
		if s, ok := v.(string); ok && opts.ParseText != nil {
			parsed, err := opts.ParseText(s)
			if err != nil {
				*out = append(*out, Location{Path: appendSegments(at, p.segs[i:]), Reason: at + " is text that is not JSON"})
				return
			}
			v = parsed
		}
		seg := p.segs[i]
		switch seg.Kind {
		case Member:
			obj, ok := v.(map[string]any)
			if !ok {
				*out = append(*out, Location{Path: appendSegments(at, p.segs[i:]), Reason: at + " is " + describe(v) + ", not an object"})
				return
			}
			child, ok := obj[seg.Key]
			if !ok {
				*out = append(*out, Location{Path: appendSegments(at, p.segs[i:]), Reason: at + " has no member " + strconv.Quote(seg.Key)})
				return
			}
			at, v = Child(at, seg.Key), child
		case Index:
			arr, ok := v.([]any)
			if !ok {
				*out = append(*out, Location{Path: appendSegments(at, p.segs[i:]), Reason: at + " is " + describe(v) + ", not an array"})
				return
			}
			n := seg.Index
			if n < 0 {
				n += len(arr)
			}
			if n < 0 || n >= len(arr) {
				*out = append(*out, Location{Path: appendSegments(at, p.segs[i:]), Reason: fmt.Sprintf("%s has %d element%s", at, len(arr), plural(len(arr)))})
				return
			}
			at, v = at+"["+strconv.Itoa(seg.Index)+"]", arr[n]
		case Wildcard:
			switch c := v.(type) {
			case []any:
				for k, e := range c {
					p.walk(at+"["+strconv.Itoa(k)+"]", e, i+1, opts, out)
				}
			case map[string]any:
				for _, k := range sortedKeys(c) {
					p.walk(Child(at, k), c[k], i+1, opts, out)
				}
			default:
				*out = append(*out, Location{Path: appendSegments(at, p.segs[i:]), Reason: at + " is " + describe(v) + ", not an array or object"})
			}
			return
		}
	}
	*out = append(*out, Location{Path: at, Value: v, Found: true})
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// describe names a value's JSON type with an article.
func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	case []byte:
		return "binary data"
	}
	return "a number"
}
