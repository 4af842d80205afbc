package problem

import (
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/wasmeval/wasmeval/engine/checkspec"
	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/workspace/confine"
	"github.com/wasmeval/wasmeval/plugins/pin"
)

// PluginRef binds a Wasm plugin; see checkspec.PluginRef.
type PluginRef = checkspec.PluginRef

// isPlugin says whether a loader/verifier mapping names a plugin rather
// than a built-in.
func (l *rawLoader) isPlugin() bool {
	return l.Type == "plugin" || l.Name != "" || l.Ref != "" || l.SHA256 != "" || strings.HasSuffix(l.name(), ".wasm")
}

// pluginRef resolves a loader/verifier mapping naming a plugin.
func (l *loader) pluginRef(file, key string, m *rawLoader) *PluginRef {
	ref := &PluginRef{Path: m.name(), Name: m.Name, Ref: m.Ref, SHA256: m.SHA256, Config: m.Config}
	l.resolveRef(file, key, m.line, ref)
	return ref
}

// resolveRef finds the plugin file and checks its digest, so a missing or
// changed plugin is reported before anything runs.
func (l *loader) resolveRef(file, key string, line int, ref *PluginRef) {
	ref.At = checkspec.Location{File: file, Key: key, Line: line}
	ref.ModuleAt = ref.At
	given := 0
	for _, s := range []string{ref.Path, ref.Name, ref.Ref} {
		if s != "" {
			given++
		}
	}
	switch {
	case given > 1:
		l.errs.Add(file, key, line, "give the plugin's path, its name or its ref, only one of them")
		return
	case given == 0:
		l.errs.Add(file, key, line, "a plugin needs a path (relative to the problem), a name (found in the plugin directories) or a ref (oci://registry/repository:tag)")
		return
	}
	// Plugins of the problem are read through its confine.Tree; those in
	// a directory the user named (--plugin-dir, WASMEVAL_PLUGIN_PATH) and
	// those fetched by reference into the plugin cache are not the
	// problem's files.
	read := l.files.ReadFile
	asWritten := ref.Path
	if ref.Ref != "" {
		at := diag.JoinPath(key, "ref")
		if l.opts.Refs == nil {
			l.errs.Add(file, at, line, "plugin %s is bound by reference, which this command cannot resolve", ref.Ref)
			return
		}
		if ref.SHA256 != "" && !isHexDigest(ref.SHA256) {
			l.errs.Add(file, diag.JoinPath(key, "sha256"), line, "expected 64 hexadecimal digits, got %q", ref.SHA256)
			return
		}
		path, err := l.opts.Refs.Resolve(ref.Ref, strings.ToLower(ref.SHA256))
		if err != nil {
			l.errs.Add(file, at, line, "%v", err)
			return
		}
		ref.Path, read, asWritten = path, os.ReadFile, ref.Ref
	} else if shipped, ok := ShippedFile(l.opts.ShippedPlugins, l.dir, l.files.Abs(ref.Path), ref.SHA256); ref.Path != "" && ok {
		// Where the coordinator of a distributed run found it, under a
		// --mount-root of its own; it sent the file, checked below.
		ref.Path, read = shipped, os.ReadFile
	} else if ref.Path != "" {
		_, err := l.resolve(ref.Path, isFile)
		if errors.Is(err, fs.ErrNotExist) {
			l.errs.Add(file, diag.JoinPath(key, "path"), line, "plugin file: %v (a plugin built from source is there once built; wasmeval's own examples are built with `task plugins`)", err)
			return
		} else if err != nil {
			l.errs.Add(file, diag.JoinPath(key, "path"), line, "plugin file: %v", err)
			return
		}
		// As written (made absolute), as manifests name it; the host pins
		// what it loads by digest.
		ref.Path = l.files.Abs(ref.Path)
	} else {
		if err := CheckName(ref.Name); err != nil {
			// The name becomes a file name in each plugin directory.
			l.errs.Add(file, diag.JoinPath(key, "name"), line, "plugin %v", err)
			return
		}
		searched := l.userPluginDirs()
		for _, d := range searched {
			p := filepath.Join(d, ref.Name+".wasm")
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				ref.Path, read = p, os.ReadFile
				break
			}
		}
		if ref.Path == "" {
			own := filepath.Join(l.dir, "plugins")
			searched = append(searched, own)
			p := filepath.Join(own, ref.Name+".wasm")
			_, err := l.resolve(p, isFile)
			switch {
			case err == nil:
				ref.Path = p
			case !errors.Is(err, fs.ErrNotExist):
				l.errs.Add(file, diag.JoinPath(key, "name"), line, "plugin %q: %v", ref.Name, err)
				return
			}
		}
		if ref.Path == "" {
			l.errs.Add(file, diag.JoinPath(key, "name"), line, "plugin %q not found (looked for %s.wasm in: %s)", ref.Name, ref.Name, strings.Join(searched, ", "))
			return
		}
	}
	data, err := read(ref.Path)
	if err != nil {
		l.errs.Add(file, diag.JoinPath(key, "path"), line, "plugin file %s: %v (a plugin built from source is there once built; wasmeval's own examples are built with `task plugins`)", ref.Path, diag.UnwrapPathError(err))
		return
	}
	digest := pin.Digest(data)
	if !isWasm(data) {
		what := "plugin"
		switch {
		case strings.HasSuffix(key, "loader"):
			what = "loader"
		case strings.HasSuffix(key, "verifier"):
			what = "verifier"
		case strings.HasSuffix(key, ".plugin"):
			what = "evaluator"
		}
		at, written := diag.JoinPath(key, "path"), asWritten
		switch {
		case ref.Ref != "":
			at = diag.JoinPath(key, "ref")
		case ref.Name != "":
			at, written = diag.JoinPath(key, "name"), ref.Path
		}
		l.errs.Add(file, at, line, "%s", nonWasm(what, written, ""))
		return
	}
	switch {
	case ref.SHA256 == "":
		l.errs.Add(file, diag.JoinPath(key, "sha256"), line, "required: plugins are pinned by digest; this file's is %s", digest)
	case !isHexDigest(ref.SHA256):
		l.errs.Add(file, diag.JoinPath(key, "sha256"), line, "expected 64 hexadecimal digits, got %q (this file's digest is %s)", ref.SHA256, digest)
	case !strings.EqualFold(ref.SHA256, digest):
		l.errs.Add(file, diag.JoinPath(key, "sha256"), line, "plugin %s has sha256 %s, not the pinned %s; refusing to run it", AsWritten(ref), digest, ref.SHA256)
	default:
		// Pins may be written in either case; the host and the manifest
		// compare and record the canonical lowercase form.
		ref.SHA256 = digest
	}
}

