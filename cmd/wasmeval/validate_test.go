package main

import (
	"strings"
	"testing"
)

// A problem ported from SlopCodeBench that still names its Python loader
// and verifier is refused by validate and by run, at the keys that name
// them, with where to read how to port them; nothing is substituted.
func TestPythonLoaderAndVerifierAreRefused(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"config.yaml": `name: ported
entry_file: main.sh
loader_script: loader.py
loader_entrypoint: Loader
checkpoints:
  checkpoint_1:
    groups: {core: {type: Core}}
    verifier: {script: verifier.py, entrypoint: verify}
`,
		"loader.py":                     "class Loader: ...\n",
		"verifier.py":                   "def verify(): ...\n",
		"checkpoint_1/core/a/case.yaml": "arguments: [hi]\nexpected: {output: hi}\n",
		"submission/main.sh":            "echo \"$1\"\n",
	})
	for _, args := range [][]string{
		{"validate", dir},
		{"run", dir, "--submission", dir + "/submission", "--out", t.TempDir() + "/out"},
	} {
		r := wasmeval(t, args...)
		if r.code != 2 {
			t.Fatalf("%s: exit %d, want 2\n%s%s", args[0], r.code, r.stdout, r.stderr)
		}
		for _, want := range []string{
			"config.yaml:3: loader_script: loader loader.py is a Python file: wasmeval does not run it, it runs loaders only as WebAssembly plugins",
			"config.yaml:8: checkpoints.checkpoint_1.verifier.script: verifier verifier.py is a Python file",
			"docs/porting.md", "docs/sdk-go.md", "docs/sdk-rust.md", "docs/sdk-assemblyscript.md",
			"loader: auto",
		} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", args[0], want, r.stderr)
			}
		}
	}
}

// validate says, per group, how many cases it checked and which loader
// read them.
func TestValidateListsEachGroupsLoader(t *testing.T) {
	r := wasmeval(t, "validate", example)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"inventory: ok, checkpointed problem (2 checkpoints, 7 groups)",
		"  checkpoint_1/summary: 3 cases, built-in loader auto: case directories (case.yaml)",
		"  checkpoint_1/errors: 3 cases, built-in loader auto: group file (errors.yaml)",
		"  checkpoint_2/category: 3 cases, built-in loader auto: case directories (ARGS/EXPECTED)",
		"  checkpoint_2/by_category: 4 cases, loader plugin inventory-loader@",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
}
