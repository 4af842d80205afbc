package cases

import (
	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/strictyaml"
)

// caseFileNames are the names a case directory's case file may have.
var caseFileNames = []string{"case.yaml", "case.yml", "case.json"}

// loadCaseDir loads a directory-per-case case: case.yaml plus expected_*
// files, every other file being an input file written into the workspace at
// the same relative path (unless input_files_from_dir: false).
func (gc *groupCtx) loadCaseDir(name string) (*Case, error) {
	dir, err := gc.caseDir(name)
	if err != nil {
		return nil, err
	}
	var errs diag.List
	d := &strictyaml.Decoder{Errs: &errs}
	file := gc.caseFile(dir, caseFileNames, d)
	d.File = file
	src := source{id: name, file: file, node: gc.parseCaseFile(file, d)}
	if src.file == "" {
		src.file = dir
	}
	rc := decodeRaw(d, src)
	withInputs := true
	if v := rc.InputFilesFromDir; v != nil {
		withInputs = *v
	} else if gc.defaults != nil && gc.defaults.InputFilesFromDir != nil {
		withInputs = *gc.defaults.InputFilesFromDir
	}
	skip := map[string]bool{}
	for _, n := range caseFileNames {
		skip[n] = true
	}
	contents := gc.readCaseDir(dir, skip, withInputs, d)
	rc.Expected = mergeExpected(rc.Expected, contents.expected, src.file, d, "")
	c := gc.build(rc, d, src, contents.inputs)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return c, nil
}
