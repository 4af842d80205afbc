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
		for _, kv := range d.pairs(node, path) {
			k, val := kv[0], kv[1]
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

// pairs is node's pairs with its merges applied (Pairs); a merge it
// refuses is reported at path and left out.
func (d *Decoder) pairs(node *yaml.Node, path string) [][2]*yaml.Node {
	out, err := Pairs(node)
	if err == nil {
		return out
	}
	var own [][2]*yaml.Node
	for _, kv := range ownPairs(node) {
		if kv[0].Kind == yaml.ScalarNode && kv[0].Tag == "!!merge" {
			d.Errorf(kv[0], diag.JoinPath(path, "<<"), "%v", err)
			continue
		}
		own = append(own, kv)
	}
	return own
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
	for _, kv := range d.pairs(node, path) {
		k, val := kv[0], kv[1]
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

// MappingPairs returns a mapping's key/value node pairs: its own in file
// order, then those its merge keys (<<) bring (see Pairs). A merge Pairs
// refuses is returned as it is written, key "<<", so a caller that
// refuses unknown keys refuses it; StructValue says why.
func MappingPairs(n *yaml.Node) [][2]*yaml.Node {
	out, err := Pairs(n)
	if err != nil {
		return ownPairs(n)
	}
	return out
}

// MaxMerged bounds the pairs one mapping's merges may bring, counting
// those of merges within merges: a few lines of aliases that merge each
// other twice over would otherwise ask for billions.
const MaxMerged = 10_000

// Pairs returns a mapping's key/value node pairs with its merge keys
// applied, as YAML's merge (and yaml.v3 decoding into Go values) reads
// them: the mapping's own keys first, in file order, then each merged
// mapping's keys the mapping does not have, of several merged mappings
// (<<: [*a, *b]) the first that has a key winning. A merged mapping's own
// merges are applied first. A key a merge brings is the merged mapping's
// key node, so a message about it names the line it is written on. An
// error says a merge is not a mapping or a list of mappings, or brings
// more than MaxMerged pairs.
func Pairs(n *yaml.Node) ([][2]*yaml.Node, error) {
	budget := MaxMerged
	return pairs(n, &budget)
}

func ownPairs(n *yaml.Node) [][2]*yaml.Node {
	out := make([][2]*yaml.Node, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, [2]*yaml.Node{n.Content[i], n.Content[i+1]})
	}
	return out
}

func pairs(n *yaml.Node, budget *int) ([][2]*yaml.Node, error) {
	out := ownPairs(n)
	var merges [][2]*yaml.Node
	own := out[:0]
	for _, kv := range out {
		if kv[0].Kind == yaml.ScalarNode && kv[0].Tag == "!!merge" {
			merges = append(merges, kv)
		} else {
			own = append(own, kv)
		}
	}
	if len(merges) == 0 {
		return own, nil
	}
	have := make(map[string]bool, len(own))
	for _, kv := range own {
		have[kv[0].Value] = true
	}
	for _, m := range merges {
		v := resolve(m[1])
		sources := []*yaml.Node{v}
		if v.Kind == yaml.SequenceNode {
			sources = v.Content
		}
		for _, src := range sources {
			src = resolve(src)
			if src.Kind != yaml.MappingNode {
				return nil, fmt.Errorf("line %d: a merge (<<) takes a mapping or a list of mappings, got %s", src.Line, Describe(src))
			}
			brought, err := pairs(src, budget)
			if err != nil {
				return nil, err
			}
			if *budget -= len(brought); *budget < 0 {
				return nil, fmt.Errorf("the merges (<<) bring more than %d keys", MaxMerged)
			}
			for _, kv := range brought {
				if !have[kv[0].Value] {
					have[kv[0].Value] = true
					own = append(own, kv)
				}
			}
		}
	}
	return own, nil
}

func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}
