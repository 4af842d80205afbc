// Package abischema validates plugin envelopes against the ABI's JSON
// Schemas (plugins/abi/schema) and words what is wrong with one. The
// plugin host checks every envelope a plugin returns with it; the
// conformance suite and `wasmeval plugin call` check envelopes by hand.
package abischema

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

var (
	schemaMu sync.Mutex
	// schemaCompiler holds every ABI schema as a resource; each is
	// compiled on first use. A worker process validates one describe
	// output in its whole life, and compiling all of them then was a
	// tenth of a worker's start.
	schemaCompiler *jsonschema.Compiler
	schemas        = map[string]*jsonschema.Schema{}
)

// schemaFor returns the compiled ABI schema name (without ".json").
func schemaFor(name string) (*jsonschema.Schema, error) {
	schemaMu.Lock()
	defer schemaMu.Unlock()
	if s, ok := schemas[name]; ok {
		return s, nil
	}
	if schemaCompiler == nil {
		c := jsonschema.NewCompiler()
		entries, err := abi.Schemas.ReadDir("schema")
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			data, _ := abi.Schemas.ReadFile("schema/" + e.Name())
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
			if err != nil {
				return nil, fmt.Errorf("schema %s: %w", e.Name(), err)
			}
			if err := c.AddResource(e.Name(), doc); err != nil {
				return nil, err
			}
		}
		schemaCompiler = c
	}
	if _, err := abi.Schemas.ReadFile("schema/" + name + ".json"); err != nil {
		return nil, fmt.Errorf("no schema %q", name)
	}
	s, err := schemaCompiler.Compile(name + ".json")
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	schemas[name] = s
	return s, nil
}

// Validate checks a decoded envelope (as jsonschema.UnmarshalJSON or
// encoding/json with UseNumber decode it) against the ABI schema name.
func Validate(name string, doc any) error {
	s, err := schemaFor(name)
	if err != nil {
		return err
	}
	if err := s.Validate(doc); err != nil {
		return fmt.Errorf("does not match the %s schema: %s", name, Explain(err))
	}
	return nil
}

// ValidateJSON checks raw JSON against one of the ABI schemas.
func ValidateJSON(name string, data []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return Validate(name, doc)
}

var printer = message.NewPrinter(language.English)

// Explain words a validation error of the schema library as its innermost
// violations, "at '/path': message", joined with "; " — the library's own
// text starts with the schema's file URL, which means nothing to a reader.
// Other errors are returned as their text.
func Explain(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var msgs []string
	for _, leaf := range Leaves(ve) {
		msgs = append(msgs, fmt.Sprintf("at '/%s': %s", strings.Join(leaf.InstanceLocation, "/"), Message(leaf)))
	}
	return strings.Join(msgs, "; ")
}

// Message is one violation's message, in English. The library words
// string lengths as "minLength: got 0, want 1", its keyword rather than
// what is wrong; those read as what the value is and what was expected.
func Message(leaf *jsonschema.ValidationError) string {
	switch k := leaf.ErrorKind.(type) {
	case *kind.MinLength:
		if k.Got == 0 && k.Want == 1 {
			return "is empty, expected a non-empty string"
		}
		return fmt.Sprintf("has %d characters, expected at least %d", k.Got, k.Want)
	case *kind.MaxLength:
		return fmt.Sprintf("has %d characters, expected at most %d", k.Got, k.Want)
	}
	return leaf.ErrorKind.LocalizedString(printer)
}

// Leaves returns the innermost causes of a validation error: the
// violations a reader can act on, not the "allOf failed" wrappers around
// them.
//
// They come in the order of their places in the document (an object's
// members by name, a list's items by index), then of their messages: the
// library walks an object's members in map order, and the same document
// must get the same message every time.
func Leaves(ve *jsonschema.ValidationError) []*jsonschema.ValidationError {
	out := leaves(ve)
	sort.SliceStable(out, func(i, j int) bool {
		if c := comparePlaces(out[i].InstanceLocation, out[j].InstanceLocation); c != 0 {
			return c < 0
		}
		return Message(out[i]) < Message(out[j])
	})
	return out
}

func leaves(ve *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return []*jsonschema.ValidationError{ve}
	}
	var out []*jsonschema.ValidationError
	for _, c := range ve.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

// comparePlaces orders two instance locations: segment by segment, list
// indices as numbers, a location before the ones inside it.
func comparePlaces(a, b []string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] == b[i] {
			continue
		}
		x, errX := strconv.Atoi(a[i])
		y, errY := strconv.Atoi(b[i])
		if errX == nil && errY == nil {
			return cmp.Compare(x, y)
		}
		return strings.Compare(a[i], b[i])
	}
	return cmp.Compare(len(a), len(b))
}
