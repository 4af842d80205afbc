package agent

import (
	"errors"
	"strconv"
	"unicode/utf8"
)

// The kinds of failure an *Error wraps; test them with errors.Is.
var (
	// ErrTooLarge: the input is over Options.MaxBytes.
	ErrTooLarge = errors.New("too large")
	// ErrNotJSON: the input is not one JSON value.
	ErrNotJSON = errors.New("not JSON")
	// ErrShape: the input is JSON but a known key has the wrong type or
	// value.
	ErrShape = errors.New("wrong shape")
)

// Error is a result that cannot be read. Its text names the source, the
// JSON path when there is one, and what was wrong:
//
//	result.json: conversation[3].content: expected a string or a list of content blocks, got a number
type Error struct {
	// Source names the input ("result.json" unless Options.Source says).
	Source string
	// Path is the JSON path of the offending value ("" for the whole input).
	Path string
	// Msg says what was expected and what was found.
	Msg string
	// Kind is ErrTooLarge, ErrNotJSON or ErrShape.
	Kind error
}

func (e *Error) Error() string {
	s := e.Source
	if e.Path != "" {
		s += ": " + e.Path
	}
	return s + ": " + e.Msg
}

// Unwrap returns the kind, so errors.Is(err, ErrNotJSON) works.
func (e *Error) Unwrap() error {
	if e.Kind == nil {
		return ErrShape
	}
	return e.Kind
}

// snippetBytes is how much of a non-JSON input an error shows.
const snippetBytes = 200

// snippet quotes the start of data, at most snippetBytes, cut on a rune
// boundary and escaped so control bytes and invalid UTF-8 print safely.
func snippet(data []byte) string {
	if len(data) <= snippetBytes {
		return strconv.Quote(string(data))
	}
	cut := snippetBytes
	for cut > snippetBytes-utf8.UTFMax && !utf8.RuneStart(data[cut]) {
		cut--
	}
	return strconv.Quote(string(data[:cut])) + "…"
}
