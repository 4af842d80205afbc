package cases

import (
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/strictyaml"
	"github.com/wasmeval/wasmeval/plugins/abi/jsonvalue"
)

// dirContents sorts the files of a case directory into expected values
// (expected_output*, expected_stderr*, expected_status_code*,
// expected_files/) and input files (everything else not in skip).
type dirContents struct {
	expected map[string]any
	inputs   []InputFile
}

func (gc *groupCtx) readCaseDir(dir string, skip map[string]bool, withInputs bool, d *strictyaml.Decoder) dirContents {
	out := dirContents{expected: map[string]any{}}
	ents, err := gc.files.ReadDir(dir)
	if err != nil {
		d.Errs.Add(dir, "", 0, "cannot read case directory: %v", diag.UnwrapPathError(err))
		return out
	}
	for _, e := range ents {
		name := e.Name()
		full := filepath.Join(dir, name)
		if skip[name] {
			continue
		}
		// What an entry is counts after following a symlink (inside the
		// problem only: one leading out is refused here).
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			st, err := gc.files.Stat(full)
			if err != nil {
				d.Errs.Add(full, "", 0, "cannot read: %v", diag.UnwrapPathError(err))
				continue
			}
			isDir = st.IsDir()
		}
		switch {
		case (name == "expected_files" || name == "expected") && isDir:
			// expected/ is SlopCodeBench's spelling of expected_files/;
			// either holds expected files, never inputs.
			if _, dup := out.expected["files"]; dup {
				d.Errs.Add(full, "", 0, "both expected/ and expected_files/ hold expected files; keep one")
				continue
			}
			files := map[string]any{}
			for _, sub := range gc.listTree(full, d) {
				if v, err := gc.readValue(filepath.Join(full, filepath.FromSlash(sub))); err != nil {
					d.Errs.Add(full, "", 0, "cannot read: %v", diag.UnwrapPathError(err))
				} else {
					files[sub] = v
				}
			}
			out.expected["files"] = files
		case strings.HasPrefix(name, "expected_output") && !isDir:
			gc.setExpected(out.expected, "output", full, d)
		case strings.HasPrefix(name, "expected_stderr") && !isDir:
			gc.setExpected(out.expected, "stderr", full, d)
		case strings.HasPrefix(name, "expected_status_code") && !isDir:
			data, err := gc.files.ReadFile(full)
			if err != nil {
				d.Errs.Add(full, "", 0, "cannot read: %v", diag.UnwrapPathError(err))
				continue
			}
			code, err := strconv.Atoi(strings.TrimSpace(withoutBOM(string(data))))
			if err != nil {
				d.Errs.Add(full, "", 0, "expected an integer exit status, got %q", strings.TrimSpace(string(data)))
				continue
			}
			out.expected["status_code"] = code
		case withInputs:
			if isDir {
				for _, sub := range gc.listTree(full, d) {
					gc.addInput(&out, filepath.Join(full, filepath.FromSlash(sub)), name+"/"+sub, d)
				}
			} else {
				gc.addInput(&out, full, name, d)
			}
		}
	}
	return out
}

// addInput adds the problem file as the input file path: named, not read
// (see InputFile), unless it is small text holding {{static:NAME}}
// references, which are resolved into its content when the case runs.
func (gc *groupCtx) addInput(out *dirContents, file, path string, d *strictyaml.Decoder) {
	f, err := FromProblem(gc.files, file, path)
	if err == nil {
		f, err = holdIfStatic(f)
	}
	if err != nil {
		d.Errs.Add(file, "", 0, "cannot read input file: %v", diag.UnwrapPathError(err))
		return
	}
	out.inputs = append(out.inputs, f)
}

// setExpected reads an expected_* file: structured when its extension says
// JSON or YAML (so the default check compares structure), text otherwise.
func (gc *groupCtx) setExpected(expected map[string]any, key, file string, d *strictyaml.Decoder) {
	if _, dup := expected[key]; dup {
		d.Errs.Add(file, "", 0, "a second expected %s file; keep one", key)
		return
	}
	ext := strings.ToLower(filepath.Ext(file))
	if ext != ".json" && ext != ".yaml" && ext != ".yml" {
		v, err := gc.readValue(file)
		if err != nil {
			d.Errs.Add(file, "", 0, "cannot read: %v", diag.UnwrapPathError(err))
			return
		}
		expected[key] = v
		return
	}
	data, err := gc.files.ReadFile(file)
	if err != nil {
		d.Errs.Add(file, "", 0, "cannot read: %v", diag.UnwrapPathError(err))
		return
	}
	switch ext {
	case ".json":
		// Numbers keep their text, as in a case file (strictyaml.JSONValue).
		v, err := jsonvalue.Parse(withoutBOM(string(data)))
		if err != nil {
			d.Errs.Add(file, "", 0, "malformed JSON: %v", err)
			return
		}
		expected[key] = v
	case ".yaml", ".yml":
		v, line, err := strictyaml.DocumentValue(data)
		if err != nil {
			d.Errs.Add(file, "", line, "%v", err)
			return
		}
		expected[key] = v
	}
}

// listTree lists every regular file under root, paths slash-separated
// and relative to root, in lexical order (see confine.Tree.WalkNames for
// the links it follows).
func (gc *groupCtx) listTree(root string, d *strictyaml.Decoder) []string {
	names, err := gc.files.WalkNames(root)
	if err != nil {
		d.Errs.Add(root, "", 0, "cannot read: %v", diag.UnwrapPathError(err))
		return nil
	}
	return names
}

// mergeExpected adds values found in files to the expected block, refusing
// a value given both ways.
func mergeExpected(block map[string]any, fromFiles map[string]any, dir string, d *strictyaml.Decoder, path string) map[string]any {
	if len(fromFiles) == 0 {
		return block
	}
	out := map[string]any{}
	for k, v := range block {
		out[k] = v
	}
	for k, v := range fromFiles {
		if _, dup := out[k]; dup {
			d.Errs.Add(dir, path+"expected."+k, 0, "expected %s is given both in the case file and as a file; keep one", k)
			continue
		}
		out[k] = v
	}
	return out
}

// caseFile finds the one case file among names, if any.
func (gc *groupCtx) caseFile(dir string, names []string, d *strictyaml.Decoder) string {
	var found []string
	for _, n := range names {
		st, err := gc.exists(filepath.Join(dir, n))
		if err != nil {
			d.Errs.Add(filepath.Join(dir, n), "", 0, "cannot read: %v", diag.UnwrapPathError(err))
			continue
		}
		if st != nil {
			found = append(found, n)
		}
	}
	if len(found) > 1 {
		d.Errs.Add(dir, "", 0, "both %s and %s are present; keep one", found[0], found[1])
	}
	if len(found) == 0 {
		return ""
	}
	return filepath.Join(dir, found[0])
}

// parse reads and parses a YAML (or JSON) file of the problem.
func (gc *groupCtx) parse(file string, errs *diag.List) (*yaml.Node, bool) {
	data, err := gc.files.ReadFile(file)
	if err != nil {
		errs.Add(file, "", 0, "cannot read file: %v", diag.UnwrapPathError(err))
		return nil, false
	}
	return strictyaml.ParseBytes(file, data, errs)
}

// parseCaseFile parses a case file into its root node.
func (gc *groupCtx) parseCaseFile(file string, d *strictyaml.Decoder) *yaml.Node {
	if file == "" {
		return nil
	}
	n, ok := gc.parse(file, d.Errs)
	if !ok {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		d.Errorf(n, "", "expected a mapping of case keys, got %s", strictyaml.Describe(n))
		return nil
	}
	return n
}
