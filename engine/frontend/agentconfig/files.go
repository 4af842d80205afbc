package agentconfig

import (
	"fmt"
	"hash"
	"path/filepath"

	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/strictyaml"
	"github.com/wasmeval/wasmeval/engine/workspace/confine"
)

// Files reads a front-end's own files (configs, task files, datasets,
// specs): through its tree, so nothing outside it (or its mount roots)
// is read, symlinks resolved; each file read is added to the problem's
// digest; what cannot be read is recorded in Errs, naming the file.
type Files struct {
	Tree   *confine.Tree
	Digest hash.Hash
	Errs   *diag.List
}

// Path is how a file of the tree is named in diagnostics: absolute.
func (f *Files) Path(name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(f.Tree.Dir(), name)
}

// Read reads a file of at most max bytes (a path relative to the tree or
// absolute inside it).
func (f *Files) Read(name string, max int64) ([]byte, bool) {
	data, err := f.Tree.ReadFileMax(name, max)
	if err != nil {
		f.Errs.Add(f.Path(name), "", 0, "cannot read file: %v", diag.UnwrapPathError(err))
		return nil, false
	}
	rel, err := filepath.Rel(f.Tree.Dir(), f.Path(name))
	if err != nil {
		rel = name
	}
	fmt.Fprintf(f.Digest, "%s\x00%d\x00", filepath.ToSlash(rel), len(data))
	f.Digest.Write(data)
	return data, true
}

// MaxYAMLBytes bounds a YAML file a front-end reads.
const MaxYAMLBytes = 4 << 20

// ParseYAML reads and parses a YAML file; the node is its document's
// content.
func (f *Files) ParseYAML(name string) (*yaml.Node, bool) {
	data, ok := f.Read(name, MaxYAMLBytes)
	if !ok {
		return nil, false
	}
	n, ok := strictyaml.ParseBytes(f.Path(name), data, f.Errs)
	if ok && n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	return n, ok
}

// DecodeYAML reads a YAML file into out strictly: unknown keys and wrong
// types are recorded with the file, key and line.
func (f *Files) DecodeYAML(name string, out any) (*yaml.Node, bool) {
	n, ok := f.ParseYAML(name)
	if ok {
		(&strictyaml.Decoder{File: f.Path(name), Errs: f.Errs}).Decode(n, "", out)
	}
	return n, ok
}
