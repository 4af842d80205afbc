package problem

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/plugins/pin"
)

var testOpts = Options{Loaders: []string{"auto", "case_dirs", "group_file", "args_expected"}}

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func diagsOf(t *testing.T, err error) diag.List {
	t.Helper()
	var list diag.List
	if !errors.As(err, &list) {
		t.Fatalf("expected diagnostics, got %v", err)
	}
	return list
}

func TestLoadExampleProblem(t *testing.T) {
	p, err := Load("../../examples/inventory", testOpts)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "inventory" || p.EntryFile != "inventory" || p.Command != "python3 {entry_file}" {
		t.Fatalf("unexpected problem header: %+v", p)
	}
	if len(p.Checkpoints) != 2 || p.Checkpoints[0].Name != "checkpoint_1" || p.Checkpoints[1].Name != "checkpoint_2" {
		t.Fatalf("checkpoints: %+v", p.Checkpoints)
	}
	cp1, cp2 := p.Checkpoints[0], p.Checkpoints[1]
	if cp1.Timeout != 10*time.Second || cp2.Timeout != 8*time.Second {
		t.Errorf("checkpoint timeouts: %v %v", cp1.Timeout, cp2.Timeout)
	}
	names := func(cp *Checkpoint) []string {
		var out []string
		for _, g := range cp.Groups {
			out = append(out, g.Name+":"+string(g.Type))
		}
		return out
	}
	if got := strings.Join(names(cp1), ","); got != "summary:Core,top:Functionality,errors:Error" {
		t.Errorf("checkpoint_1 groups: %s", got)
	}
	if got := strings.Join(names(cp2), ","); got != "category:Core,export:Functionality,by_category:Functionality,checkpoint_1_summary:Regression" {
		t.Errorf("checkpoint_2 groups: %s", got)
	}
	reg := cp2.Groups[3]
	if reg.OriginalCheckpoint != "checkpoint_1" || reg.OriginalGroup != "summary" || reg.CasesDir != cp1.Dir || reg.CaseGroup != "summary" {
		t.Errorf("regression group not pointing at its source: %+v", reg)
	}
	if reg.Timeout != 10*time.Second {
		t.Errorf("regression group keeps its source timeout, got %v", reg.Timeout)
	}
	if v := reg.Verifier; v == nil || v.Config["output"] != "json" || !strings.HasSuffix(v.Path, "plugins/inventory-verifier.wasm") || len(v.SHA256) != 64 {
		t.Errorf("regression group keeps its source verifier and its config, got %+v", reg.Verifier)
	}
	if v := cp1.Groups[2].Verifier; v == nil || v.Config["stderr_pattern"] != "^error: " || v.SHA256 != reg.Verifier.SHA256 {
		t.Errorf("a config-only verifier reconfigures the inherited plugin: %+v", v)
	}
	if by := cp2.Groups[2]; by.Loader != LoaderPlugin || by.LoaderRef == nil || by.LoaderRef.Config["asset"] != "catalog" {
		t.Errorf("loader plugin binding: %+v", by)
	}
	if ev := cp2.Groups[1].Checks[0]; ev.Kind != "evaluator" || ev.Plugin == nil || ev.Function != "compare_csv" {
		t.Errorf("evaluator check: %+v", ev)
	}
	if g := cp1.Groups[2]; g.Timeout != 5*time.Second {
		t.Errorf("group timeout wins over problem: %v", g.Timeout)
	}
	if !cp1.Groups[0].Isolated || cp1.Groups[1].Isolated {
		t.Errorf("isolated defaults to true and can be turned off")
	}
	if cp2.Env["INVENTORY_CURRENCY"] != "EUR" {
		t.Errorf("env not inherited: %v", cp2.Env)
	}
	if a := p.StaticAssets["catalog"]; !strings.HasSuffix(a.Path, "static/catalog.csv") || a.SavePath != "/static/catalog" {
		t.Errorf("static asset: %+v", a)
	}
	if cp1.Groups[0].Loader != "auto" {
		t.Errorf("loader: auto names the built-in auto loader, got %q", cp1.Groups[0].Loader)
	}
	if len(p.Digest) != 64 {
		t.Errorf("digest: %q", p.Digest)
	}
}

