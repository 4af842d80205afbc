package journal

import (
	"bytes"
	"fmt"

	"github.com/wasmeval/wasmeval/engine/result"
)

// CorruptError is a whole journal line (it ends with its newline, so it is
// not a torn last write) that is not a case record. The journal never
// writes one; one comes from outside: a disk or filesystem fault, an older
// wasmeval that kept writing after a failed write, two writers at once, a
// hand edit of a shared run directory.
type CorruptError struct {
	Path string
	Line int // 1-based; 0 when the record was read by offset
	// Reason says what is wrong with it.
	Reason string
	// Start is the line's beginning, to recognise it by.
	Start string
}

func (e *CorruptError) Error() string {
	where := e.Path
	if e.Line > 0 {
		where = fmt.Sprintf("%s:%d", e.Path, e.Line)
	}
	s := fmt.Sprintf("%s: corrupt journal line: %s", where, e.Reason)
	if e.Start != "" {
		s += fmt.Sprintf(" (the line starts %q)", e.Start)
	}
	return s
}

// decodeLine decodes one whole line into a record. A record is a JSON
// object: the check on the first byte refuses `null` and a line of
// zeros (what some filesystems leave of a write they lost in a power
// cut), which json.Unmarshal would take as an empty record or fail on
// with a vaguer message.
func decodeLine(path string, lineNo int, line []byte) (*result.CaseRecord, error) {
	return decodeLineWith(decodeRecord, path, lineNo, line)
}

// decodeLineWith is decodeLine with decode for the line's body.
func decodeLineWith(decode func([]byte) (*result.CaseRecord, error), path string, lineNo int, line []byte) (*result.CaseRecord, error) {
	corrupt := func(reason string) error {
		start := line[:min(len(line), 40)]
		return &CorruptError{Path: path, Line: lineNo, Reason: reason, Start: string(bytes.TrimSuffix(start, []byte("\n")))}
	}
	body := bytes.TrimSpace(line)
	if len(body) == 0 {
		return nil, corrupt("empty line")
	}
	if body[0] != '{' {
		return nil, corrupt("not a JSON object")
	}
	rec, err := decode(body)
	if err != nil {
		return nil, corrupt(err.Error())
	}
	return rec, nil
}
