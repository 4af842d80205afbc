package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A run without --out writes under ./wasmeval-out whatever the problem's
// name: a name is the problem's to give, not where the run writes.
func TestProblemNameDoesNotChooseTheRunDirectory(t *testing.T) {
	base := t.TempDir()
	cwd := filepath.Join(base, "a", "b")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := writeTree(t, map[string]string{
		"config.yaml":      "name: \"../../escaped\"\ncommand: \"sh main.sh\"\ncheckpoints:\n  c1:\n    groups:\n      g: {type: Core}\n",
		"c1/g/a/case.yaml": "arguments: [x]\nexpected: {output: \"x\\n\"}\n",
	})
	sub := writeTree(t, map[string]string{"main.sh": "echo \"$1\"\n"})
	t.Chdir(cwd)
	if res := wasmeval(t, "run", dir, "--submission", sub); res.code != 0 {
		t.Fatalf("run: %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	runs, _ := filepath.Glob(filepath.Join(cwd, "wasmeval-out", "*"))
	if len(runs) != 1 || !strings.HasPrefix(filepath.Base(runs[0]), "_.._escaped-") {
		t.Errorf("runs under ./wasmeval-out: %v, want one named after the problem, made one directory name", runs)
	}
	if escaped, _ := filepath.Glob(filepath.Join(base, "escaped*")); len(escaped) != 0 {
		t.Errorf("the run wrote outside ./wasmeval-out: %v", escaped)
	}
}