// The skeleton from SlopCodeBench's problem-authoring guide loads unchanged
// once its Python loader is replaced by the built-in loader that reads its
// layout.
func TestLoadSlopCodeBenchQuickStart(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"config.yaml": `name: my_problem
description: My first evaluation problem
adapter:
  type: cli
  tracked_files: ["output.txt"]
entry_file: solution
loader_script: loader.py
loader_entrypoint: Loader
checkpoints:
  checkpoint_1:
    order: 1
    path: checkpoint_1
    groups:
      core:
        type: Core
        timeout: 30
    specification: spec.md
    state: Core Tests
`,
		"checkpoint_1/spec.md": "spec",
		"loader.py":            "class Loader: ...\n",
	})
	// loader.py is Python: refused, never replaced by a built-in loader.
	_, err := Load(dir, testOpts)
	list := diagsOf(t, err)
	if len(list) != 1 || list[0].Path != "loader_script" || list[0].Line != 7 ||
		!strings.Contains(list[0].Msg, "loader loader.py is a Python file: wasmeval does not run it, it runs loaders only as WebAssembly plugins") {
		t.Fatalf("got %v", list)
	}
	for _, want := range []string{"docs/porting.md", "docs/sdk-go.md", "docs/sdk-rust.md", "docs/sdk-assemblyscript.md", "loader: auto"} {
		if !strings.Contains(list[0].Msg, want) {
			t.Errorf("the message does not point to %s: %s", want, list[0].Msg)
		}
	}
	// Naming the built-in loader that reads the layout, the rest loads unchanged.
	cfg, _ := os.ReadFile(filepath.Join(dir, "config.yaml"))
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(strings.Replace(string(cfg), "loader_script: loader.py", "loader_script: auto", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Load(dir, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	g := p.Checkpoints[0].Groups[0]
	if g.Type != Core || g.Timeout != 30*time.Second || p.Adapter.TrackedFiles[0] != "output.txt" {
		t.Fatalf("unexpected: %+v %+v", g, p.Adapter)
	}
}

func TestInheritanceAndRegressionForms(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"config.yaml": `name: p
entry_file: main.py
timeout: 3
env: {A: problem, B: problem}
checkpoints:
  c1:
    groups:
      core: {type: Core, case_order: [b, a]}
      extra: {type: Functionality}
      err: {type: Error}
  c2:
    env: {B: checkpoint}
    timeout: 7
    groups:
      core: {type: Core, timeout: 2}
    regressions:
      - checkpoint: c1
        groups: [core, extra]
        exclude: [extra]
      - checkpoints: "*"
        type_filter: Error
        name_template: "old_{group}_{idx}"
  c3:
    groups:
      core: {type: Core}
      manual:
        type: Regression
        original_checkpoint: c1
        original_group: core
    regressions:
      - checkpoints: [c1, c2]
        type_filter: Core
`,
		"c1/x": "", "c2/x": "", "c3/x": "",
	})
	p, err := Load(dir, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	c2 := p.Checkpoint("c2")
	if c2.Env["A"] != "problem" || c2.Env["B"] != "checkpoint" {
		t.Errorf("env merge: %v", c2.Env)
	}
	if c2.Timeout != 7*time.Second || c2.Groups[0].Timeout != 2*time.Second || p.Checkpoint("c1").Timeout != 3*time.Second {
		t.Errorf("timeouts not resolved group > checkpoint > problem")
	}
	var got []string
	for _, g := range c2.Groups {
		got = append(got, g.Name)
	}
	if strings.Join(got, ",") != "core,c1_core,old_err_1" {
		t.Errorf("c2 groups: %v", got)
	}
	c3 := p.Checkpoint("c3")
	got = nil
	for _, g := range c3.Groups {
		got = append(got, g.Name+"<-"+g.OriginalCheckpoint+"/"+g.OriginalGroup)
	}
	// Regression groups of c2 are not imported again: their cases are
	// reached through c1 already.
	if strings.Join(got, ",") != "core<-/,manual<-c1/core,c1_core<-c1/core,c2_core<-c2/core" {
		t.Errorf("c3 groups: %v", got)
	}
	if m := c3.Groups[1]; strings.Join(m.CaseOrder, ",") != "b,a" {
		t.Errorf("manual regression inherits case_order, got %v", m.CaseOrder)
	}
}

func TestErrorsAreReportedTogetherWithLines(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"config.yaml": `name: p
entry_file: main.py
timeout: fast
colour: blue
checkpoints:
  c1:
    groups:
      core:
        type: Cor
        isolated: maybe
  c2:
    groups:
      g: {type: Core}
    regressions:
      - checkpoint: c9
      - checkpoints: [c1]
        type_filter: Nope
`,
		"c1/x": "", "c2/x": "",
	})
	_, err := Load(dir, testOpts)
	list := diagsOf(t, err)
	want := []struct {
		path string
		line int
		msg  string
	}{
		{"timeout", 3, "expected a number"},
		{"colour", 4, `unknown key "colour"`},
		{"checkpoints.c1.groups.core.type", 9, `unknown group type "Cor"`},
		{"checkpoints.c1.groups.core.isolated", 10, "expected true or false"},
		{"checkpoints.c2.regressions[0].checkpoint", 15, `checkpoint "c9" does not exist`},
		{"checkpoints.c2.regressions[1].type_filter", 16, `unknown group type "Nope"`},
	}
	for _, w := range want {
		found := false
		for _, d := range list {
			if d.Path == w.path && d.Line == w.line && strings.Contains(d.Msg, w.msg) && strings.HasSuffix(d.File, "config.yaml") {
				found = true
			}
		}
		if !found {
			t.Errorf("missing diagnostic %s:%d %q in:\n%v", w.path, w.line, w.msg, list)
		}
	}
}

