package strictyaml

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// A parsed document is checked for two things its aliases can do before
// anything walks it (checkAliases):
//
//   - name a value they are inside (&a [*a]): expanded, it has no end;
//   - expand the document far beyond its own size. Every walk of a
//     value expands its aliases, so each *big in a file costs as much as
//     the value &big names, every time the file is read, and again in
//     whatever the value becomes: files written into workspaces, the
//     journal, a plugin's input. A file of 20,000 cases that each give
//     *big as their input expands its 600 KB into billions of values;
//     one megabyte string named by a few hundred cases, into gigabytes.
//
// So a document's size is measured in bytes of values (each value counts
// its text and one byte more, so an empty one counts too), and with its
// aliases expanded it may be at most MaxExpanded, or ExpansionFactor
// times its own when that is more. Defaults merged into each of 100,000
// cases stay well within it, as does a large value named a few times;
// what is refused is repetition the file does not pay for in its own
// size. yaml.v3 bounds its own decoding into Go values the same way (by
// the share of values that come from aliases); the engine walks node
// trees, where it does not apply. Each value is bounded on its own as
// well (AliasBudget).

// MaxExpanded is the size, in bytes of values, that a document may expand
// into whatever its own size.
const MaxExpanded = 4 << 20

// ExpansionFactor is how many times its own size a document may expand
// into, when that is more than MaxExpanded.
const ExpansionFactor = 10

// docError is a document refused, at the line concerned (0 when not
// known): malformed, or for its aliases.
type docError struct {
	Line int
	Msg  string
}

func (e *docError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// checkAliases refuses a document (or any node) whose aliases name a
// value they are inside or expand it past its limit (see above); nil when
// neither.
func checkAliases(doc *yaml.Node) *docError {
	if a := selfAlias(doc, map[*yaml.Node]bool{}); a != nil {
		return &docError{a.Line, fmt.Sprintf("the alias *%s is inside the value &%s names: a value cannot contain itself", a.Value, a.Value)}
	}
	own := ownWeight(doc)
	limit := max(MaxExpanded, ExpansionFactor*own)
	e := expansion{limit: limit, sizes: map[*yaml.Node]int{}}
	if a := e.over(doc); a != nil {
		return &docError{a.Line, fmt.Sprintf("the alias *%s takes the file past %d bytes of values once its aliases are expanded "+
			"(the file itself has %d): each alias repeats the whole value its anchor names, every time the file is read; "+
			"repeat large values less often, or give them once in a file of their own", a.Value, limit, own)}
	}
	return nil
}

// Parse parses a YAML (or JSON) document and returns its root with the
// checks every walk relies on made (checkAliases), or an error naming the
// line; nil and no error for an empty document. For reading a file
// quickly (one key of it) where ParseBytes' diagnostics are not wanted.
func Parse(data []byte) (*yaml.Node, error) {
	root, err := parse(data)
	if err != nil {
		return nil, err
	}
	return root, nil
}

// parse is what Parse, ParseBytes and DocumentValue share: the document's
// root (nil when it is empty), or why it is refused.
func parse(data []byte) (*yaml.Node, *docError) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line, msg := yamlErrorLine(err, data)
		return nil, &docError{line, "malformed YAML: " + msg}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	if err := checkAliases(&doc); err != nil {
		return nil, err
	}
	return doc.Content[0], nil
}

// selfAlias is the first alias in n that names a value it is inside
// (&a [*a], or a mapping that merges itself: &a {<<: *a}), or nil.
// YAML's parser accepts one; expanded, it has no end, so a document
// with one is refused before anything walks it. above holds n's
// ancestors; aliases are not followed (their values are walked where
// their anchors are).
func selfAlias(n *yaml.Node, above map[*yaml.Node]bool) *yaml.Node {
	if n.Kind == yaml.AliasNode {
		if above[n.Alias] {
			return n
		}
		return nil
	}
	if len(n.Content) == 0 {
		return nil
	}
	above[n] = true
	defer delete(above, n)
	for _, c := range n.Content {
		if a := selfAlias(c, above); a != nil {
			return a
		}
	}
	return nil
}

// weight is what one node counts for in a document's size: its text
// (a scalar's value, an alias's name) and one byte more.
func weight(n *yaml.Node) int { return 1 + len(n.Value) }

// ownWeight is n's size as written: its aliases count as themselves.
func ownWeight(n *yaml.Node) int {
	w := weight(n)
	for _, c := range n.Content {
		w += ownWeight(c)
	}
	return w
}

// expansion measures a document with its aliases expanded, in document
// order, and stops at the first alias that takes it past limit. An
// alias's value is measured once (sizes), however often it is named, so
// measuring costs the document's own size, not its expansion. It needs a
// document without self-containing aliases (selfAlias).
type expansion struct {
	limit int
	count int
	sizes map[*yaml.Node]int // an anchored value's size, aliases expanded, at most limit+1
}

// over adds n to the count and returns the alias that takes it past the
// limit, or nil.
func (e *expansion) over(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return nil
		}
		if e.count += e.size(n.Alias); e.count > e.limit {
			return n
		}
		return nil
	}
	e.count += weight(n) // a document's own values cannot take it past the limit: it is at least ExpansionFactor times its size
	for _, c := range n.Content {
		if a := e.over(c); a != nil {
			return a
		}
	}
	return nil
}

// size is n's size with its aliases expanded, at most limit+1.
func (e *expansion) size(n *yaml.Node) int {
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return weight(n)
		}
		return e.size(n.Alias)
	}
	if s, ok := e.sizes[n]; ok {
		return s
	}
	s := weight(n)
	for _, c := range n.Content {
		if s += e.size(c); s > e.limit {
			s = e.limit + 1
			break
		}
	}
	if n.Anchor != "" {
		e.sizes[n] = s
	}
	return s
}
