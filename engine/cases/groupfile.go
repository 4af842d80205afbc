package cases

import (
	"fmt"
	"path/filepath"

	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/strictyaml"
)

// groupFileExts are the extensions a group file may have.
var groupFileExts = []string{".yaml", ".yml", ".json"}

// findGroupFile returns the group's file (<checkpoint>/<group>.yaml|.yml|.json)
// if there is one; one that leads out of the problem is an error.
func (gc *groupCtx) findGroupFile() (string, error) {
	for _, ext := range groupFileExts {
		p := filepath.Join(gc.in.CheckpointDir, gc.in.CaseGroup+ext)
		st, err := gc.exists(p)
		if err != nil {
			return "", fmt.Errorf("%s: group file: %w", gc.where(), err)
		}
		if st != nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", nil
}

// openGroupFile parses a group file — a mapping case name → case — and
// returns a stream over its entries in run order. Each entry holds the
// case keys directly or as {order, input: {...}, expected: {...}}.
func (gc *groupCtx) openGroupFile(file string) (Stream, error) {
	var errs diag.List
	root, ok := gc.parse(file, &errs)
	if !ok {
		return nil, errs.Err()
	}
	if root.Kind != yaml.MappingNode {
		errs.Add(file, "", root.Line, "expected a mapping of case name → case, got %s", strictyaml.Describe(root))
		return nil, errs.Err()
	}
	nodes := map[string]*yaml.Node{}
	var entries []entry
	pairs, err := strictyaml.Pairs(root)
	if err != nil {
		line, msg := 0, err.Error()
		if me, ok := err.(*strictyaml.MergeError); ok { // Pairs' errors are
			line, msg = me.Line, me.Msg
		}
		errs.Add(file, "<<", line, "%s", msg)
		return nil, errs.Err()
	}
	for _, kv := range pairs {
		name := kv[0].Value
		if kv[0].Kind != yaml.ScalarNode {
			errs.Add(file, "", kv[0].Line, "a case name must be text, got %s", strictyaml.Describe(kv[0]))
			continue
		}
		if _, dup := nodes[name]; dup {
			errs.Add(file, name, kv[0].Line, "case %q is given twice", name)
			continue
		}
		if err := problem.CheckName(name); err != nil {
			// The id is part of the case's key: group g's case a/b would
			// share one with group g/a's case b.
			errs.Add(file, name, kv[0].Line, "case %v", err)
			continue
		}
		nodes[name] = kv[1]
		entries = append(entries, entry{name: name, order: orderOf(kv[1])})
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, gc.declared(fmt.Sprintf("%s has no cases: its group file %s maps no case name to a case", gc.where(), file))
	}
	entries, err = gc.ordered(entries)
	if err != nil {
		return nil, err
	}
	load := func(name string) (*Case, error) {
		var errs diag.List
		d := &strictyaml.Decoder{File: file, Errs: &errs}
		src := source{id: name, file: file, node: nodes[name], path: name}
		c := gc.build(decodeRaw(d, src), d, src, nil)
		if err := errs.Err(); err != nil {
			return nil, err
		}
		return c, nil
	}
	return &listStream{entries: entries, load: load}, nil
}