func TestMalformedYAML(t *testing.T) {
	dir := writeTree(t, map[string]string{"config.yaml": "name: p\ncheckpoints:\n  - a\n - b\n"})
	_, err := Load(dir, testOpts)
	list := diagsOf(t, err)
	if len(list) != 1 || !strings.Contains(list[0].Msg, "malformed YAML") || list[0].Line == 0 {
		t.Fatalf("got %v", list)
	}
}

func TestDanglingReferences(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"config.yaml": `name: p
entry_file: ../main.py
loader_script: fancy.py
static_assets:
  data: {path: nowhere.csv}
adapter: {type: cli, tracked_files: [../../etc/passwd]}
checkpoints: [c1, c2]
`,
		"c1/config.yaml": "groups:\n  g:\n    type: Core\n    group_files: [missing.txt]\n",
	})
	_, err := Load(dir, testOpts)
	text := err.Error()
	for _, want := range []string{
		"entry_file: expected a path relative to the submission",
		`loader_script: loader fancy.py is a Python file`,
		`static_assets.data.path: static asset: "nowhere.csv" not found`,
		"escapes the workspace",
		`checkpoint directory "c2" has no config.yaml`,
		`file "missing.txt" not found`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
}

func TestCheckValidatorIsApplied(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"config.yaml": `name: p
entry_file: main.py
checkpoints:
  c1:
    groups:
      g:
        checks:
          - kind: json
          - kind: telepathy
`,
		"c1/x": "",
	})
	opts := testOpts
	opts.ValidateCheck = func(c CheckSpec) []string {
		if c.Kind == "telepathy" {
			return []string{"unknown check kind"}
		}
		return nil
	}
	_, err := Load(dir, opts)
	list := diagsOf(t, err)
	if len(list) != 1 || list[0].Path != "checkpoints.c1.groups.g.checks[1]" || list[0].Line != 9 {
		t.Fatalf("got %v", list)
	}
}