// isHexDigest says whether s is a sha256 written as 64 hex digits.
func isHexDigest(s string) bool {
	_, err := hex.DecodeString(s)
	return len(s) == 64 && err == nil
}

// userPluginDirs are searched first for plugins named by name: the
// caller's directories, then WASMEVAL_PLUGIN_PATH; <problem>/plugins comes
// last. A relative directory means one relative to the working directory
// the user typed it in; it is made absolute here, since a relative plugin
// path is later taken to be relative to the problem.
func (l *loader) userPluginDirs() []string {
	dirs := append([]string{}, l.opts.PluginDirs...)
	if env := os.Getenv("WASMEVAL_PLUGIN_PATH"); env != "" {
		dirs = append(dirs, filepath.SplitList(env)...)
	}
	for i, d := range dirs {
		if abs, err := filepath.Abs(d); err == nil {
			dirs[i] = abs
		}
	}
	return dirs
}

// AsWritten names a plugin in messages: its reference when it is bound
// by one (the cached file's path means nothing to the problem's author),
// else its file, else (not yet resolved) its name.
func AsWritten(ref *PluginRef) string {
	switch {
	case ref.Ref != "":
		return ref.Ref
	case ref.Path != "":
		return ref.Path
	}
	return ref.Name
}

// ShippedFile is the file shipped (by sha256) for a plugin bound by path
// at abs outside the problem directory dir, when the binding pins one of
// shipped's digests.
func ShippedFile(shipped map[string]string, dir, abs, sha string) (string, bool) {
	if shipped == nil || sha == "" || confine.Within(dir, abs) {
		return "", false
	}
	file, ok := shipped[strings.ToLower(sha)]
	return file, ok
}
