package journal

import (
	"bytes"
	"encoding/json"

	"github.com/wasmeval/wasmeval/engine/result"
)

// Head is what names a record's case: its checkpoint, group and id, and
// which epoch and attempt of the case the record is (1 when the record
// does not say). A reader that looks for the records of one group reads
// the heads of the others' lines and passes over them, without decoding
// them whole.
type Head struct {
	Checkpoint, Group, ID string
	Epoch, Attempt        int
}

// Head reads the head of a record from its line, as read by ReadLine at
// offset. A record starts with it (problem, problem_version, checkpoint,
// version, group, group_type, id: the journal writes its fields in that
// order; then epoch and attempt, when the record has them), so only the
// start of the line is read, and the rest of it is
// not checked; a line laid out otherwise (an object or a list before
// them, an escaped key, a key given twice) is decoded whole.
func (r *Reader) Head(line []byte, offset int64) (Head, error) {
	if h, ok := QuickHead(line); ok {
		return h, nil
	}
	rec, err := r.Decode(line, offset, false)
	if err != nil {
		return Head{}, err
	}
	return headOf(rec), nil
}

func headOf(r *result.CaseRecord) Head {
	return Head{Checkpoint: r.Checkpoint, Group: r.Group, ID: r.ID, Epoch: max(r.Epoch, 1), Attempt: max(r.Attempt, 1)}
}

// QuickHead is the head of a record line when it can be read from the
// line's start alone (see Reader.Head); ok is false when it cannot.
func QuickHead(line []byte) (h Head, ok bool) { return scanHead(line) }

// scanHead reads the head from the record's first keys. ok is false when
// it cannot tell: the line is then decoded whole.
func scanHead(line []byte) (h Head, ok bool) {
	s := headScanner{b: line}
	if !s.skip('{') {
		return Head{}, false
	}
	const all = 7
	found := 0
	for {
		key, ok := s.key()
		if !ok {
			return Head{}, false
		}
		var dst *string
		var bit int
		switch key {
		case "checkpoint":
			dst, bit = &h.Checkpoint, 1
		case "group":
			dst, bit = &h.Group, 2
		case "id":
			dst, bit = &h.ID, 4
		}
		if dst != nil {
			// A key given twice: decoding whole takes the last, as
			// every other reader of the journal does.
			if found&bit != 0 {
				return Head{}, false
			}
			v, ok := s.str()
			if !ok {
				return Head{}, false
			}
			*dst = v
			found |= bit
		} else if !s.scalar() {
			return Head{}, false
		}
		if found == all {
			return s.tries(h)
		}
		if !s.skip(',') {
			return Head{}, false
		}
	}
}

// tries reads the epoch and attempt keys that follow a record's id, when
// they do; a record without them is epoch 1, attempt 1.
func (s *headScanner) tries(h Head) (Head, bool) {
	h.Epoch, h.Attempt = 1, 1
	for seen := 0; seen < 2; seen++ {
		if !s.skip(',') {
			return h, true
		}
		key, ok := s.key()
		if !ok {
			return Head{}, false
		}
		var dst *int
		switch key {
		case "epoch":
			dst = &h.Epoch
		case "attempt":
			dst = &h.Attempt
		default:
			return h, true
		}
		n, ok := s.count()
		if !ok {
			return Head{}, false
		}
		*dst = max(n, 1)
	}
	return h, true
}

// count reads a small non-negative integer.
func (s *headScanner) count() (int, bool) {
	s.space()
	n, start := 0, s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' && s.i-start < 9 {
		n = n*10 + int(s.b[s.i]-'0')
		s.i++
	}
	if s.i == start || (s.i < len(s.b) && (s.b[s.i] >= '0' && s.b[s.i] <= '9' || s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E')) {
		return 0, false
	}
	return n, true
}

// headScanner reads the start of a JSON object, token by token.
type headScanner struct {
	b []byte
	i int
}

func (s *headScanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// skip consumes c (after white space).
func (s *headScanner) skip(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// key reads an object key and its colon; keys with escapes are not read.
func (s *headScanner) key() (string, bool) {
	s.space()
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return "", false
	}
	end := bytes.IndexByte(s.b[s.i+1:], '"')
	if end < 0 {
		return "", false
	}
	raw := s.b[s.i+1 : s.i+1+end]
	if bytes.IndexByte(raw, '\\') >= 0 {
		return "", false
	}
	s.i += end + 2
	if !s.skip(':') {
		return "", false
	}
	return string(raw), true
}

// str reads a string value.
func (s *headScanner) str() (string, bool) {
	s.space()
	start := s.i
	if !s.skipString() {
		return "", false
	}
	raw := s.b[start:s.i]
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", false
	}
	return v, true
}

// skipString passes over a string, its escapes included.
func (s *headScanner) skipString() bool {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return false
	}
	for j := s.i + 1; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '\\':
			j++
		case c == '"':
			s.i = j + 1
			return true
		case c < 0x20:
			return false
		}
	}
	return false
}

// scalar passes over a string, number, true, false or null; an object or
// a list is not passed over.
func (s *headScanner) scalar() bool {
	s.space()
	if s.i >= len(s.b) {
		return false
	}
	if s.b[s.i] == '"' {
		return s.skipString()
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') {
			s.i++
			continue
		}
		break
	}
	if s.i == start {
		return false
	}
	switch string(s.b[start:s.i]) {
	case "true", "false", "null":
		return true
	}
	// A number: json.Valid says whether it is one.
	return json.Valid(s.b[start:s.i])
}
