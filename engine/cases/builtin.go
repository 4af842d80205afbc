package cases

import (
	"context"
	"fmt"
	"path/filepath"
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
)

// BuiltinNames lists the built-in loaders.
func BuiltinNames() []string {
	return []string{LoaderAuto, LoaderCaseDirs, LoaderGroupFile, LoaderArgsExpected}
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
		return gc.openDirs(func(string) bool { return false })
	case LoaderArgsExpected:
		return gc.openDirs(func(string) bool { return true })
	}
	switch {
	case file != "" && hasDir:
		return nil, fmt.Errorf("%s: both a group file %s and a case directory %s exist; keep one or name a loader", gc.where(), file, dir)
	case file != "":
		return gc.openGroupFile(file)
	case hasDir:
		return gc.openDirs(gc.isArgsDir)
	}
	return nil, fmt.Errorf("%s has no cases: expected a directory %s or a file %s.yaml", gc.where(), dir, dir)
}

// openDirs streams a directory-per-case group; argsLayout says which layout
// each case directory uses.
func (gc *groupCtx) openDirs(argsLayout func(dir string) bool) (Stream, error) {
	names, err := gc.caseDirs()
	if err != nil {
		return nil, err
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
