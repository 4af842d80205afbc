package cases

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/strictyaml"
	"github.com/wasmeval/wasmeval/engine/workspace/confine"
)

// groupCtx is what every built-in layout shares while a group is open.
type groupCtx struct {
	in       GroupInput
	defaults *rawCase
	// files is the only way the loaders open files (see GroupInput.Files).
	files *confine.Tree
}

// openGroup decodes the group's case_defaults once; they are checked as
// strictly as a case, and reported at the group's declaration.
func openGroup(g GroupInput) (*groupCtx, error) {
	gc := &groupCtx{in: g, files: g.Files}
	if gc.files == nil {
		root := g.ProblemDir
		if root == "" {
			root = g.CheckpointDir
		}
		files, err := confine.New(root)
		if err != nil {
			return nil, err
		}
		gc.files = files
	}
	if len(g.CaseDefaults) == 0 {
		return gc, nil
	}
	node := g.CaseDefaultsNode
	if node == nil {
		var err error
		if node, err = strictyaml.NodeOf(g.CaseDefaults); err != nil {
			return nil, fmt.Errorf("case_defaults: %w", err)
		}
	}
	var errs diag.List
	d := &strictyaml.Decoder{File: g.ConfigFile, Errs: &errs}
	src := source{file: g.ConfigFile, node: node, path: diag.JoinPath(g.ConfigPath, "case_defaults")}
	gc.defaults = decodeRaw(d, src)
	if gc.defaults.InputFiles != nil {
		// Serialise now so bad defaults are reported once, at the group.
		gc.defaults.InputFiles.materialise(d)
	}
	// Expected values are checked here, once, and each case's own when
	// it is built.
	reportExpected(d, gc.defaults.Expected, node, src.path)
	gc.checkFiles(d, gc.defaults.Checks, node, src.path)
	if a := gc.defaults.Arguments; a != nil && a.isStr {
		if _, err := splitArgs(a.text, g.ArgumentSplitting); err != nil {
			d.Errorf(a.node, diag.JoinPath(src.path, "arguments"), "cannot split %q into words: %v", a.text, err)
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return gc, nil
}

// groupDir is where a group's case directories live.
func (gc *groupCtx) groupDir() string {
	return filepath.Join(gc.in.CheckpointDir, gc.in.CaseGroup)
}

// where names the group in messages.
func (gc *groupCtx) where() string {
	if gc.in.OriginalCheckpoint != "" {
		return fmt.Sprintf("group %s (cases of %s/%s)", gc.in.Group, gc.in.OriginalCheckpoint, gc.in.CaseGroup)
	}
	return fmt.Sprintf("group %s/%s", gc.in.Checkpoint, gc.in.Group)
}

// ordered sorts the entries, reporting a dangling case_order at the group.
func (gc *groupCtx) ordered(entries []entry) ([]entry, error) {
	out, err := sortEntries(entries, gc.in.CaseOrder)
	if err != nil {
		return nil, &diag.Error{File: gc.in.ConfigFile, Path: diag.JoinPath(gc.in.ConfigPath, "case_order"), Msg: err.Error()}
	}
	return out, nil
}

// caseDirs lists the case directories of the group, skipping hidden ones.
// A symlink is listed unless it leads to a file inside the problem.
func (gc *groupCtx) caseDirs() ([]string, error) {
	dir := gc.groupDir()
	ents, err := gc.files.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot list cases in %s: %v", gc.where(), dir, diag.UnwrapPathError(err))
	}
	var names []string
	for _, e := range ents {
		if e.Name()[0] == '.' {
			continue
		}
		if e.Type()&fs.ModeSymlink != 0 {
			// A link to a file is not a case; a broken link or one leading
			// out is listed, so loading it reports why it cannot be used.
			if st, err := gc.files.Stat(filepath.Join(dir, e.Name())); err == nil && !st.IsDir() {
				continue
			}
		} else if !e.IsDir() {
			continue
		}
		names = append(names, e.Name())
	}
	return names, nil
}

// caseDir is the directory of the named case, checked to be one inside
// the problem.
func (gc *groupCtx) caseDir(name string) (string, error) {
	dir := filepath.Join(gc.groupDir(), name)
	if st, err := gc.files.Stat(dir); err != nil {
		return "", &diag.Error{File: dir, Msg: fmt.Sprintf("case directory: %v", diag.UnwrapPathError(err))}
	} else if !st.IsDir() {
		return "", fmt.Errorf("case directory %s is not a directory", dir)
	}
	return dir, nil
}

// exists says whether name is present in the problem; a path leading out
// of it is an error, not an absence.
func (gc *groupCtx) exists(name string) (fs.FileInfo, error) {
	st, err := gc.files.Stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return st, err
}

// peekOrder reads only the `order` key of a case file (top level or under
// input), so a group can be ordered without decoding every case up front.
// A file that does not parse has no order here; loading it reports why.
func (gc *groupCtx) peekOrder(file string) *int {
	data, err := gc.files.ReadFile(file)
	if err != nil {
		return nil
	}
	// Parsed with the checks of aliases: an `input` that contains itself
	// would send orderOf round it for ever.
	root, err := strictyaml.Parse(data)
	if err != nil {
		return nil
	}
	return orderOf(root)
}

func orderOf(n *yaml.Node) *int {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for _, kv := range strictyaml.MappingPairs(n) {
		switch kv[0].Value {
		case "order":
			var o int
			if kv[1].Decode(&o) == nil {
				return &o
			}
		case "input":
			if o := orderOf(kv[1]); o != nil {
				return o
			}
		}
	}
	return nil
}
