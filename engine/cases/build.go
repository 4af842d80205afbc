package cases

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/shellwords"
	"github.com/wasmeval/wasmeval/engine/strictyaml"
)

// source says where a case was written, for decoding and diagnostics.
type source struct {
	id   string
	file string     // the file holding the case's keys ("" when none)
	node *yaml.Node // the case's mapping node (nil when the case has no file)
	path string     // key path of the case inside file ("" for a file per case)
}

// decodeRaw decodes a case mapping strictly, folding an `input` block up.
func decodeRaw(d *strictyaml.Decoder, src source) *rawCase {
	rc := &rawCase{}
	if src.node != nil {
		d.StructValue(src.node, src.path, reflectValue(rc))
		rc.absorb(d, src.node, src.path)
	}
	return rc
}

// build resolves a raw case against its group: defaults merged under it,
// environment and timeout inherited, input files serialised, paths checked.
// dirFiles are input files found next to the case (written first, so files
// the case declares win).
func build(g *GroupInput, defaults *rawCase, rc *rawCase, d *strictyaml.Decoder, src source, dirFiles []InputFile) *Case {
	ownCompare := rc.Compare
	rc.withDefaults(defaults)
	c := &Case{
		ID: src.id, Checkpoint: g.Checkpoint, Group: g.Group, GroupType: g.GroupType,
		OriginalCheckpoint: g.OriginalCheckpoint, OriginalGroup: g.OriginalGroup,
		Stdin: rc.Stdin.value(), Env: problem.MergeEnv(g.Env, rc.Env), Timeout: g.Timeout,
		Expected: rc.Expected, Checks: g.Checks, Source: src.file, SourceKey: src.path,
	}
	if src.node != nil && src.path != "" {
		// One case among others in its file: its line says which.
		c.SourceLine = src.node.Line
	}
	at := func(key string) string { return diag.JoinPath(src.path, key) }
	if a := rc.Arguments; a != nil {
		if a.isStr {
			words, err := splitArgs(a.text, g.ArgumentSplitting)
			switch {
			case err != nil && a.file != "":
				d.Errs.Add(a.file, "", 0, "cannot split %q into words: %v", a.text, err)
			case err != nil:
				d.Errorf(a.node, at("arguments"), "cannot split %q into words: %v", a.text, err)
			}
			c.Arguments = words
		} else {
			c.Arguments = a.words
		}
	}
	if c.Arguments == nil {
		c.Arguments = []string{}
	}
	c.InputFiles = append(c.InputFiles, dirFiles...)
	if rc.InputFiles != nil {
		c.InputFiles = append(c.InputFiles, rc.InputFiles.materialise(d)...)
	}
	if err := checkInputPaths(c.InputFiles); err != nil {
		d.Errorf(src.node, at("input_files"), "%v", err)
	}
	for i, a := range c.Arguments {
		if strings.ContainsRune(a, 0) {
			d.Errorf(src.node, indexPath(at("arguments"), i), "an argument cannot hold a NUL byte (no process can be given one), got %q", a)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(rc.Env)) {
		if err := problem.CheckEnvVar(k, rc.Env[k]); err != nil {
			at := lookup(src.node, "env", k)
			if at == nil {
				at = lookup(src.node, "input", "env", k)
			}
			d.Errorf(at, diag.JoinPath(src.path, "env."+k), "%v", err)
		}
	}
	c.TrackedFiles = append(append([]string{}, g.TrackedFiles...), rc.TrackedFiles...)
	for i, pattern := range rc.TrackedFiles {
		if err := CheckRelPath(pattern); err != nil {
			d.Errorf(src.node, indexPath(at("tracked_files"), i), "%v", err)
		}
	}
	if rc.Timeout != nil {
		if *rc.Timeout <= 0 {
			d.Errorf(src.node, at("timeout"), "expected a positive number of seconds, got %v", *rc.Timeout)
		} else {
			c.Timeout = problem.Seconds(*rc.Timeout)
		}
	}
	if rc.Reset != nil {
		c.Reset = *rc.Reset
	}
	if rc.Request != nil {
		c.Request = rc.Request.resolve(d, at("request"))
	}
	if rc.Steps != nil {
		c.Steps = rc.Steps.steps
	}
	if rc.Instruction != nil {
		c.Task = &Task{Name: c.ID, Instruction: *rc.Instruction, Metadata: rc.Metadata, Category: rc.Category, Tags: rc.Tags}
	}
	if rc.Checks != nil {
		c.Checks = rc.Checks
	}
	if checks := compareChecks(d, rc.Compare, ownCompare, rc.Expected, rc.Checks != nil || len(g.Checks) > 0, src.node, src.path); checks != nil {
		c.Checks = checks
	}
	if rc.Description != "" || len(rc.Tags) > 0 || len(rc.Extra) > 0 {
		c.Extra = map[string]any{}
		for k, v := range rc.Extra {
			c.Extra[k] = v
		}
		if rc.Description != "" {
			c.Extra["description"] = rc.Description
		}
		if len(rc.Tags) > 0 {
			c.Extra["tags"] = rc.Tags
		}
	}
	return c
}

// SplitArgsTwice splits s as shellwords.Split does, joins the words with single
// spaces and splits the result again: what SlopCodeBench's reference
// harness does to a string of arguments. Quotes therefore protect only
// from the first split: `--format "%Y-%m-%d %H:%M:%S"` is three words
// (--format, %Y-%m-%d, %H:%M:%S), empty words vanish, and quotes inside
// quotes (`"'a b'"`) make one word of what they enclose. A word whose
// quotes no longer balance after the first split (`"it's"`) cannot be
// split a second time and is an error.
func SplitArgsTwice(s string) ([]string, error) {
	words, err := shellwords.Split(s)
	if err != nil {
		return nil, err
	}
	words, err = shellwords.Split(strings.Join(words, " "))
	if err != nil {
		return nil, fmt.Errorf("splitting a second time (argument_splitting: %s): %w", problem.SplitTwice, err)
	}
	return words, nil
}

// splitArgs splits s as the problem's argument_splitting says.
func splitArgs(s, mode string) ([]string, error) {
	if mode == problem.SplitTwice {
		return SplitArgsTwice(s)
	}
	return shellwords.Split(s)
}

// CaseError is one case that could not be loaded. The stream has moved past
// it, so a caller can record the failure and go on with the next case.
type CaseError struct {
	ID  string
	Err error
}

func (e *CaseError) Error() string { return fmt.Sprintf("case %s: %v", e.ID, e.Err) }
func (e *CaseError) Unwrap() error { return e.Err }

func reflectValue(p any) reflect.Value { return reflect.ValueOf(p).Elem() }

func indexPath(p string, i int) string { return diag.IndexPath(p, i) }

// build checks what the case itself declares — expected values' types and
// the problem files its checks read — and resolves it against the group.
// The group's case_defaults were checked once, when the group was opened.
func (gc *groupCtx) build(rc *rawCase, d *strictyaml.Decoder, src source, dirFiles []InputFile) *Case {
	reportExpected(d, rc.Expected, src.node, src.path)
	gc.checkFiles(d, rc.Checks, src.node, src.path)
	return build(&gc.in, gc.defaults, rc, d, src, dirFiles)
}

// reportExpected reports expected values of the wrong type (CheckExpected)
// at the line that holds them; values read from expected_* files have no
// line, and are reported at the case.
func reportExpected(d *strictyaml.Decoder, expected map[string]any, node *yaml.Node, path string) {
	for _, e := range CheckExpected(expected) {
		at := lookup(node, "expected", e.Key, e.Entry)
		if at == nil {
			at = lookup(node, "input", "expected", e.Key, e.Entry)
		}
		d.Errorf(at, diag.JoinPath(path, "expected."+e.Path()), "%s", e.Msg)
	}
}

// checkFiles checks the problem files a case's checks read at run time
// (expected_file, schema_file): inside the problem, relative to it.
func (gc *groupCtx) checkFiles(d *strictyaml.Decoder, checks []problem.CheckSpec, node *yaml.Node, path string) {
	for i, spec := range checks {
		for _, f := range [][2]string{{"expected_file", spec.ExpectedFile}, {"schema_file", spec.SchemaFile}} {
			if f[1] == "" {
				continue
			}
			if err := problem.CheckProblemFile(gc.files, f[1]); err != nil {
				key := indexPath(diag.JoinPath(path, "checks"), i) + "." + f[0]
				d.Errorf(lookupItem(node, i), key, "%v", err)
			}
		}
	}
}

// lookup descends a mapping by keys (empty keys are skipped) and returns
// the deepest node found: the most precise line there is. Nil when even
// the first key is absent.
func lookup(n *yaml.Node, keys ...string) *yaml.Node {
	var found *yaml.Node
	for _, k := range keys {
		if k == "" {
			continue
		}
		if n == nil || n.Kind != yaml.MappingNode {
			return found
		}
		var next *yaml.Node
		for _, kv := range strictyaml.MappingPairs(n) {
			if kv[0].Value == k {
				found, next = kv[0], kv[1]
				break
			}
		}
		if next == nil {
			return found
		}
		n = next
	}
	return found
}

// lookupItem is the i-th entry of the case's checks list (or the case).
func lookupItem(n *yaml.Node, i int) *yaml.Node {
	for _, under := range [][]string{{"checks"}, {"input", "checks"}} {
		key := lookup(n, under...)
		if key == nil {
			continue
		}
		list := valueOf(n, under...)
		if list != nil && list.Kind == yaml.SequenceNode && i < len(list.Content) {
			return list.Content[i]
		}
		return key
	}
	return n
}

// valueOf is the value node at keys, or nil.
func valueOf(n *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for _, kv := range strictyaml.MappingPairs(n) {
			if kv[0].Value == k {
				next = kv[1]
			}
		}
		n = next
	}
	return n
}
