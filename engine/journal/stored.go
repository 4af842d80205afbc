package journal

import (
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
	return json.Marshal(s)
}

// decodeRecord decodes a journal line's body, putting referred values back.
func decodeRecord(body []byte) (*result.CaseRecord, error) {
	var rec result.CaseRecord
	s := storedRecord{CaseRecord: &rec}
	if err := unmarshal(body, &s); err != nil {
		return nil, err
	}
	rec.Attributes = make([]verify.AttributeResult, len(s.Attributes))
	for i, a := range s.Attributes {
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
	return &rec, nil
}

// decodeWithoutAttributes is decodeRecord passing over the attributes:
// their values are never built.
func decodeWithoutAttributes(body []byte) (*result.CaseRecord, error) {
	var rec result.CaseRecord
	s := struct {
		*result.CaseRecord
		Attributes skipped `json:"attributes"`
	}{CaseRecord: &rec}
	if err := unmarshal(body, &s); err != nil {
		return nil, err
	}
	return &rec, nil
}

// skipped is a JSON value decoded into nothing.
type skipped struct{}

func (*skipped) UnmarshalJSON([]byte) error { return nil }

// unmarshal decodes a record's body into v, naming a field of the wrong
// type by the record's JSON keys, not by the Go types that decode them.
func unmarshal(body []byte, v any) error {
	err := json.Unmarshal(body, v)
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) && typ.Field != "" {
		field := strings.TrimPrefix(typ.Field, "CaseRecord.")
		return fmt.Errorf("%s: expected %s, got a JSON %s", field, typ.Type, typ.Value)
	}
	return err
}