// SlopCodeBench's loader and verifier spellings that name a program —
// scalar, {script, entrypoint}, the legacy {type: script, path,
// entrypoint}, a plugin binding — are refused at their key when the
// program is not WebAssembly; none falls back to a built-in. Built-in
// names load in every form; an unknown type is reported at its key.
func TestNonWasmLoadersAndVerifiersAreRefused(t *testing.T) {
	for _, tc := range []struct{ form, key, want string }{
		{"loader: {type: script, path: loader.py, entrypoint: Loader}", "loader.path", "loader loader.py is a Python file"},
		{"loader: {script: loader.py, entrypoint: Loader}", "loader.script", "loader loader.py is a Python file"},
		{"loader: loader.py", "loader", "loader loader.py is a Python file"},
		{"loader_script: cases/load.js", "loader_script", "loader cases/load.js is a JavaScript file"},
		{"loader: {type: plugin, path: loader.py, sha256: " + strings.Repeat("0", 64) + "}", "loader.path", "loader loader.py is a Python file"},
		{"verifier: verifier.py", "verifier", "verifier verifier.py is a Python file"},
		{"verifier: {script: verifier.py, entrypoint: verify}", "verifier.script", "verifier verifier.py is a Python file"},
		{"verifier: {type: plugin, path: check.sh, sha256: " + strings.Repeat("0", 64) + "}", "verifier.path", "verifier check.sh is a shell file"},
		{"verifier: {type: plugin, path: plugins/v.wasm, sha256: " + strings.Repeat("0", 64) + "}", "verifier.path", "verifier plugins/v.wasm is not WebAssembly"},
	} {
		dir := writeTree(t, map[string]string{
			"config.yaml":      "name: p\nentry_file: main.py\n" + tc.form + "\ncheckpoints:\n  c1:\n    groups: {g: {type: Core}}\n",
			"c1/g/a/case.yaml": "{}\n",
			"loader.py":        "class Loader: ...\n",
			"verifier.py":      "def verify(): ...\n",
			"check.sh":         "#!/bin/sh\n",
			"plugins/v.wasm":   "#!/bin/sh\n",
			"cases/load.js":    "export {}\n",
		})
		_, err := Load(dir, testOpts)
		list := diagsOf(t, err)
		if len(list) != 1 || list[0].Path != tc.key || list[0].Line != 3 || !strings.Contains(list[0].Msg, tc.want) ||
			!strings.Contains(list[0].Msg, "WebAssembly plugins") || !strings.Contains(list[0].Msg, "docs/porting.md") {
			t.Errorf("%s: got %v", tc.form, list)
		}
	}
	for _, form := range []string{
		"loader: {type: builtin, path: auto}",
		"loader: {script: auto}",
		"loader: auto",
		"loader_script: auto",
		"verifier: checks",
	} {
		dir := writeTree(t, map[string]string{
			"config.yaml":      "name: p\nentry_file: main.py\n" + form + "\ncheckpoints:\n  c1:\n    groups: {g: {type: Core}}\n",
			"c1/g/a/case.yaml": "{}\n",
		})
		p, err := Load(dir, testOpts)
		if err != nil {
			t.Fatalf("%s: %v", form, err)
		}
		if l := p.Checkpoints[0].Groups[0].Loader; l != "auto" && l != "" {
			t.Errorf("%s: loader %q, want auto", form, l)
		}
	}
	dir := writeTree(t, map[string]string{
		"config.yaml":      "name: p\nentry_file: main.py\nloader: {type: python, path: loader.py}\ncheckpoints:\n  c1:\n    groups: {g: {type: Core}}\n",
		"c1/g/a/case.yaml": "{}\n",
	})
	if _, err := Load(dir, testOpts); err == nil || !strings.Contains(err.Error(), `config.yaml:3: loader.type: unknown loader type "python"`) {
		t.Errorf("unknown loader type: %v", err)
	}
}

func TestEnvironmentKey(t *testing.T) {
	base := "name: p\nentry_file: main.py\ncheckpoints:\n  c1:\n    groups:\n      g: {type: Core}\n"
	dir := writeTree(t, map[string]string{"config.yaml": "environment: env/docker.yaml\n" + base, "env/docker.yaml": "image: x\n", "c1/g/a/case.yaml": "arguments: []\n"})
	p, err := Load(dir, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	if p.Environment != filepath.Join(dir, "env", "docker.yaml") {
		t.Errorf("environment %q", p.Environment)
	}
	for env, want := range map[string]string{"missing.yaml": "not found", "../outside.yaml": `path "../outside.yaml" is outside the problem directory`} {
		dir := writeTree(t, map[string]string{"config.yaml": "environment: " + env + "\n" + base})
		if _, err := Load(dir, testOpts); err == nil || !strings.Contains(err.Error(), "config.yaml:1: environment: ") || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", env, err)
		}
	}
}

