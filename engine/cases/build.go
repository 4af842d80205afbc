package cases

import (
	"fmt"
	"reflect"
	"time"

	"gopkg.in/yaml.v3"
	"mvdan.cc/sh/v3/shell"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/problem"
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
	rc.withDefaults(defaults)
	c := &Case{
		ID: src.id, Checkpoint: g.Checkpoint, Group: g.Group, GroupType: g.GroupType,
		OriginalCheckpoint: g.OriginalCheckpoint, OriginalGroup: g.OriginalGroup,
		Stdin: rc.Stdin, Env: problem.MergeEnv(g.Env, rc.Env), Timeout: g.Timeout,
		Expected: rc.Expected, Checks: g.Checks, Source: src.file,
	}
	at := func(key string) string { return diag.JoinPath(src.path, key) }
	if a := rc.Arguments; a != nil {
		if a.isStr {
			words, err := SplitArgs(a.text)
			if err != nil {
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
			c.Timeout = time.Duration(*rc.Timeout * float64(time.Second))
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
	if rc.Checks != nil {
		c.Checks = rc.Checks
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

// SplitArgs splits a string into words with POSIX shell quoting rules,
// without expanding variables or globs: `a "b c"` is two words, `$HOME`
// stays as written.
func SplitArgs(s string) ([]string, error) {
	return shell.Fields(s, func(name string) string { return "$" + name })
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
