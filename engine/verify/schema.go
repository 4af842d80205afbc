package verify

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/wasmeval/wasmeval/engine/checkspec"
)

// SchemaEngine validates documents against JSON Schema for the schema check.
// The engine's (engine/verify/schemacheck) installs itself when imported;
// keeping it out of this package keeps the other checks small enough to
// compile into a Wasm plugin, which then cannot run schema checks.
type SchemaEngine interface {
	// Compile compiles a schema given as canonical JSON text.
	Compile(text string) (Schema, error)
	// ParseFile decodes a schema file, YAML or JSON.
	ParseFile(data []byte) (any, error)
}

// Schema is a compiled JSON Schema.
type Schema interface {
	// Validate parses raw as JSON and validates it, returning the parsed
	// document and its violations (none when valid), or a parse error.
	Validate(raw string) (doc any, violations []SchemaViolation, err error)
}

// SchemaViolation is one innermost failure: where in the instance
// (Location, as JSON pointer segments), which keyword of the schema
// (KeywordPath) and a readable message.
type SchemaViolation struct {
	Location    []string
	KeywordPath []string
	Message     string
}

// schemaEngine is the installed engine; nil until one is.
var schemaEngine SchemaEngine

// UseSchemaEngine installs the engine schema checks use. Call it before any
// check runs (engine/verify/schemacheck does, from its init function).
func UseSchemaEngine(e SchemaEngine) { schemaEngine = e }

func currentSchemaEngine() (SchemaEngine, error) {
	if schemaEngine == nil {
		return nil, fmt.Errorf("schema checks are not available in this program (no JSON Schema engine is linked in)")
	}
	return schemaEngine, nil
}

// CompileSchema compiles a JSON Schema document given as canonical JSON
// text with the installed engine.
func CompileSchema(text string) (Schema, error) {
	e, err := currentSchemaEngine()
	if err != nil {
		return nil, err
	}
	return e.Compile(text)
}

// schemaText resolves a check's schema to canonical JSON text.
func schemaText(spec checkspec.CheckSpec, env Env) (string, error) {
	var doc any = spec.Schema
	if spec.SchemaFile != "" {
		if env.ReadProblemFile == nil {
			return "", fmt.Errorf("schema_file %s cannot be read here", spec.SchemaFile)
		}
		data, err := env.ReadProblemFile(spec.SchemaFile)
		if err != nil {
			return "", fmt.Errorf("schema_file: %w", err)
		}
		e, err := currentSchemaEngine()
		if err != nil {
			return "", err
		}
		if doc, err = e.ParseFile(data); err != nil {
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
func checkSchema(res *AttributeResult, spec checkspec.CheckSpec, actual Actual, env Env) {
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
	got, ok := actualValue(actual, env, res.Attribute)
	if !ok {
		fail(res, "%s", notProduced(env, res.Attribute))
		return
	}
	raw, _ := asText(got)
	inst, violations, err := sch.Validate(raw)
	if err != nil {
		res.Actual = raw
		fail(res, "%s is not valid JSON: %v", res.Attribute, err)
		return
	}
	res.Actual = inst
	res.IsCorrect = len(violations) == 0
	if res.IsCorrect {
		return
	}
	d := &Diff{}
	for _, v := range violations {
		addEntry(d, DiffEntry{Path: instancePath(v.Location), Op: "mismatch",
			Expected: "/" + strings.Join(v.KeywordPath, "/"), Actual: v.Message})
	}
	sort.SliceStable(d.Entries, func(i, j int) bool { return d.Entries[i].Path < d.Entries[j].Path })
	e := d.Entries[0]
	d.Summary = fmt.Sprintf("%s: %s", e.Path, e.Actual)
	if n := len(d.Entries) - 1; n > 0 {
		d.Summary += fmt.Sprintf("; and %d other violations", n)
	}
	res.Diff = d
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
