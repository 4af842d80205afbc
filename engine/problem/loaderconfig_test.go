package problem

import (
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/pin"
)

// A `loader:` with only a config reconfigures the loader plugin of the
// enclosing level, as a `verifier:` with only a config does; regressions
// of such a group keep its configuration.
func TestLoaderConfigReconfiguresInheritedPlugin(t *testing.T) {
	module := "\x00asm\x01\x00\x00\x00loader"
	sha := pin.Digest([]byte(module))
	dir := writeTree(t, map[string]string{
		"loader.wasm": module,
		"config.yaml": `name: p
entry_file: main.py
loader: {type: plugin, path: loader.wasm, sha256: ` + sha + `, config: {mode: problem}}
checkpoints:
  c1:
    loader: {config: {mode: checkpoint}}
    groups:
      a: {type: Core}
      b: {type: Core, loader: {config: {mode: group}}}
      c: {type: Core, loader: {type: plugin, config: {mode: typed}}}
  c2:
    groups:
      d: {type: Core}
    regressions:
      - {checkpoint: c1, groups: [b]}
`,
		"c1/.keep": "", "c2/.keep": "",
	})
	p, err := Load(dir, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"c1/a": "checkpoint", "c1/b": "group", "c1/c": "typed", "c2/d": "problem", "c2/c1_b": "group"}
	for _, cp := range p.Checkpoints {
		for _, g := range cp.Groups {
			key := cp.Name + "/" + g.Name
			if g.Loader != LoaderPlugin || g.LoaderRef == nil {
				t.Errorf("%s: loader %q %v, want the plugin", key, g.Loader, g.LoaderRef)
				continue
			}
			if got := g.LoaderRef.Config["mode"]; got != want[key] || g.LoaderRef.SHA256 != sha || !strings.HasSuffix(g.LoaderRef.Path, "loader.wasm") {
				t.Errorf("%s: config mode %v (plugin %s), want %q", key, got, g.LoaderRef.Path, want[key])
			}
			delete(want, key)
		}
	}
	if len(want) > 0 {
		t.Errorf("groups missing: %v", want)
	}
}

// A loader config with no plugin to configure is an error naming the key,
// not silently dropped.
func TestLoaderConfigWithoutPluginIsAnError(t *testing.T) {
	for _, tc := range []struct{ loader, key, msg string }{
		{"", "checkpoints.c1.groups.g.loader.config", "no loader plugin is named at an enclosing level"},
		{"loader: case_dirs\n", "checkpoints.c1.groups.g.loader.config", `the enclosing level's loader is the built-in "case_dirs", which takes no config`},
	} {
		dir := writeTree(t, map[string]string{
			"config.yaml":      "name: p\nentry_file: main.py\n" + tc.loader + "checkpoints:\n  c1:\n    groups:\n      g:\n        type: Core\n        loader: {config: {mode: x}}\n",
			"c1/g/a/case.yaml": "arguments: [x]\n",
		})
		_, err := Load(dir, testOpts)
		if err == nil {
			t.Fatalf("%q: loaded", tc.loader)
		}
		list := diagsOf(t, err)
		if len(list) != 1 || list[0].Path != tc.key || !strings.Contains(list[0].Msg, tc.msg) || list[0].Line == 0 {
			t.Errorf("%q: got %v, want one error at %s, with its line, saying %q", tc.loader, list, tc.key, tc.msg)
		}
	}
}

// argument_splitting is once (the default) or twice; anything else is
// refused at its line.
func TestArgumentSplittingOption(t *testing.T) {
	for _, tc := range []struct{ value, want, err string }{
		{"", SplitOnce, ""},
		{"argument_splitting: once\n", SplitOnce, ""},
		{"argument_splitting: twice\n", SplitTwice, ""},
		{"argument_splitting: thrice\n", "", `config.yaml:3: argument_splitting: unknown argument splitting "thrice" (expected once`},
	} {
		dir := writeTree(t, map[string]string{
			"config.yaml":      "name: p\nentry_file: main.py\n" + tc.value + "checkpoints:\n  c1:\n    groups: {g: {type: Core}}\n",
			"c1/g/a/case.yaml": "arguments: [x]\n",
		})
		p, err := Load(dir, testOpts)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: error %v, want %q", tc.value, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%q: %v", tc.value, err)
		case tc.err == "" && p.ArgumentSplitting != tc.want:
			t.Errorf("%q: argument splitting %q, want %q", tc.value, p.ArgumentSplitting, tc.want)
		}
	}
}

// timeout_outcome is failed (the default) or error; anything else is
// refused at its line, with what each word means.
func TestTimeoutOutcomeOption(t *testing.T) {
	for _, tc := range []struct{ value, want, err string }{
		{"", TimeoutFails, ""},
		{"timeout_outcome: failed\n", TimeoutFails, ""},
		{"timeout_outcome: error\n", TimeoutErrors, ""},
		{"timeout_outcome: skip\n", "", `config.yaml:3: timeout_outcome: unknown timeout outcome "skip" (expected failed — a timeout is a wrong answer, the default, or error — a timeout is an error of the harness`},
	} {
		dir := writeTree(t, map[string]string{
			"config.yaml":      "name: p\nentry_file: main.py\n" + tc.value + "checkpoints:\n  c1:\n    groups: {g: {type: Core}}\n",
			"c1/g/a/case.yaml": "arguments: [x]\n",
		})
		p, err := Load(dir, testOpts)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: error %v, want %q", tc.value, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%q: %v", tc.value, err)
		case tc.err == "" && p.TimeoutOutcome != tc.want:
			t.Errorf("%q: timeout outcome %q, want %q", tc.value, p.TimeoutOutcome, tc.want)
		}
	}
}
