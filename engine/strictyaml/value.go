package strictyaml

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/plugins/abi/jsonvalue"
)

// Values whose type is left open (an expected output, a case's stdin, a
// plugin's config) are built here from the node tree rather than by
// yaml.v3's decoding into an interface, which makes every number an int or
// a float64: 187.0 became 187, and an integer beyond 2^53 (an id, a
// checksum) became the nearest float, so an expected
// 12345678901234567890123 matched an output of 12345678901234567890124.
// A number keeps the text its author wrote instead, as a json.Number: the
// engine's model of a JSON value (jsonvalue), which the checks compare
// exactly and the journal and reports write back as written.

// JSONValue builds the value of node as map[string]any, []any,
// json.Number, string, bool or nil (and, for .inf and .nan, which JSON
// has no form for, a float64 infinity or NaN; a date is its text). A
// mapping's keys are their text; merge keys (<<) are applied;
// aliases are expanded within a budget, so a few lines cannot expand
// into billions of values.
func JSONValue(node *yaml.Node) (any, error) {
	b := valueBuilder{budget: AliasBudget(node)}
	return b.value(node, 0)
}

// DocumentValue is a whole YAML document's value as JSONValue builds it
// (nil for an empty document), for files that hold one value rather than
// wasmeval's keys (an expected_output.yaml). An error says what is wrong
// with the document; line is where, when that is known, else 0.
func DocumentValue(data []byte) (v any, line int, err error) {
	root, derr := parse(data)
	if derr != nil {
		return nil, derr.Line, errors.New(derr.Msg)
	}
	if root == nil {
		return nil, 0, nil
	}
	v, err = JSONValue(root)
	if err != nil {
		msg := err.Error()
		if _, serr := fmt.Sscanf(msg, "line %d: ", &line); serr == nil {
			msg = strings.TrimPrefix(msg, fmt.Sprintf("line %d: ", line))
		}
		return nil, line, errors.New(msg)
	}
	return v, 0, nil
}

// AliasBudget is how many values whatever walks node may build, its
// aliases expanded (JSONValue, a case's input file written as JSON): the
// node's own size, and minAliasBudget more. The walk charges each value it
// builds and stops past the budget, which only expanding aliases can
// reach, as yaml.v3 stops a document that repeats its anchors too often.
func AliasBudget(node *yaml.Node) int { return size(node) + minAliasBudget }

const minAliasBudget = 100_000

type valueBuilder struct {
	budget int
}

func (b *valueBuilder) value(n *yaml.Node, depth int) (any, error) {
	if depth > jsonvalue.MaxDepth {
		return nil, fmt.Errorf("line %d: nested more than %d levels deep", n.Line, jsonvalue.MaxDepth)
	}
	if b.budget--; b.budget < 0 {
		return nil, fmt.Errorf("line %d: the document expands its aliases into too many values", n.Line)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return b.value(n.Content[0], depth)
	case yaml.AliasNode:
		return b.value(n.Alias, depth+1)
	case yaml.SequenceNode:
		list := make([]any, len(n.Content))
		for i, c := range n.Content {
			v, err := b.value(c, depth+1)
			if err != nil {
				return nil, err
			}
			list[i] = v
		}
		return list, nil
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		if err := b.mapping(n, m, depth); err != nil {
			return nil, err
		}
		return m, nil
	}
	return scalar(n)
}

// mapping adds n's members to m: its own keys, then what its merge keys
// bring that it does not have (YAML's merge: the mapping's own keys win,
// and of several merged mappings the first that has a key).
func (b *valueBuilder) mapping(n *yaml.Node, m map[string]any, depth int) error {
	own := map[string]bool{}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			merges = append(merges, v)
			continue
		}
		key, err := keyText(k)
		if err != nil {
			return err
		}
		if own[key] {
			return fmt.Errorf("line %d: mapping key %q already defined", k.Line, key)
		}
		own[key] = true
		val, err := b.value(v, depth+1)
		if err != nil {
			return err
		}
		m[key] = val
	}
	for _, v := range merges {
		sources := []*yaml.Node{v}
		if v.Kind == yaml.SequenceNode {
			sources = v.Content
		}
		for _, src := range sources {
			merged, err := b.value(src, depth+1)
			if err != nil {
				return err
			}
			mm, ok := merged.(map[string]any)
			if !ok {
				return fmt.Errorf("line %d: a merge (<<) takes a mapping or a list of mappings", src.Line)
			}
			for k, x := range mm {
				if _, ok := m[k]; !ok {
					m[k] = x
				}
			}
		}
	}
	return nil
}

