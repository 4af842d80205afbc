package problem

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"

	"github.com/wasmeval/wasmeval/engine/checkspec"
	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/plugins/pin"
)

// PluginRef binds a Wasm plugin; see checkspec.PluginRef.
type PluginRef = checkspec.PluginRef

// isPlugin says whether a loader/verifier mapping names a plugin rather
// than a built-in.
func (l *rawLoader) isPlugin() bool {
	return l.Type == "plugin" || l.Name != "" || l.SHA256 != "" || strings.HasSuffix(l.name(), ".wasm")
}

// pluginRef resolves a loader/verifier mapping naming a plugin.
func (l *loader) pluginRef(file, key string, m *rawLoader) *PluginRef {
	ref := &PluginRef{Path: m.name(), Name: m.Name, SHA256: m.SHA256, Config: m.Config}
	l.resolveRef(file, key, m.line, ref)
	return ref
}

// resolveRef finds the plugin file and checks its digest, so a missing or
// changed plugin is reported before anything runs.
func (l *loader) resolveRef(file, key string, line int, ref *PluginRef) {
	ref.At = checkspec.Location{File: file, Key: key, Line: line}
	switch {
	case ref.Path != "" && ref.Name != "":
		l.errs.Add(file, key, line, "give the plugin's path or its name, not both")
		return
	case ref.Path == "" && ref.Name == "":
		l.errs.Add(file, key, line, "a plugin needs a path (relative to the problem) or a name (found in the plugin directories)")
		return
	case ref.Path != "":
		if !filepath.IsAbs(ref.Path) {
			ref.Path = filepath.Join(l.dir, filepath.FromSlash(ref.Path))
		}
	default:
		var searched []string
		for _, d := range l.pluginDirs() {
			p := filepath.Join(d, ref.Name+".wasm")
			searched = append(searched, d)
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				ref.Path = p
				break
			}
		}
		if ref.Path == "" {
			l.errs.Add(file, diag.JoinPath(key, "name"), line, "plugin %q not found (looked for %s.wasm in: %s)", ref.Name, ref.Name, strings.Join(searched, ", "))
			return
		}
	}
	data, err := os.ReadFile(ref.Path)
	if err != nil {
		l.errs.Add(file, diag.JoinPath(key, "path"), line, "plugin file %s: %v (plugins in this repository are built with `task plugins`)", ref.Path, diag.UnwrapPathError(err))
		return
	}
	digest := pin.Digest(data)
	switch {
	case ref.SHA256 == "":
		l.errs.Add(file, diag.JoinPath(key, "sha256"), line, "required: plugins are pinned by digest; this file's is %s", digest)
	case !isHexDigest(ref.SHA256):
		l.errs.Add(file, diag.JoinPath(key, "sha256"), line, "expected 64 hexadecimal digits, got %q (this file's digest is %s)", ref.SHA256, digest)
	case !strings.EqualFold(ref.SHA256, digest):
		l.errs.Add(file, diag.JoinPath(key, "sha256"), line, "plugin %s has sha256 %s, not the pinned %s; refusing to run it", ref.Path, digest, ref.SHA256)
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

// pluginDirs are searched for plugins named by name: the caller's
// directories, then WASMEVAL_PLUGIN_PATH, then <problem>/plugins.
func (l *loader) pluginDirs() []string {
	dirs := append([]string{}, l.opts.PluginDirs...)
	if env := os.Getenv("WASMEVAL_PLUGIN_PATH"); env != "" {
		dirs = append(dirs, filepath.SplitList(env)...)
	}
	return append(dirs, filepath.Join(l.dir, "plugins"))
}
