package cases

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/strictyaml"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// loadArgsDir loads an ARGS/EXPECTED case directory: ARGS holds the
// command-line arguments (split shell-style), EXPECTED the expected output,
// optional STDIN the standard input, and optional META.yaml any other case
// key (order, env, timeout, expected status…). Every other file is an input
// file.
func (gc *groupCtx) loadArgsDir(name string) (*Case, error) {
	dir := filepath.Join(gc.groupDir(), name)
	var errs diag.List
	d := &strictyaml.Decoder{Errs: &errs}
	meta := caseFile(dir, []string{"META.yaml", "META.yml"}, d)
	d.File = meta
	src := source{id: name, file: meta, node: parseCaseFile(meta, d)}
	if src.file == "" {
		src.file = dir
	}
	rc := decodeRaw(d, src)

	argsFile := filepath.Join(dir, "ARGS")
	if data, err := os.ReadFile(argsFile); err != nil {
		errs.Add(argsFile, "", 0, "cannot read: %v", diag.UnwrapPathError(err))
	} else if rc.Arguments != nil {
		errs.Add(meta, "arguments", 0, "arguments are given both in ARGS and in META.yaml; keep one")
	} else {
		rc.Arguments = &rawArgs{text: strings.TrimSpace(string(data)), isStr: true}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "STDIN")); err == nil {
		if rc.Stdin != nil {
			errs.Add(meta, "stdin", 0, "stdin is given both in STDIN and in META.yaml; keep one")
		}
		s := string(data)
		rc.Stdin = &s
	}
	fromFiles := map[string]any{}
	expFile := filepath.Join(dir, "EXPECTED")
	if data, err := os.ReadFile(expFile); err == nil {
		fromFiles["output"] = verify.FileValue(data)
	} else if !os.IsNotExist(err) {
		errs.Add(expFile, "", 0, "cannot read: %v", diag.UnwrapPathError(err))
	}
	skip := map[string]bool{"ARGS": true, "EXPECTED": true, "STDIN": true, "META.yaml": true, "META.yml": true}
	withInputs := rc.InputFilesFromDir == nil || *rc.InputFilesFromDir
	contents := readCaseDir(dir, skip, withInputs, d)
	for k, v := range contents.expected {
		fromFiles[k] = v
	}
	rc.Expected = mergeExpected(rc.Expected, fromFiles, src.file, d, "")
	c := build(&gc.in, gc.defaults, rc, d, src, contents.inputs)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return c, nil
}

// isArgsDir tells the auto loader which layout a case directory uses.
func isArgsDir(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "ARGS"))
	return err == nil
}

// metaOrder reads the order of an ARGS/EXPECTED case from META.yaml.
func metaOrder(dir string) *int {
	for _, n := range []string{"META.yaml", "META.yml"} {
		if o := peekOrder(filepath.Join(dir, n)); o != nil {
			return o
		}
	}
	return nil
}

// caseDirOrder reads the order of a case directory from its case file.
func caseDirOrder(dir string) *int {
	for _, n := range caseFileNames {
		if o := peekOrder(filepath.Join(dir, n)); o != nil {
			return o
		}
	}
	return nil
}
