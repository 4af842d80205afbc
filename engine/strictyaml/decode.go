// Package strictyaml decodes YAML into Go values strictly and collects every
// problem it finds — unknown keys, wrong types, duplicate keys — as
// diagnostics naming the file, the key path and the line, instead of
// stopping at the first. Problem configs and case files both use it, so
// `wasmeval validate` can report everything at once.
package strictyaml

import (
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/engine/diag"
)

// Decoder turns a YAML node tree into Go structs strictly: unknown keys and
// wrong types are collected as diagnostics (file, key path, line) instead of
// stopping at the first one.
type Decoder struct {
	File string
	Errs *diag.List
}

// NodeDecoder is implemented by types whose YAML form is a union (a list or
// a mapping, a list or "*") and cannot be decoded field by field.
type NodeDecoder interface {
	DecodeNode(d *Decoder, node *yaml.Node, path string)
}

// Errorf records a diagnostic at node (its line) and path.
func (d *Decoder) Errorf(node *yaml.Node, path, format string, args ...any) {
	line := 0
	if node != nil {
		line = node.Line
	}
	d.Errs.Add(d.File, path, line, format, args...)
}

// ParseFile reads and parses a YAML (or JSON) document.
func ParseFile(file string, errs *diag.List) (*yaml.Node, bool) {
	data, err := os.ReadFile(file)
	if err != nil {
		errs.Add(file, "", 0, "cannot read file: %v", diag.UnwrapPathError(err))
		return nil, false
	}
	return ParseBytes(file, data, errs)
}

// ParseBytes parses a YAML (or JSON) document held in memory; file names it
// in diagnostics.
func ParseBytes(file string, data []byte, errs *diag.List) (*yaml.Node, bool) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line, msg := yamlErrorLine(err)
		errs.Add(file, "", line, "malformed YAML: %s", msg)
		return nil, false
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		errs.Add(file, "", 0, "file is empty; expected a mapping")
		return nil, false
	}
	return doc.Content[0], true
}

// yamlErrorLine pulls "line N" out of yaml.v3's error text.
func yamlErrorLine(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var line int
	if i := strings.Index(msg, "line "); i >= 0 {
		fmt.Sscanf(msg[i:], "line %d", &line)
	}
	return line, msg
}

// Decode fills out (a pointer) from node.
func (d *Decoder) Decode(node *yaml.Node, path string, out any) {
	d.Value(node, path, reflect.ValueOf(out).Elem())
}

// Value decodes node into v, recording problems instead of failing.
func (d *Decoder) Value(node *yaml.Node, path string, v reflect.Value) {
	if node.Kind == yaml.AliasNode {
		node = node.Alias
	}
	if v.CanAddr() {
		if nd, ok := v.Addr().Interface().(NodeDecoder); ok {
			nd.DecodeNode(d, node, path)
			return
		}
	}
	if node.Kind == yaml.ScalarNode && node.Tag == "!!null" {
		return // leave the zero value
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			d.Value(node, path, v.Elem())
			return
		}
		// A value that does not decode leaves the pointer unset, so what
		// checks the decoded struct later ("max_seconds must be
		// positive") does not report the same key again for the zero it
		// would hold.
		elem := reflect.New(v.Type().Elem())
		before := len(*d.Errs)
		d.Value(node, path, elem.Elem())
		if len(*d.Errs) == before {
			v.Set(elem)
		}
	case reflect.Struct:
		d.StructValue(node, path, v)
	case reflect.Map:
		if node.Kind != yaml.MappingNode {
			d.Errorf(node, path, "expected a mapping, got %s", Describe(node))
			return
		}
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
		for i := 0; i+1 < len(node.Content); i += 2 {
			k, val := node.Content[i], node.Content[i+1]
			elem := reflect.New(v.Type().Elem()).Elem()
			d.Value(val, diag.JoinPath(path, k.Value), elem)
			v.SetMapIndex(reflect.ValueOf(k.Value), elem)
		}
	case reflect.Slice:
		if node.Kind != yaml.SequenceNode {
			d.Errorf(node, path, "expected a list, got %s", Describe(node))
			return
		}
		s := reflect.MakeSlice(v.Type(), len(node.Content), len(node.Content))
		for i, item := range node.Content {
			d.Value(item, diag.IndexPath(path, i), s.Index(i))
		}
		v.Set(s)
	case reflect.Interface:
		x, err := JSONValue(node)
		if err != nil {
			d.Errorf(node, path, "%v", err)
			return
		}
		if x != nil {
			v.Set(reflect.ValueOf(x))
		}
	default:
		if node.Kind != yaml.ScalarNode {
			d.Errorf(node, path, "expected %s, got %s", kindName(v), Describe(node))
			return
		}
		if isInt(v) && !integral(node) {
			// yaml.v3 truncates 1.5 into an int; a value the author wrote
			// is kept exactly or refused, never silently changed.
			d.Errorf(node, path, "expected %s, got %q", kindName(v), node.Value)
			return
		}
		if err := node.Decode(v.Addr().Interface()); err != nil {
			d.Errorf(node, path, "expected %s, got %q", kindName(v), node.Value)
		}
	}
}

