package cases

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// The built-in loaders, one per case layout benchmark authors use.
const (
	// LoaderAuto picks the layout per group: a group file if there is one,
	// else a directory per case (case.yaml or ARGS/EXPECTED, per case).
	LoaderAuto = "auto"
	// LoaderCaseDirs: <checkpoint>/<group>/<case>/case.yaml (+ expected_*
	// files, + input files).
	LoaderCaseDirs = "case_dirs"
	// LoaderGroupFile: <checkpoint>/<group>.yaml mapping case → case.
	LoaderGroupFile = "group_file"
	// LoaderArgsExpected: <checkpoint>/<group>/<case>/{ARGS,EXPECTED,META.yaml}.
	LoaderArgsExpected = "args_expected"
	// LoaderCaseFiles: <checkpoint>/<group>/<case>.yaml (.yml, .json), one
	// file of case keys per case.
	LoaderCaseFiles = "case_files"
)

// BuiltinNames lists the built-in loaders.
func BuiltinNames() []string {
	return []string{LoaderAuto, LoaderCaseDirs, LoaderGroupFile, LoaderArgsExpected, LoaderCaseFiles}
}

// Builtin returns a built-in loader by name.
func Builtin(name string) (Loader, bool) {
	for _, n := range BuiltinNames() {
		if n == name {
			return builtin(name), true
		}
	}
	return nil, false
}

type builtin string

// Open implements Loader.
func (b builtin) Open(_ context.Context, g GroupInput) (Stream, error) {
	gc, err := openGroup(g)
	if err != nil {
		return nil, err
	}
	file, err := gc.findGroupFile()
	if err != nil {
		return nil, err
	}
	dir := gc.groupDir()
	st, err := gc.exists(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: group directory: %w", gc.where(), err)
	}
	hasDir := st != nil && st.IsDir()
	switch string(b) {
	case LoaderGroupFile:
		if file == "" {
			return nil, fmt.Errorf("%s: loader %s expects a group file %s.yaml (or .yml, .json)", gc.where(), b, filepath.Join(g.CheckpointDir, g.CaseGroup))
		}
		return gc.openGroupFile(file)
	case LoaderCaseDirs:
		return gc.openDirs(LoaderCaseDirs, func(string) bool { return false })
	case LoaderArgsExpected:
		return gc.openDirs(LoaderArgsExpected, func(string) bool { return true })
	case LoaderCaseFiles:
		return gc.openCaseFiles()
	}
	var dirs, caseFiles []string
	if hasDir {
		if dirs, err = gc.caseDirs(); err != nil {
			return nil, err
		}
		if caseFiles, err = gc.caseFileNames(); err != nil {
			return nil, err
		}
		// A link that cannot be followed is listed by both; its name
		// says it is a case file.
		dirs = slices.DeleteFunc(dirs, func(n string) bool { return slices.Contains(caseFiles, n) })
	}
	switch {
	case file != "" && (len(dirs) > 0 || len(caseFiles) > 0):
		return nil, fmt.Errorf("%s: both a group file %s and a case directory %s exist; keep one or name a loader", gc.where(), file, dir)
	case file != "":
		return gc.openGroupFile(file)
	case len(dirs) > 0 && len(caseFiles) > 0:
		return nil, fmt.Errorf("%s: %s holds both case directories (%s) and case files (%s); keep one layout or name a loader (%s or %s)",
			gc.where(), dir, listSome(dirs), listSome(caseFiles), LoaderCaseDirs, LoaderCaseFiles)
	case len(caseFiles) > 0:
		return gc.openCaseFiles()
	case len(dirs) > 0:
		return gc.openDirs(LoaderAuto, gc.isArgsDir)
	}
	return nil, gc.noCases()
}

// noCases says which layouts the auto loader looked for and what it found
// instead.
func (gc *groupCtx) noCases() error {
	base := filepath.Join(gc.in.CheckpointDir, gc.in.CaseGroup)
	dir := gc.groupDir()
	msg := fmt.Sprintf("%s has no cases. Layouts tried: a group file %s.yaml (or .yml, .json): not found; "+
		"case directories %s/<case>/ (with case.yaml, or ARGS, EXPECTED or META.yaml): none; "+
		"case files %s/<case>.yaml (or .yml, .json): none. Found: %s",
		gc.where(), base, dir, dir, gc.dirHolds())
	return gc.declared(msg)
}

// listSome names up to five entries, saying how many more there are.
func listSome(names []string) string {
	const most = 5
	if len(names) <= most {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:most], ", "), len(names)-most)
}

// openDirs streams a directory-per-case group; argsLayout says which layout
// each case directory uses.
func (gc *groupCtx) openDirs(loader string, argsLayout func(dir string) bool) (Stream, error) {
	names, err := gc.caseDirs()
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, gc.noCasesFor(loader, fmt.Sprintf("case directories %s/<case>/", gc.groupDir()))
	}
	entries := make([]entry, 0, len(names))
	for _, n := range names {
		dir := filepath.Join(gc.groupDir(), n)
		if argsLayout(dir) {
			entries = append(entries, entry{name: n, order: gc.metaOrder(dir)})
		} else {
			entries = append(entries, entry{name: n, order: gc.caseDirOrder(dir)})
		}
	}
	if entries, err = gc.ordered(entries); err != nil {
		return nil, err
	}
	load := func(name string) (*Case, error) {
		if argsLayout(filepath.Join(gc.groupDir(), name)) {
			return gc.loadArgsDir(name)
		}
		return gc.loadCaseDir(name)
	}
	return &listStream{entries: entries, load: load}, nil
}
