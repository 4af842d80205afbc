package cases

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/strictyaml"
)

// caseFileExts are the extensions of a case file in the case_files layout.
var caseFileExts = []string{".yaml", ".yml", ".json"}

// caseFileNames lists the case files of the group directory
// (<group>/<case>.yaml, .yml or .json; hidden files skipped), file names
// with their extension, in lexical order.
func (gc *groupCtx) caseFileNames() ([]string, error) {
	dir := gc.groupDir()
	ents, err := gc.files.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot list cases in %s: %v", gc.where(), dir, diag.UnwrapPathError(err))
	}
	var names []string
	for _, e := range ents {
		n := e.Name()
		if n[0] == '.' || !hasExt(n, caseFileExts) {
			continue
		}
		if e.Type()&fs.ModeSymlink != 0 {
			// A link to a directory is a case directory; a broken link or
			// one leading out is listed so loading it says why.
			if st, err := gc.files.Stat(filepath.Join(dir, n)); err == nil && st.IsDir() {
				continue
			}
		} else if !e.Type().IsRegular() {
			continue
		}
		names = append(names, n)
	}
	return names, nil
}

func hasExt(name string, exts []string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	for _, e := range exts {
		if ext == e {
			return true
		}
	}
	return false
}

// openCaseFiles streams a group whose cases are one file each in the
// group's directory: <group>/<case>.yaml (.yml, .json) holding the case
// keys, directly or under an input or case block. The case's id is the
// file's name without its extension; nothing else in the directory is an
// input file.
func (gc *groupCtx) openCaseFiles() (Stream, error) {
	names, err := gc.caseFileNames()
	if err != nil {
		return nil, err
	}
	var errs diag.List
	files := map[string]string{}
	var entries []entry
	for _, n := range names {
		file := filepath.Join(gc.groupDir(), n)
		id := strings.TrimSuffix(n, filepath.Ext(n))
		if prev, dup := files[id]; dup {
			errs.Add(file, "", 0, "case %q is given twice, by %s and %s; keep one", id, filepath.Base(prev), n)
			continue
		}
		if err := problem.CheckName(id); err != nil {
			errs.Add(file, "", 0, "case %v", err)
			continue
		}
		files[id] = file
		entries = append(entries, entry{name: id, order: gc.peekOrder(file)})
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, gc.noCasesFor(LoaderCaseFiles, fmt.Sprintf("case files %s/<case>.yaml (or .yml, .json)", gc.groupDir()))
	}
	if entries, err = gc.ordered(entries); err != nil {
		return nil, err
	}
	load := func(id string) (*Case, error) {
		file := files[id]
		var errs diag.List
		d := &strictyaml.Decoder{File: file, Errs: &errs}
		src := source{id: id, file: file, node: gc.parseCaseFile(file, d)}
		var c *Case
		if src.node != nil || errs.Err() == nil {
			c = gc.build(decodeRaw(d, src), d, src, nil)
		}
		if err := errs.Err(); err != nil {
			return nil, err
		}
		return c, nil
	}
	return &listStream{entries: entries, load: load}, nil
}

// noCasesFor reports a group a named loader found no cases in, saying
// what the directory holds instead.
func (gc *groupCtx) noCasesFor(loader, layout string) error {
	return gc.declared(fmt.Sprintf("%s has no cases: loader %s looks for %s; %s", gc.where(), loader, layout, gc.dirHolds()))
}

// dirHolds describes what the group directory holds, for "no cases".
func (gc *groupCtx) dirHolds() string {
	dir := gc.groupDir()
	names, err := gc.files.ReadDir(dir)
	if err != nil {
		return fmt.Sprintf("%s does not exist", dir)
	}
	var shown []string
	for _, e := range names {
		n := e.Name()
		if e.IsDir() {
			n += "/"
		}
		shown = append(shown, n)
	}
	if len(shown) == 0 {
		return fmt.Sprintf("%s is empty", dir)
	}
	return fmt.Sprintf("%s holds only %s, none of them a case", dir, listSome(shown))
}

// declared is where the group is declared, with its line when the
// configuration can be read again, for errors about the group as a whole.
func (gc *groupCtx) declared(msg string) error {
	return &diag.Error{File: gc.in.ConfigFile, Path: gc.in.ConfigPath, Line: gc.configLine(), Msg: msg}
}

// configLine finds the line of the group's key in its configuration
// file, or 0. Key paths join names with dots and names may hold dots, so
// each step takes the key that the rest of the path starts with.
func (gc *groupCtx) configLine() int {
	if gc.in.ConfigFile == "" || gc.in.ConfigPath == "" {
		return 0
	}
	abs, err := filepath.Abs(gc.in.ConfigFile)
	if err != nil {
		return 0
	}
	data, err := gc.files.ReadFileMax(abs, 4<<20)
	if err != nil {
		return 0
	}
	n, err := strictyaml.Parse(data)
	if err != nil || n == nil {
		return 0
	}
	rest, line := gc.in.ConfigPath, 0
	for rest != "" {
		if n.Kind != yaml.MappingNode {
			return line
		}
		var next *yaml.Node
		for _, kv := range strictyaml.MappingPairs(n) {
			k := kv[0].Value
			if rest == k || strings.HasPrefix(rest, k+".") {
				next, line = kv[1], kv[0].Line
				rest = strings.TrimPrefix(strings.TrimPrefix(rest, k), ".")
				break
			}
		}
		if next == nil {
			return line
		}
		n = next
	}
	return line
}
