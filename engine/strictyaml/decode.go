// Package strictyaml decodes YAML into Go values strictly and collects every
// problem it finds — unknown keys, wrong types, duplicate keys — as
// diagnostics naming the file, the key path and the line, instead of
// stopping at the first. Problem configs and case files both use it, so
// `wasmeval validate` can report everything at once.
package strictyaml

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
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

// ValueError records err, from building node's value (JSONValue), at
// node and path; the line the error names is not said twice.
func (d *Decoder) ValueError(node *yaml.Node, path string, err error) {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, fmt.Sprintf("line %d: ", node.Line)); ok {
		msg = rest
	}
	d.Errorf(node, path, "%s", msg)
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
//
// A file named .json is held to JSON first: read as YAML, 017 would be
// the octal 15, 0x1F 31 and NaN the text "NaN", none of which a JSON
// file can mean.
func ParseBytes(file string, data []byte, errs *diag.List) (*yaml.Node, bool) {
	if strings.EqualFold(filepath.Ext(file), ".json") {
		if line, err := checkJSON(data); err != nil {
			errs.Add(file, "", line, "malformed JSON: %v", err)
			return nil, false
		}
	}
	root, err := parse(data)
	if err != nil {
		errs.Add(file, "", err.Line, "%s", err.Msg)
		return nil, false
	}
	if root == nil {
		errs.Add(file, "", 0, "file is empty; expected a mapping")
		return nil, false
	}
	return root, true
}

// checkJSON reports whether data (after a byte order mark) is one JSON
// document, and if not the line of the error.
func checkJSON(data []byte) (int, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	err := json.Unmarshal(data, new(json.RawMessage))
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		before := data[:min(int(syntax.Offset), len(data))]
		if len(before) == len(data) { // the input ended early: its last line
			before = bytes.TrimRight(before, " \t\r\n")
		}
		return 1 + bytes.Count(before, []byte("\n")), err
	}
	return 0, err
}

// yamlErrorLine pulls "line N" out of yaml.v3's error text.
func yamlErrorLine(err error, data []byte) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var line int
	if i := strings.Index(msg, "line "); i >= 0 {
		fmt.Sscanf(msg[i:], "line %d", &line)
	}
	if line == 0 {
		// yaml.v3 names no line for an alias whose anchor is not
		// defined (above it): the first line that uses it is the one.
		if rest, ok := strings.CutPrefix(msg, "unknown anchor '"); ok {
			anchor, _, _ := strings.Cut(rest, "'")
			line = aliasLine(data, anchor)
		}
	}
	return line, msg
}