// A plugin named by name is found in the caller's plugin directories, then
// WASMEVAL_PLUGIN_PATH, then <problem>/plugins; its pin may be written in
// either case and is kept in canonical lowercase.
func TestPluginByName(t *testing.T) {
	module := func(tag string) string { return "\x00asm\x01\x00\x00\x00" + tag }
	digestOf := func(s string) string { return pin.Digest([]byte(s)) }
	config := func(name, sha string) string {
		return "name: p\nentry_file: main.py\nverifier: {name: " + name + ", sha256: " + sha + "}\ncheckpoints:\n  c1:\n    groups: {g: {type: Core}}\n"
	}
	flagDir, envDir := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(flagDir, "both.wasm"), []byte(module("flag")), 0o644)
	os.WriteFile(filepath.Join(envDir, "both.wasm"), []byte(module("env")), 0o644)
	os.WriteFile(filepath.Join(envDir, "envonly.wasm"), []byte(module("env")), 0o644)
	t.Setenv("WASMEVAL_PLUGIN_PATH", envDir)

	for _, tc := range []struct {
		name, module, file string
	}{
		{"both", module("flag"), filepath.Join(flagDir, "both.wasm")},     // the flag's directory wins
		{"envonly", module("env"), filepath.Join(envDir, "envonly.wasm")}, // then the environment's
		{"local", module("local"), "plugins/local.wasm"},                  // then the problem's own
	} {
		t.Run(tc.name, func(t *testing.T) {
			sha := strings.ToUpper(digestOf(tc.module))
			dir := writeTree(t, map[string]string{"config.yaml": config(tc.name, sha), "c1/g/a/case.yaml": "{}\n",
				"plugins/local.wasm": module("local")})
			opts := testOpts
			opts.PluginDirs = []string{flagDir}
			p, err := Load(dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.file
			if !filepath.IsAbs(want) {
				want = filepath.Join(dir, want)
			}
			ref := p.Checkpoints[0].Groups[0].Verifier
			if ref == nil || ref.Path != want || ref.SHA256 != digestOf(tc.module) {
				t.Fatalf("got %+v, want path %s and the lowercase digest", ref, want)
			}
		})
	}

	// A relative --plugin-dir or WASMEVAL_PLUGIN_PATH is relative to the
	// working directory, not to the problem: the plugin found there opens.
	t.Run("relative", func(t *testing.T) {
		cwd := t.TempDir()
		for _, d := range []string{"flag", "env"} {
			os.MkdirAll(filepath.Join(cwd, d), 0o755)
		}
		os.WriteFile(filepath.Join(cwd, "flag", "rflag.wasm"), []byte(module("rflag")), 0o644)
		os.WriteFile(filepath.Join(cwd, "env", "renv.wasm"), []byte(module("renv")), 0o644)
		t.Chdir(cwd)
		t.Setenv("WASMEVAL_PLUGIN_PATH", "env")
		for name, want := range map[string]string{"rflag": filepath.Join(cwd, "flag", "rflag.wasm"), "renv": filepath.Join(cwd, "env", "renv.wasm")} {
			dir := writeTree(t, map[string]string{"config.yaml": config(name, digestOf(module(name))), "c1/g/a/case.yaml": "{}\n"})
			opts := testOpts
			opts.PluginDirs = []string{"flag"}
			p, err := Load(dir, opts)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if ref := p.Checkpoints[0].Groups[0].Verifier; ref == nil || ref.Path != want {
				t.Errorf("%s: got %+v, want path %s", name, ref, want)
			}
		}
	})

	dir := writeTree(t, map[string]string{"config.yaml": config("nowhere", strings.Repeat("0", 64))})
	_, err := Load(dir, Options{PluginDirs: []string{flagDir}})
	if err == nil || !strings.Contains(err.Error(), `verifier.name: plugin "nowhere" not found (looked for nowhere.wasm in: `+flagDir+", "+envDir+", "+filepath.Join(dir, "plugins")+")") {
		t.Errorf("missing plugin: %v", err)
	}
	dir = writeTree(t, map[string]string{"config.yaml": config("envonly", "sha256:abc")})
	_, err = Load(dir, testOpts)
	if err == nil || !strings.Contains(err.Error(), `verifier.sha256: expected 64 hexadecimal digits, got "sha256:abc"`) {
		t.Errorf("malformed pin: %v", err)
	}
}
