package cases

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/strictyaml"
	"github.com/wasmeval/wasmeval/plugins/abi/jsonvalue"
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
	meta := gc.caseFile(dir, metaNames, d)
	d.File = meta
	src := source{id: name, file: meta, node: gc.parseCaseFile(meta, d)}
	if src.file == "" {
		src.file = dir
	}
	rc := decodeRaw(d, src)

	argsFile := filepath.Join(dir, "ARGS")
	if data, err := gc.files.ReadFile(argsFile); err == nil {
		if rc.Arguments != nil {
			errs.Add(meta, "arguments", 0, "arguments are given both in ARGS and in META.yaml; keep one")
		}
		rc.Arguments = &rawArgs{text: strings.TrimSpace(withoutBOM(string(data))), isStr: true, file: argsFile}
	} else if !errors.Is(err, fs.ErrNotExist) {
		errs.Add(argsFile, "", 0, "cannot read: %v", diag.UnwrapPathError(err))
	}
	stdinFile := filepath.Join(dir, "STDIN")
	if s, err := gc.readString(stdinFile); err == nil {
		if rc.Stdin != nil {
			errs.Add(meta, "stdin", 0, "stdin is given both in STDIN and in META.yaml; keep one")
		}
		rc.Stdin = newStdin(s)
	} else if !errors.Is(err, fs.ErrNotExist) {
		errs.Add(stdinFile, "", 0, "cannot read: %v", diag.UnwrapPathError(err))
	}
	fromFiles := map[string]any{}
	expFiles := gc.present(dir, expectedNames, d)
	if len(expFiles) > 1 {
		errs.Add(dir, "", 0, "both %s and %s are present; keep one expected output", expFiles[0], expFiles[1])
	}
	if len(expFiles) > 0 {
		if v, jsonl, ok := gc.readExpectedOutput(filepath.Join(dir, expFiles[0]), d); ok {
			fromFiles["output"] = v
			if jsonl && rc.Compare["output"] == "" && rc.Checks == nil && len(gc.in.Checks) == 0 && (gc.defaults == nil || gc.defaults.Checks == nil) {
				// A list of records compares line by line (the default for
				// a structure would parse the output as one document).
				rc.Compare = mergeCompare(rc.Compare, map[string]string{"output": "jsonl"})
			}
		}
	}
	if meta == "" && len(expFiles) == 0 && !gc.isFile(argsFile) {
		errs.Add(dir, "", 0, "not an ARGS/EXPECTED case: expected ARGS, EXPECTED (or EXPECTED.json, EXPECTED.jsonl) or META.yaml in it")
	}
	skip := map[string]bool{"ARGS": true, "STDIN": true, "META.yaml": true, "META.yml": true}
	for _, n := range expectedNames {
		skip[n] = true
	}
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

// expectedNames are the names an ARGS/EXPECTED case's expected output may
// have: EXPECTED is text, EXPECTED.json one JSON document, EXPECTED.jsonl
// one JSON record per line.
var expectedNames = []string{"EXPECTED", "EXPECTED.json", "EXPECTED.jsonl"}

// metaNames are the names of an ARGS/EXPECTED case's file of case keys.
var metaNames = []string{"META.yaml", "META.yml"}

// readExpectedOutput reads EXPECTED (text), EXPECTED.json (a structure) or
// EXPECTED.jsonl (a list of records; jsonl says so).
func (gc *groupCtx) readExpectedOutput(file string, d *strictyaml.Decoder) (v any, jsonl, ok bool) {
	switch filepath.Ext(file) {
	case ".json":
		m := map[string]any{}
		gc.setExpected(m, "output", file, d)
		v, ok = m["output"]
		return v, false, ok
	case ".jsonl":
		s, err := gc.readString(file)
		if err != nil {
			d.Errs.Add(file, "", 0, "cannot read: %v", diag.UnwrapPathError(err))
			return nil, false, false
		}
		records := []any{}
		for i, line := range strings.Split(withoutBOM(s), "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			rec, err := jsonvalue.Parse(line)
			if err != nil {
				d.Errs.Add(file, "", i+1, "malformed JSON record: %v", err)
				return nil, true, false
			}
			records = append(records, rec)
		}
		return records, true, true
	}
	v, err := gc.readValue(file)
	if err != nil {
		d.Errs.Add(file, "", 0, "cannot read: %v", diag.UnwrapPathError(err))
		return nil, false, false
	}
	return v, false, true
}

// present lists which of names exist in dir (a path leading out of the
// problem is reported).
func (gc *groupCtx) present(dir string, names []string, d *strictyaml.Decoder) []string {
	var found []string
	for _, n := range names {
		st, err := gc.exists(filepath.Join(dir, n))
		if err != nil {
			d.Errs.Add(filepath.Join(dir, n), "", 0, "cannot read: %v", diag.UnwrapPathError(err))
			continue
		}
		if st != nil && !st.IsDir() {
			found = append(found, n)
		}
	}
	return found
}

// isFile says whether name is a file (or a link to one) of the problem.
func (gc *groupCtx) isFile(name string) bool {
	st, err := gc.files.Stat(name)
	return err == nil && !st.IsDir()
}

// isArgsDir tells the auto loader which layout a case directory uses: ARGS
// means ARGS/EXPECTED; otherwise a case file means case_dirs; otherwise an
// EXPECTED file or META.yaml means ARGS/EXPECTED (without arguments).
func (gc *groupCtx) isArgsDir(dir string) bool {
	if gc.isFile(filepath.Join(dir, "ARGS")) {
		return true
	}
	for _, n := range caseFileNames {
		if gc.isFile(filepath.Join(dir, n)) {
			return false
		}
	}
	for _, n := range append(append([]string{}, expectedNames...), metaNames...) {
		if gc.isFile(filepath.Join(dir, n)) {
			return true
		}
	}
	return false
}

// metaOrder reads the order of an ARGS/EXPECTED case from META.yaml.
func (gc *groupCtx) metaOrder(dir string) *int {
	for _, n := range metaNames {
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
