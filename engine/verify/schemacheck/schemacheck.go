// Package schemacheck is the JSON Schema engine behind the schema check
// (github.com/santhosh-tekuri/jsonschema, any draft a schema declares,
// 2020-12 when it declares none). Importing it installs it in
// engine/verify; programs that run schema checks import it for that
// effect, as engine/run does.
package schemacheck

import (
	"bytes"
	"errors"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/engine/verify"
	"github.com/wasmeval/wasmeval/plugins/abi/abischema"
)

func init() { verify.UseSchemaEngine(engine{}) }

// compiled caches schemas by their canonical text: a group checks every
// case against the same schema, and compiling is the expensive part.
var compiled sync.Map // string → schema

type engine struct{}

func (engine) Compile(text string) (verify.Schema, error) {
	if s, ok := compiled.Load(text); ok {
		return s.(schema), nil
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("schema.json", doc); err != nil {
		return nil, err
	}
	s, err := c.Compile("schema.json")
	if err != nil {
		return nil, err
	}
	compiled.Store(text, schema{s})
	return schema{s}, nil
}

// ParseFile decodes a schema file: JSON is YAML, so one parser reads both.
func (engine) ParseFile(data []byte) (any, error) {
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	return v, nil
}

type schema struct{ s *jsonschema.Schema }

func (s schema) Validate(raw string) (any, []verify.SchemaViolation, error) {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(raw)))
	if err != nil {
		return nil, nil, err
	}
	err = s.s.Validate(inst)
	if err == nil {
		return inst, nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return inst, []verify.SchemaViolation{{Message: "schema validation failed: " + err.Error()}}, nil
	}
	return inst, violations(ve), nil
}

// violations are the innermost causes of a validation error, in words.
func violations(ve *jsonschema.ValidationError) []verify.SchemaViolation {
	var out []verify.SchemaViolation
	for _, leaf := range abischema.Leaves(ve) {
		out = append(out, verify.SchemaViolation{Location: leaf.InstanceLocation,
			KeywordPath: leaf.ErrorKind.KeywordPath(), Message: abischema.Message(leaf)})
	}
	return out
}
