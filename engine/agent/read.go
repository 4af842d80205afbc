package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// DefaultMaxBytes is the largest result read when Options.MaxBytes is 0.
const DefaultMaxBytes = 64 << 20

// Options tune reading a result.
type Options struct {
	// Source names the input in errors; "result.json" when empty.
	Source string
	// MaxBytes refuses larger inputs; DefaultMaxBytes when 0. A result is
	// decoded whole, so this bounds the memory reading it takes (a few
	// times MaxBytes at most).
	MaxBytes int64
}

func (o Options) source() string {
	if o.Source == "" {
		return "result.json"
	}
	return o.Source
}

func (o Options) maxBytes() int64 {
	if o.MaxBytes <= 0 {
		return DefaultMaxBytes
	}
	return o.MaxBytes
}

// ReadFile reads and parses a result file. Its size is checked before it
// is read. Errors name the file by its base name unless opts.Source is set.
func ReadFile(name string, opts Options) (*Result, error) {
	if opts.Source == "" {
		opts.Source = filepath.Base(name)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > opts.maxBytes() {
		return nil, tooLarge(opts, st.Size())
	}
	return Read(f, opts)
}

// Read reads a result from r, reading at most one byte more than the cap.
func Read(r io.Reader, opts Options) (*Result, error) {
	limit := opts.maxBytes()
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opts.source(), err)
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(opts, -1)
	}
	return Parse(data, opts)
}

func tooLarge(opts Options, size int64) error {
	msg := "over the size limit of " + HumanBytes(opts.maxBytes())
	if size >= 0 {
		msg = fmt.Sprintf("%d bytes, %s", size, msg)
	}
	return &Error{Source: opts.source(), Msg: msg + "; make the agent write less", Kind: ErrTooLarge}
}

// HumanBytes writes a size as people read it (64 MiB).
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Parse parses a result from data: one JSON object, optionally preceded
// by a UTF-8 byte order mark and surrounded by whitespace.
func Parse(data []byte, opts Options) (*Result, error) {
	src := opts.source()
	if int64(len(data)) > opts.maxBytes() {
		return nil, tooLarge(opts, int64(len(data)))
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &Error{Source: src, Msg: "empty; expected a JSON object", Kind: ErrNotJSON}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, notJSON(src, data, err)
	}
	if off := dec.InputOffset(); !onlySpace(string(data[off:])) {
		return nil, &Error{Source: src, Kind: ErrNotJSON,
			Msg: fmt.Sprintf("not JSON: extra data after the top-level value at byte %d: %s", off, snippet(data[off:]))}
	}
	top, ok := v.(map[string]any)
	if !ok {
		return nil, &Error{Source: src, Msg: "expected an object at the top level, got " + typeName(v)}
	}
	if n := depth(v, 0); n > MaxDepth {
		// Test functions, built with the SDKs, would refuse it, and
		// the fault would be laid on them: it is the result's.
		return nil, &Error{Source: src, Kind: ErrNotJSON,
			Msg: fmt.Sprintf("nests more than %d levels deep, more than test functions read (the SDKs' limit)", MaxDepth)}
	}
	d := &decoder{source: src}
	return d.result(top)
}

// MaxDepth is the deepest nesting of a result: the most the SDKs' JSON
// parsers (Go, Rust, AssemblyScript) read.
const MaxDepth = 1000

// depth is how deeply v nests (a scalar 0, [] 1), counting no further
// than one past MaxDepth.
func depth(v any, at int) int {
	if at > MaxDepth {
		return at
	}
	deepest := at
	switch t := v.(type) {
	case map[string]any:
		for _, x := range t {
			deepest = max(deepest, depth(x, at+1))
		}
		deepest = max(deepest, at+1)
	case []any:
		for _, x := range t {
			deepest = max(deepest, depth(x, at+1))
		}
		deepest = max(deepest, at+1)
	}
	return deepest
}

func notJSON(src string, data []byte, err error) error {
	var syn *json.SyntaxError
	detail := err.Error()
	switch {
	case errors.As(err, &syn):
		detail = fmt.Sprintf("%s (at byte %d)", syn.Error(), syn.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		detail = "it ends before the JSON value does"
	}
	return &Error{Source: src, Kind: ErrNotJSON, Msg: fmt.Sprintf("not JSON: %s; it begins %s", detail, snippet(data))}
}
