package host

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wasmeval/wasmeval/engine/verify/schemacheck"
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

// validateEnvelope checks a decoded envelope against the ABI schema.
func validateEnvelope(name string, doc any) error {
	s, err := schemaFor(name)
	if err != nil {
		return err
	}
	if err := s.Validate(doc); err != nil {
		return fmt.Errorf("does not match the %s schema: %s", name, schemacheck.Explain(err))
	}
	return nil
}

// ValidateEnvelope checks raw JSON against one of the ABI schemas; the
// conformance tests and `wasmeval plugin call` use it.
func ValidateEnvelope(name string, data []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return validateEnvelope(name, doc)
}
