package verify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/wasmeval/wasmeval/engine/problem"
)

// compiled caches schemas by their canonical text: a group checks every
// case against the same schema, and compiling is the expensive part.
var compiled sync.Map // string → *jsonschema.Schema

var printer = message.NewPrinter(language.English)

// CompileSchema compiles a JSON Schema document given as canonical JSON
// text (any draft the document declares; 2020-12 when it declares none).
func CompileSchema(text string) (*jsonschema.Schema, error) {
	if s, ok := compiled.Load(text); ok {
		return s.(*jsonschema.Schema), nil
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
	compiled.Store(text, s)
	return s, nil
}

// schemaText resolves a check's schema to canonical JSON text.
func schemaText(spec problem.CheckSpec, env Env) (string, error) {
	var doc any = spec.Schema
	if spec.SchemaFile != "" {
		if env.ReadProblemFile == nil {
			return "", fmt.Errorf("schema_file %s cannot be read here", spec.SchemaFile)
		}
		data, err := env.ReadProblemFile(spec.SchemaFile)
		if err != nil {
			return "", fmt.Errorf("schema_file: %w", err)
		}
		if doc, err = parseYAMLOrJSON(data); err != nil {
			return "", fmt.Errorf("schema_file %s: %w", spec.SchemaFile, err)
		}
	}
	data, err := json.Marshal(doc)
	if err != nil {
		return "", fmt.Errorf("schema is not representable as JSON: %w", err)
	}
	return string(data), nil
}

// checkSchema validates the attribute, parsed as JSON, against a schema.
func checkSchema(res *AttributeResult, spec problem.CheckSpec, actual Actual, env Env) {
	text, err := schemaText(spec, env)
	if err != nil {
		fail(res, "%v", err)
		return
	}
	sch, err := CompileSchema(text)
	if err != nil {
		fail(res, "invalid JSON Schema: %v", err)
		return
	}
	res.Expected = json.RawMessage(text)
	got, ok := actualValue(actual, res.Attribute)
	if !ok {
		fail(res, "attribute %s was not produced", res.Attribute)
		return
	}
	raw, _ := asText(got)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(raw)))
	if err != nil {
		res.Actual = raw
		fail(res, "%s is not valid JSON: %v", res.Attribute, err)
		return
	}
	res.Actual = inst
	err = sch.Validate(inst)
	res.IsCorrect = err == nil
	if err == nil {
		return
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		fail(res, "schema validation failed: %v", err)
		return
	}
	d := &Diff{}
	for _, leaf := range schemaLeaves(ve) {
		addEntry(d, DiffEntry{Path: instancePath(leaf.InstanceLocation), Op: "mismatch",
			Expected: "/" + strings.Join(leaf.ErrorKind.KeywordPath(), "/"), Actual: leaf.ErrorKind.LocalizedString(printer)})
	}
	sort.SliceStable(d.Entries, func(i, j int) bool { return d.Entries[i].Path < d.Entries[j].Path })
	if len(d.Entries) > 0 {
		e := d.Entries[0]
		d.Summary = fmt.Sprintf("%s: %s", e.Path, e.Actual)
		if n := len(d.Entries) - 1; n > 0 {
			d.Summary += fmt.Sprintf("; and %d other violations", n)
		}
	} else {
		d.Summary = ve.Error()
	}
	res.Diff = d
}

// schemaLeaves returns the innermost causes: the violations a reader can
// act on, not the "allOf failed" wrappers around them.
func schemaLeaves(ve *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return []*jsonschema.ValidationError{ve}
	}
	var out []*jsonschema.ValidationError
	for _, c := range ve.Causes {
		out = append(out, schemaLeaves(c)...)
	}
	return out
}

func instancePath(loc []string) string {
	p := "$"
	for _, seg := range loc {
		if isIndex(seg) {
			p += "[" + seg + "]"
		} else {
			p = childPath(p, seg)
		}
	}
	return p
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
