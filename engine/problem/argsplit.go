package problem

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/engine/checkspec"
	"github.com/wasmeval/wasmeval/engine/diag"
)

// How a case's arguments given as one string are split into words (the
// problem's argument_splitting).
const (
	// SplitOnce splits shell-style once: `a "b c"` is two words. The
	// default.
	SplitOnce = "once"
	// SplitTwice splits, joins the words with spaces and splits again, as
	// SlopCodeBench's reference harness does: `a "b c"` is three words.
	SplitTwice = "twice"
)

// argumentSplitting checks the problem's argument_splitting.
func (l *loader) argumentSplitting(file string, root *yaml.Node, v string) string {
	return l.oneOf(file, root, "argument_splitting", "argument splitting", v,
		choice{SplitOnce, "split shell-style once"},
		choice{SplitTwice, "split, join with spaces and split again, as SlopCodeBench's harness does"})
}

// loaderConfig resolves a `loader:` that gives only a config: the
// enclosing level's loader plugin, configured for this level, as a
// `verifier:` with only a config is. ok is false when m names a loader of
// its own (loaderName resolves it then).
func (l *loader) loaderConfig(file, path string, m *rawLoader, inherited string, inheritedRef *PluginRef) (ref *PluginRef, ok bool) {
	if m == nil || m.namesPlugin() || m.Config == nil {
		return nil, false
	}
	if m.Type != "" && m.Type != "plugin" {
		return nil, false
	}
	key := diag.JoinPath(path, "loader")
	if inherited != LoaderPlugin || inheritedRef == nil {
		what := "no loader plugin is named at an enclosing level"
		if inherited != "" && inherited != LoaderPlugin {
			what = fmt.Sprintf("the enclosing level's loader is the built-in %q, which takes no config", inherited)
		}
		l.errs.Add(file, diag.JoinPath(key, "config"), m.line,
			"a loader config without a plugin: %s (expected a loader plugin named here, {type: plugin, path or name, sha256, config}, or at an enclosing level)", what)
		return nil, true
	}
	r := *inheritedRef
	r.Config = m.Config
	r.At = checkspec.Location{File: file, Key: key, Line: m.line}
	return &r, true
}
