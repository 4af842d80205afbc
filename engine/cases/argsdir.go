package cases

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/strictyaml"
)

// loadArgsDir loads an ARGS/EXPECTED case directory: ARGS holds the
// command-line arguments (split shell-style), EXPECTED the expected output,
// optional STDIN the standard input, and optional META.yaml any other case
// key (order, env, timeout, expected status…). Every other file is an input
// file.
func (gc *groupCtx) loadArgsDir(name string) (*Case, error) {
	dir, err := gc.caseDir(name)
	if err != nil {
		return nil, err
	}
	var errs diag.List
	d := &strictyaml.Decoder{Errs: &errs}
	meta := gc.caseFile(dir, []string{"META.yaml", "META.yml"}, d)
	d.File = meta
	src := source{id: name, file: meta, node: gc.parseCaseFile(meta, d)}
	if src.file == "" {
		src.file = dir
	}
	rc := decodeRaw(d, src)

	argsFile := filepath.Join(dir, "ARGS")
	if data, err := gc.files.ReadFile(argsFile); err != nil {
		errs.Add(argsFile, "", 0, "cannot read: %v", diag.UnwrapPathError(err))
	} else if rc.Arguments != nil {
		errs.Add(meta, "arguments", 0, "arguments are given both in ARGS and in META.yaml; keep one")
	} else {
		rc.Arguments = &rawArgs{text: strings.TrimSpace(string(data)), isStr: true}
	}
	stdinFile := filepath.Join(dir, "STDIN")
	if s, err := gc.readString(stdinFile); err == nil {
		if rc.Stdin != nil {
			errs.Add(meta, "stdin", 0, "stdin is given both in STDIN and in META.yaml; keep one")
		}
		rc.Stdin = &s
	} else if !errors.Is(err, fs.ErrNotExist) {
		errs.Add(stdinFile, "", 0, "cannot read: %v", diag.UnwrapPathError(err))
	}
	fromFiles := map[string]any{}
	expFile := filepath.Join(dir, "EXPECTED")
	if v, err := gc.readValue(expFile); err == nil {
		fromFiles["output"] = v
	} else if !errors.Is(err, fs.ErrNotExist) {
		errs.Add(expFile, "", 0, "cannot read: %v", diag.UnwrapPathError(err))
	}
	skip := map[string]bool{"ARGS": true, "EXPECTED": true, "STDIN": true, "META.yaml": true, "META.yml": true}
	withInputs := rc.InputFilesFromDir == nil || *rc.InputFilesFromDir
	contents := gc.readCaseDir(dir, skip, withInputs, d)
	for k, v := range contents.expected {
		fromFiles[k] = v
	}
	rc.Expected = mergeExpected(rc.Expected, fromFiles, src.file, d, "")
	c := gc.build(rc, d, src, contents.inputs)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return c, nil
}

// isArgsDir tells the auto loader which layout a case directory uses.
func (gc *groupCtx) isArgsDir(dir string) bool {
	_, err := gc.files.Stat(filepath.Join(dir, "ARGS"))
	return err == nil
}

// metaOrder reads the order of an ARGS/EXPECTED case from META.yaml.
func (gc *groupCtx) metaOrder(dir string) *int {
	for _, n := range []string{"META.yaml", "META.yml"} {
		if o := gc.peekOrder(filepath.Join(dir, n)); o != nil {
			return o
		}
	}
	return nil
}

// caseDirOrder reads the order of a case directory from its case file.
func (gc *groupCtx) caseDirOrder(dir string) *int {
	for _, n := range caseFileNames {
		if o := gc.peekOrder(filepath.Join(dir, n)); o != nil {
			return o
		}
	}
	return nil
}