// aliasLine is the first line of data that writes the alias *name, or 0.
func aliasLine(data []byte, name string) int {
	for i, l := range strings.Split(string(data), "\n") {
		for rest := l; ; {
			j := strings.Index(rest, "*"+name)
			if j < 0 {
				break
			}
			end := rest[j+1+len(name):]
			if end == "" || strings.ContainsAny(end[:1], " ,]}:\t\r") {
				return i + 1
			}
			rest = rest[j+1:]
		}
	}
	return 0
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
			before := len(*d.Errs)
			d.Value(val, diag.JoinPath(path, k.Value), elem)
			if len(*d.Errs) == before {
				// A value that did not decode is left out, so what
				// checks the map later does not report it again as null.
				v.SetMapIndex(reflect.ValueOf(k.Value), elem)
			}
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
			d.ValueError(node, path, err)
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
			return
		}
		if (v.Kind() == reflect.Float64 || v.Kind() == reflect.Float32) && (math.IsNaN(v.Float()) || math.IsInf(v.Float(), 0)) {
			// A setting of .nan or .inf compares with nothing and has no
			// JSON form: the results that would record it could not be.
			v.SetFloat(0)
			d.Errorf(node, path, "expected a finite number, got %q", node.Value)
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

// pairs is node's pairs with its merges applied (Pairs), for decoding
// into a map or a struct; a merge it refuses, a key that is not text and
// a key given twice are reported at path and left out.
func (d *Decoder) pairs(node *yaml.Node, path string) [][2]*yaml.Node {
	all, err := Pairs(node)
	if err == nil {
		out := all[:0:0]
		seen := make(map[string]bool, len(all))
		for _, kv := range all {
			k := kv[0]
			switch badKey(k, seen) {
			case notText:
				d.Errorf(k, path, "a key must be text, got %s", Describe(k))
			case givenTwice:
				d.Errorf(k, diag.JoinPath(path, k.Value), "key given twice")
			default:
				out = append(out, kv)
			}
		}
		return out
	}
	var own [][2]*yaml.Node
	for _, kv := range ownPairs(node) {
		if isMerge(kv[0]) {
			// The line is said once: the merge's own, or the anchor's
			// where the value at fault is elsewhere.
			msg := err.Error()
			if me, ok := err.(*MergeError); ok && (me.Line == kv[0].Line || me.Line == 0) {
				msg = me.Msg
			}
			d.Errorf(kv[0], diag.JoinPath(path, "<<"), "%s", msg)
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
	for _, kv := range d.pairs(node, path) {
		k, val := kv[0], kv[1]
		kp := diag.JoinPath(path, k.Value)
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

// MappingPairs returns a mapping's key/value node pairs, aliases resolved
// and merge keys (<<) applied (see Pairs). A merge Pairs refuses is
// returned as it is written, key "<<", so a caller that refuses unknown
// keys refuses it; StructValue says why.
func MappingPairs(n *yaml.Node) [][2]*yaml.Node {
	out, err := Pairs(n)
	if err != nil {
		return ownPairs(n)
	}
	return out
}

// UniquePairs is Pairs for a mapping whose keys become data (a JSON
// object, a CSV header): a key that is not text or is given twice is an
// error too, not a key "" or one that silently replaces the other.
func UniquePairs(n *yaml.Node) ([][2]*yaml.Node, error) {
	out, err := Pairs(n)
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(out))
	for _, kv := range out {
		switch badKey(kv[0], seen) {
		case notText:
			return nil, fmt.Errorf("line %d: a key must be text, got %s", kv[0].Line, Describe(kv[0]))
		case givenTwice:
			return nil, fmt.Errorf("line %d: key %q given twice", kv[0].Line, kv[0].Value)
		}
	}
	return out, nil
}

// What can be wrong with a mapping's key where keys become names (of
// fields, of a JSON object's members): badKey's answers.
const (
	goodKey = iota
	notText
	givenTwice
)

// badKey says what is wrong with k as the next key of a mapping whose
// keys so far are seen, and adds a good one to seen.
func badKey(k *yaml.Node, seen map[string]bool) int {
	switch {
	case k.Kind != yaml.ScalarNode:
		return notText
	case seen[k.Value]:
		return givenTwice
	}
	seen[k.Value] = true
	return goodKey
}

// Items returns a sequence's items, aliases resolved.
func Items(n *yaml.Node) []*yaml.Node {
	out := make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		out[i] = Resolve(c)
	}
	return out
}

// Resolve is the node an alias names (n itself when it is none).
func Resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// MaxMerged bounds the work one mapping's merges take: the pairs they
// bring, a merged mapping's pairs counted each time it is merged, whether
// by the mapping or by a mapping it merges. Each merged mapping's own
// merges are applied once however often it is named, so mappings that
// merge each other several times over cost what they hold, not what
// naming them again and again would spell out; this bounds what is left,
// a mapping merged by very many others.
const MaxMerged = 100_000

// MergeError is a merge key (<<) Pairs refuses; Line is where the value
// at fault is (the merge's own line, or an anchor's elsewhere), 0 when
// no one place is.
type MergeError struct {
	Line int
	Msg  string
}

func (e *MergeError) Error() string {
	if e.Line == 0 {
		return e.Msg
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// Pairs returns a mapping's key/value node pairs with aliases resolved
// (a key or value written *a is the node &a names) and merge keys
// applied, as YAML's merge (and yaml.v3 decoding into Go values) reads
// them: the mapping's own keys win, and of several merged mappings
// (<<: [*a, *b]) the first that has a key. Merged keys take the place of
// the << that brings them, so keys keep the order they are read in. A
// merged mapping's own merges are applied first. A key a merge brings
// is the merged mapping's key node, so a message about it names the line
// it is written on. A merge that is not a mapping or a list of mappings,
// a merged mapping that gives a key twice, one that merges itself, and
// merges that bring more than MaxMerged pairs are errors (MergeError).
func Pairs(n *yaml.Node) ([][2]*yaml.Node, error) {
	m := merger{budget: MaxMerged}
	out, err := m.pairs(n, nil)
	if me, ok := err.(*MergeError); ok && me.Line == 0 {
		// The merges together spent the budget: the error is n's first
		// merge's.
		for _, kv := range ownPairs(n) {
			if isMerge(kv[0]) {
				me.Line = kv[0].Line
				break
			}
		}
	}
	return out, err
}

func ownPairs(n *yaml.Node) [][2]*yaml.Node {
	out := make([][2]*yaml.Node, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, [2]*yaml.Node{Resolve(n.Content[i]), Resolve(n.Content[i+1])})
	}
	return out
}

func isMerge(k *yaml.Node) bool { return k.Kind == yaml.ScalarNode && k.Tag == "!!merge" }

// merger applies the merges of one Pairs call.
type merger struct {
	budget int // the merged pairs still allowed
	// done holds the pairs of each mapping merged so far: a mapping
	// named again is not merged again.
	done map[*yaml.Node][][2]*yaml.Node
}

// pairs is Pairs, with within the mappings being merged into (a mapping
// that merges one of them merges itself).
func (m *merger) pairs(n *yaml.Node, within []*yaml.Node) ([][2]*yaml.Node, error) {
	own := ownPairs(n)
	merges := 0
	for _, kv := range own {
		if isMerge(kv[0]) {
			if merges++; merges > 1 {
				// PyYAML lets the last win, yaml.v3 refuses it: a key
				// given twice is refused here as any other.
				return nil, &MergeError{kv[0].Line, "the merge key (<<) is given twice: merge several mappings with <<: [*a, *b]"}
			}
		}
	}
	if merges == 0 {
		return own, nil
	}
	mine := make(map[string]bool, len(own))
	for _, kv := range own {
		if !isMerge(kv[0]) {
			mine[kv[0].Value] = true
		}
	}
	within = append(within, n)
	have := map[string]bool{}
	out := make([][2]*yaml.Node, 0, len(own))
	for _, kv := range own {
		if !isMerge(kv[0]) {
			out = append(out, kv)
			continue
		}
		sources := []*yaml.Node{kv[1]}
		if kv[1].Kind == yaml.SequenceNode {
			sources = Items(kv[1])
		}
		for _, src := range sources {
			if src.Kind != yaml.MappingNode {
				return nil, &MergeError{src.Line, "a merge (<<) takes a mapping or a list of mappings, got " + Describe(src)}
			}
			if slices.Contains(within, src) {
				return nil, &MergeError{kv[0].Line, "a mapping cannot merge itself"}
			}
			brought, err := m.merged(src, within)
			if err != nil {
				return nil, err
			}
			if m.budget -= len(brought); m.budget < 0 {
				// No line: the budget is spent by all the merges
				// together, and reported at the first (Pairs).
				return nil, &MergeError{0, fmt.Sprintf("the merges (<<) bring more than %d keys", MaxMerged)}
			}
			for _, b := range brought {
				key := b[0].Value
				if !mine[key] && !have[key] {
					have[key] = true
					out = append(out, b)
				}
			}
		}
	}
	return out, nil
}

// merged is the pairs src brings to a mapping that merges it: its own
// and its merges', each key once. They are worked out once per Pairs
// call, however often src is named.
func (m *merger) merged(src *yaml.Node, within []*yaml.Node) ([][2]*yaml.Node, error) {
	if p, ok := m.done[src]; ok {
		return p, nil
	}
	p, err := m.pairs(src, within)
	if err != nil {
		return nil, err
	}
	given := make(map[string]bool, len(p))
	for _, b := range p {
		key := b[0].Value
		if given[key] {
			return nil, &MergeError{b[0].Line, fmt.Sprintf("key %q given twice in a merged mapping", key)}
		}
		given[key] = true
	}
	if m.done == nil {
		m.done = map[*yaml.Node][][2]*yaml.Node{}
	}
	m.done[src] = p
	return p, nil
}