func isInt(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// integral reports whether a scalar decodes to an integer without losing
// anything: an int, or a float with no fractional part (1.0, 1e3).
func integral(n *yaml.Node) bool {
	if n.Tag != "!!float" {
		return true // ints decode exactly; other tags fail to decode
	}
	var f float64
	return n.Decode(&f) == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53
}

// StructValue decodes a mapping into a struct whose fields carry yaml tags;
// keys with no field are errors that list the known keys.
func (d *Decoder) StructValue(node *yaml.Node, path string, v reflect.Value) {
	if node.Kind != yaml.MappingNode {
		d.Errorf(node, path, "expected a mapping, got %s", Describe(node))
		return
	}
	fields := yamlFields(v.Type())
	seen := map[string]bool{}
	for i := 0; i+1 < len(node.Content); i += 2 {
		k, val := node.Content[i], node.Content[i+1]
		kp := diag.JoinPath(path, k.Value)
		if seen[k.Value] {
			d.Errorf(k, kp, "key given twice")
			continue
		}
		seen[k.Value] = true
		idx, ok := fields[k.Value]
		if !ok {
			d.Errorf(k, kp, "unknown key %q (known keys: %s)", k.Value, strings.Join(fieldNames(v.Type()), ", "))
			continue
		}
		d.Value(val, kp, v.Field(idx))
	}
}

// yamlFields maps yaml key → field index for a struct type.
func yamlFields(t reflect.Type) map[string]int {
	out := map[string]int{}
	for i := 0; i < t.NumField(); i++ {
		name := yamlName(t.Field(i))
		if name != "" {
			out[name] = i
		}
	}
	return out
}

func fieldNames(t reflect.Type) []string {
	var names []string
	for i := 0; i < t.NumField(); i++ {
		if n := yamlName(t.Field(i)); n != "" {
			names = append(names, n)
		}
	}
	return names
}

func yamlName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	tag := f.Tag.Get("yaml")
	if tag == "-" || tag == "" {
		return ""
	}
	return strings.Split(tag, ",")[0]
}

// Describe names a node's kind (or a scalar's value) for messages.
func Describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	}
	return "an unsupported YAML value"
}

func kindName(v reflect.Value) string {
	switch v.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.Float64, reflect.Float32:
		return "a number"
	}
	return v.Type().String()
}

// Normalize turns map[any]any (never produced by yaml.v3 for string keys,
// but possible for numeric keys) into map[string]any so values are JSON-ready.
func Normalize(x any) any {
	switch t := x.(type) {
	case map[string]any:
		for k, v := range t {
			t[k] = Normalize(v)
		}
		return t
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, v := range t {
			m[fmt.Sprint(k)] = Normalize(v)
		}
		return m
	case []any:
		for i, v := range t {
			t[i] = Normalize(v)
		}
		return t
	}
	return x
}

// MappingPairs returns a mapping's key/value node pairs in file order.
func MappingPairs(n *yaml.Node) [][2]*yaml.Node {
	var out [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, [2]*yaml.Node{n.Content[i], n.Content[i+1]})
	}
	return out
}