// keyText is a mapping key as text: the scalar's text.
func keyText(k *yaml.Node) (string, error) {
	k = Resolve(k)
	if k.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("line %d: a key must be text, got %s", k.Line, Describe(k))
	}
	// The key as written, whatever YAML would read it as: ~ is "~" (not
	// Go's "<nil>"), 0x1F "0x1F", a date its text; the same key as
	// stdin and input files written as JSON get.
	return k.Value, nil
}

// scalar is a scalar's value: a number as its text when the text is a
// JSON number (numberText), else as yaml.v3 decodes it, a finite number
// then written as JSON writes it (0x1F is 31, .5 is 0.5).
func scalar(n *yaml.Node) (any, error) {
	if text, ok := numberText(n); ok {
		return json.Number(text), nil
	}
	switch n.Tag {
	case "!!str":
		return n.Value, nil // most scalars: no decoder needed
	case "!!null":
		return nil, nil
	case "!!timestamp":
		// A date is the text its author wrote (2024-01-01), as it is in
		// arguments and env, not yaml.v3's time.Time, which printed as
		// "2024-01-01 00:00:00 +0000 UTC" or "2024-01-01T00:00:00Z".
		return n.Value, nil
	}
	var x any
	if err := n.Decode(&x); err != nil {
		return nil, err
	}
	switch v := x.(type) {
	case int:
		return json.Number(strconv.Itoa(v)), nil
	case int64:
		return json.Number(strconv.FormatInt(v, 10)), nil
	case uint64:
		return json.Number(strconv.FormatUint(v, 10)), nil
	case float64:
		if !math.IsInf(v, 0) && !math.IsNaN(v) {
			return json.Number(strconv.FormatFloat(v, 'g', -1, 64)), nil
		}
	}
	return x, nil
}

// size counts the nodes under node, itself included (an alias once).
func size(n *yaml.Node) int {
	s := 1
	for _, c := range n.Content {
		s += size(c)
	}
	return s
}

// numberText is the JSON number a scalar writes: its text when YAML reads
// it as a number, without the leading + and the _ between digits YAML
// allows (+12_345.0 is 12345.0); and the text of a plain scalar YAML
// leaves a string only because no float64 holds it (1e999, which a JSON
// document's number keeps). ok is false for anything else: a quoted or
// explicitly tagged string stays a string.
func numberText(n *yaml.Node) (string, bool) {
	text := n.Value
	switch {
	case n.Tag == "!!int" || n.Tag == "!!float":
		text = strings.ReplaceAll(strings.TrimPrefix(text, "+"), "_", "")
	case n.Tag == "!!str" && n.Style&(yaml.TaggedStyle|yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0:
	default:
		return "", false
	}
	if text == "" || !(text[0] == '-' || text[0] >= '0' && text[0] <= '9') || !jsonvalue.ValidText(text) {
		return "", false
	}
	return text, true
}

// NodeOf is v as a YAML node, as yaml.v3 encodes it, but with a
// json.Number a number scalar of its text (yaml.v3 writes a json.Number,
// a string type, as a quoted string): the inverse of JSONValue, for
// values decoded by it and decoded again as YAML (a group's
// case_defaults).
func NodeOf(v any) (*yaml.Node, error) {
	switch t := v.(type) {
	case json.Number:
		tag := "!!int"
		if strings.ContainsAny(string(t), ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: string(t)}, nil
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, k := range slices.Sorted(maps.Keys(t)) {
			val, err := NodeOf(t[k])
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}, val)
		}
		return n, nil
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, x := range t {
			val, err := NodeOf(x)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, val)
		}
		return n, nil
	}
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return nil, err
	}
	return &n, nil
}
