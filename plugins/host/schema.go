package host

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

var (
	schemaOnce sync.Once
	schemas    map[string]*jsonschema.Schema
	schemaErr  error
)

// validateEnvelope checks a decoded envelope against the ABI schema.
func validateEnvelope(name string, doc any) error {
	schemaOnce.Do(func() {
		schemas = map[string]*jsonschema.Schema{}
		c := jsonschema.NewCompiler()
		entries, err := abi.Schemas.ReadDir("schema")
		if err != nil {
			schemaErr = err
			return
		}
		for _, e := range entries {
			data, _ := abi.Schemas.ReadFile("schema/" + e.Name())
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
			if err != nil {
				schemaErr = fmt.Errorf("schema %s: %w", e.Name(), err)
				return
			}
			if err := c.AddResource(e.Name(), doc); err != nil {
				schemaErr = err
				return
			}
		}
		for _, e := range entries {
			s, err := c.Compile(e.Name())
			if err != nil {
				schemaErr = fmt.Errorf("schema %s: %w", e.Name(), err)
				return
			}
			schemas[e.Name()[:len(e.Name())-len(".json")]] = s
		}
	})
	if schemaErr != nil {
		return schemaErr
	}
	s, ok := schemas[name]
	if !ok {
		return fmt.Errorf("no schema %q", name)
	}
	if err := s.Validate(doc); err != nil {
		return fmt.Errorf("does not match the %s schema: %v", name, err)
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
