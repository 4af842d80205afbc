package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// A check's actual value is very often the case's whole output (or
// stderr), which the record already holds in result: stored as it is, a
// large output would be written twice on every line. The journal stores
// it once and has the attribute refer to it (actual_from), and reading
// puts the same string back, so every reader sees the record as it was.
// Small values are stored as they are, so short records stay readable.

// refMinBytes is the size from which an actual value is referred to.
const refMinBytes = 1 << 10

// Where an attribute's actual value can be found.
const (
	fromOutput = "result.output"
	fromStderr = "result.stderr"
)

// storedRecord is a record as the journal writes it.
type storedRecord struct {
	*result.CaseRecord
	Attributes []storedAttribute `json:"attributes"`
}

type storedAttribute struct {
	verify.AttributeResult
	// ActualFrom names the field of the record that holds the actual
	// value (then stored as null here).
	ActualFrom string `json:"actual_from,omitempty"`
}

// encodeRecord encodes rec as one journal line, without its newline.
func encodeRecord(rec *result.CaseRecord) ([]byte, error) {
	return appendEncoded(nil, rec)
}

// appendEncoded appends encodeRecord's line to b.
func appendEncoded(b []byte, rec *result.CaseRecord) ([]byte, error) {
	s := storedRecord{CaseRecord: rec, Attributes: make([]storedAttribute, len(rec.Attributes))}
	for i, a := range rec.Attributes {
		s.Attributes[i].AttributeResult = a
		text, ok := a.Actual.(string)
		if !ok || len(text) < refMinBytes {
			continue
		}
		switch text {
		case rec.Result.Output:
			s.Attributes[i].ActualFrom, s.Attributes[i].Actual = fromOutput, nil
		case rec.Result.Stderr:
			s.Attributes[i].ActualFrom, s.Attributes[i].Actual = fromStderr, nil
		}
	}
	if fastCodec {
		if line, err := appendRecord(b, &s); err == nil {
			return line, nil
		}
	}
	line, err := json.Marshal(s) // which says why, as it always has
	if err != nil {
		return nil, err
	}
	return append(b, line...), nil
}

// decodeRecord decodes a journal line's body, putting referred values back.
func decodeRecord(body []byte) (*result.CaseRecord, error) {
	return decodeAs(body, decodeWhole)
}

// decodeWithoutAttributes is decodeRecord passing over the attributes:
// their values are never built (the record's are nil).
func decodeWithoutAttributes(body []byte) (*result.CaseRecord, error) {
	return decodeAs(body, decodeNoAttribute)
}

// decodeHead decodes a record's head, checking that the rest is a record
// as decodeRecord does: the record it returns may hold nothing else.
func decodeHead(body []byte) (*result.CaseRecord, error) {
	return decodeAs(body, decodeHeadOnly)
}

// decodeAs decodes a line's body in a mode of fastDecode's, through it
// when it can, else through encoding/json.
func decodeAs(body []byte, mode int) (*result.CaseRecord, error) {
	rec, stored, ok := fastDecode(body, mode)
	if !ok {
		var err error
		if rec, stored, err = slowDecode(body, mode); err != nil {
			return nil, err
		}
	}
	if mode != decodeWhole {
		return rec, nil
	}
	rec.Attributes = make([]verify.AttributeResult, len(stored))
	for i, a := range stored {
		rec.Attributes[i] = a.AttributeResult
		switch a.ActualFrom {
		case "":
		case fromOutput:
			rec.Attributes[i].Actual = rec.Result.Output
		case fromStderr:
			rec.Attributes[i].Actual = rec.Result.Stderr
		default:
			return nil, fmt.Errorf("attribute %d: actual_from %q: expected %q or %q", i, a.ActualFrom, fromOutput, fromStderr)
		}
	}
	return rec, nil
}

// slowDecode is fastDecode through encoding/json, for any line. The head
// is decoded with the whole record.
func slowDecode(body []byte, mode int) (*result.CaseRecord, []storedAttribute, error) {
	rec := &result.CaseRecord{}
	if mode == decodeNoAttribute {
		s := struct {
			*result.CaseRecord
			Attributes skipped `json:"attributes"`
		}{CaseRecord: rec}
		return rec, nil, unmarshal(body, &s)
	}
	s := storedRecord{CaseRecord: rec}
	if err := unmarshal(body, &s); err != nil {
		return nil, nil, err
	}
	if mode == decodeHeadOnly {
		// Checked as a whole record is.
		for i, a := range s.Attributes {
			switch a.ActualFrom {
			case "", fromOutput, fromStderr:
			default:
				return nil, nil, fmt.Errorf("attribute %d: actual_from %q: expected %q or %q", i, a.ActualFrom, fromOutput, fromStderr)
			}
		}
	}
	return rec, s.Attributes, nil
}

// skipped is a JSON value decoded into nothing.
type skipped struct{}

func (*skipped) UnmarshalJSON([]byte) error { return nil }

// unmarshal decodes a record's body into v, naming a field of the wrong
// type by the record's JSON keys, not by the Go types that decode them.
// Numbers in values of any type keep their text (UseNumber), as
// fastDecode keeps them.
func unmarshal(body []byte, v any) error {
	var err error
	if !json.Valid(body) {
		err = json.Unmarshal(body, v) // its message for what is wrong
	} else {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		err = dec.Decode(v)
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) && typ.Field != "" {
		field := strings.TrimPrefix(typ.Field, "CaseRecord.")
		return fmt.Errorf("%s: expected %s, got a JSON %s", field, typ.Type, typ.Value)
	}
	return err
}

// DecodeRecord decodes a record's JSON as the journal reads its lines,
// whether the journal wrote it or encoding/json did: a value of any type
// keeps its numbers' text (a distributed run's worker sends its records
// so, and the coordinator must read 187.0 as 187.0, not as the float
// 187).
func DecodeRecord(data []byte) (*result.CaseRecord, error) {
	return decodeRecord(bytes.TrimSpace(data))
}
