package problem

import (
	"reflect"

	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/strictyaml"
)

// rawChecks is a `checks:` list that remembers where each entry was written,
// so a bad option can be reported with its line.
type rawChecks struct {
	set   bool
	items []CheckSpec
	lines []int
	paths []string
	// bad marks the entries that did not decode: they are reported once,
	// for what did not decode, and not validated further.
	bad []bool
}

func (c *rawChecks) DecodeNode(d *strictyaml.Decoder, n *yaml.Node, path string) {
	c.set = true
	if n.Kind != yaml.SequenceNode {
		d.Errorf(n, path, "expected a list of checks, got %s", strictyaml.Describe(n))
		return
	}
	for i, item := range strictyaml.Items(n) {
		var spec CheckSpec
		p := diag.IndexPath(path, i)
		before := len(*d.Errs)
		d.Value(item, p, reflectOf(&spec))
		c.bad = append(c.bad, len(*d.Errs) > before)
		c.items = append(c.items, spec)
		c.lines = append(c.lines, item.Line)
		c.paths = append(c.paths, p)
	}
}

// validate runs the caller's check validator over every entry.
func (c *rawChecks) validate(file string, fn func(CheckSpec) []string, errs *diag.List) {
	if fn == nil {
		return
	}
	for i, spec := range c.items {
		if c.bad[i] {
			continue
		}
		for _, msg := range fn(spec) {
			errs.Add(file, c.paths[i], c.lines[i], "%s", msg)
		}
	}
}

func reflectOf(p any) reflect.Value { return reflect.ValueOf(p).Elem() }

func pathIndex(path string, i int) string { return diag.IndexPath(path, i) }
