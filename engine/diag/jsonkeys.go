package diag

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// JSONProblem is what is wrong with a JSON document that encoding/json
// would decode anyway, or report without a place: a key given twice in
// one object (json keeps the last, silently), or a syntax error. Line is
// where (1-based), Path the key path of the object ($.cases[2]).
type JSONProblem struct {
	Line int
	Path string
	Msg  string
}

func (p *JSONProblem) Error() string {
	if p.Path == "" {
		return fmt.Sprintf("line %d: %s", p.Line, p.Msg)
	}
	return fmt.Sprintf("line %d: %s: %s", p.Line, p.Path, p.Msg)
}

// Add records p in errs against file, its path as a key path.
func (p *JSONProblem) Add(errs *List, file string) {
	key := strings.TrimPrefix(strings.TrimPrefix(p.Path, "$"), ".")
	errs.Add(file, key, p.Line, "%s", p.Msg)
}

// CheckJSON reads data as one JSON document and returns its first
// repeated key or syntax error, nil when it has neither. A document
// handed over by others must not change meaning by which of two values
// a decoder keeps.
func CheckJSON(data []byte) *JSONProblem {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		object bool
		path   string
		keys   map[string]bool
		key    string // the object's current key; "" before the first
		index  int    // an array's next index
		want   bool   // an object expects a key next
	}
	var stack []*frame
	child := func() string {
		if len(stack) == 0 {
			return "$"
		}
		f := stack[len(stack)-1]
		if f.object {
			return f.path + "." + f.key
		}
		return f.path + "[" + strconv.Itoa(f.index) + "]"
	}
	after := func() {
		if len(stack) == 0 {
			return
		}
		f := stack[len(stack)-1]
		if f.object {
			f.want = true
		} else {
			f.index++
		}
	}
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) && len(stack) == 0 {
			return nil
		}
		if errors.Is(err, io.EOF) {
			return &JSONProblem{Line: lineAt(data, int64(len(data))), Msg: "not JSON: the document ends before its value does"}
		}
		if err != nil {
			// The error is in the token after the last one read.
			return &JSONProblem{Line: lineAt(data, keyOffset(data, start)), Msg: "not JSON: " + err.Error()}
		}
		if len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].want {
			f := stack[len(stack)-1]
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				after()
				continue
			}
			k, _ := tok.(string)
			if f.keys[k] {
				return &JSONProblem{Line: lineAt(data, keyOffset(data, start)), Path: f.path, Msg: fmt.Sprintf("key %q given twice", k)}
			}
			f.keys[k], f.key, f.want = true, k, false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, path: child(), keys: map[string]bool{}, want: true})
		case json.Delim('['):
			stack = append(stack, &frame{path: child()})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			after()
		default:
			after()
		}
	}
}

// keyOffset skips the separator and space before a key that starts at
// or after off.
func keyOffset(data []byte, off int64) int64 {
	for off < int64(len(data)) && bytes.IndexByte([]byte(", \t\r\n"), data[off]) >= 0 {
		off++
	}
	return off
}

// lineAt is the 1-based line of byte offset off.
func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}
