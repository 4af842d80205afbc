package problem

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"sync"

	"github.com/wasmeval/wasmeval/engine/checkspec"
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

// casePlugins resolves the plugin bindings of cases, which are read after
// the problem (by its loaders, during validation and runs) and from several
// groups at once.
type casePlugins struct {
	mu     sync.Mutex
	binder *PluginBinder
	// done keeps each binding resolved, by what it names: a group's cases
	// name the same plugin again and again, and resolving reads and hashes
	// the module.
	done map[string]string
}

// BindCasePlugin resolves a plugin binding written by a case (in its case
// file, its group's case_defaults or a loader plugin's output) by the
// rules the problem's own bindings follow: a path inside the problem (or
// a --mount-root), a name found in the plugin directories and then the
// problem's plugins/, or a reference through the problem's lock file and
// the plugin cache; exactly one of them, the file a Wasm module, its
// sha256 the pinned one. It returns a copy of ref with Path set to the
// module's file, leaving ref as the case wrote it. A binding the problem
// itself wrote (already resolved when it loaded: ref.At is set) is
// returned as it is. file and key say where the binding is written, for
// the error.
func (p *Problem) BindCasePlugin(file, key string, ref *PluginRef) (*PluginRef, error) {
	if ref == nil || ref.At.File != "" {
		return ref, nil
	}
	if p.cases == nil {
		if ref.Path != "" && ref.Name == "" && ref.Ref == "" {
			return ref, nil // confined where it is read
		}
		return nil, fmt.Errorf("%s: %s: plugin %s is bound by name or reference, which cases of this problem cannot do: bind it by path", file, key, AsWritten(ref))
	}
	id := ref.Path + "\x00" + ref.Name + "\x00" + ref.Ref + "\x00" + strings.ToLower(ref.SHA256)
	c := p.cases
	c.mu.Lock()
	defer c.mu.Unlock()
	bound := *ref
	if path, ok := c.done[id]; ok {
		bound.Path, bound.SHA256 = path, strings.ToLower(ref.SHA256)
		bound.At = checkspec.Location{File: file, Key: key}
		return &bound, nil
	}
	// A binding that fails is not kept: its error names where this case
	// wrote it.
	var errs diag.List
	c.binder.Bind(file, key, 0, &bound, &errs)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	c.done[id] = bound.Path
	return &bound, nil
}
