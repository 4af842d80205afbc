package problem

import (
	"crypto/sha256"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/workspace/confine"
)

// PluginBinder resolves plugin bindings that other front-ends (agent task
// directories, eval-case datasets) read from their own files, by the
// rules a problem's bindings follow: a path inside the tree or a name
// found in the plugin directories, the file a Wasm module, its sha256
// the pinned one.
type PluginBinder struct {
	l *loader
}

// NewPluginBinder binds plugins for the front-end whose files are files
// (its directory is files.Dir()); opts gives the plugin directories.
func NewPluginBinder(files *confine.Tree, opts Options) *PluginBinder {
	return &PluginBinder{l: &loader{opts: opts, digest: sha256.New(), dir: files.Dir(), files: files}}
}

// Bind resolves ref (Path relative to the front-end's directory) in place,
// recording what is wrong with it in errs under file, key and line.
func (b *PluginBinder) Bind(file, key string, line int, ref *PluginRef, errs *diag.List) {
	b.l.errs = nil
	b.l.resolveRef(file, key, line, ref)
	for _, e := range b.l.errs {
		*errs = append(*errs, e)
	}
}
