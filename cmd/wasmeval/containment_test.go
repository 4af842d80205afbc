package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A shared problem that names /var/run (where the Docker socket lives) as
// a static asset and hands a case /etc/passwd through a symlink is refused
// by validate and by run, before anything is written; with the directory
// allowed by --mount-root, an asset under it is accepted.
func TestProblemPathsStayInTheProblem(t *testing.T) {
	hostile := writeTree(t, map[string]string{
		"config.yaml":      "name: x\ncommand: sh main.sh\nstatic_assets:\n  docker: {path: /var/run}\ncheckpoints:\n  c1:\n    groups:\n      g: {type: Core}\n",
		"c1/g/a/case.yaml": "arguments: [hi]\nexpected: {output: \"hi\\n\"}\n",
	})
	if err := os.Symlink("/etc/passwd", filepath.Join(hostile, "c1", "g", "a", "passwd")); err != nil {
		t.Fatal(err)
	}
	sub := writeTree(t, map[string]string{"main.sh": "echo \"$1\"\n"})
	out := filepath.Join(t.TempDir(), "out")
	cfg := filepath.Join(hostile, "config.yaml")
	wants := []string{
		cfg + `:4: static_assets.docker.path: static asset: path "/var/run" is outside the problem directory`,
		filepath.Join(hostile, "c1/g/a/passwd") + `: cannot read: path "` + filepath.Join(hostile, "c1/g/a/passwd") + `" leads outside the problem directory and every --mount-root through a symlink (to /etc/passwd)`,
	}
	for _, args := range [][]string{
		{"validate", hostile},
		{"run", hostile, "--submission", sub, "--out", out},
	} {
		r := wasmeval(t, args...)
		if r.code != 2 {
			t.Fatalf("%s: exit %d, want 2\n%s%s", args[0], r.code, r.stdout, r.stderr)
		}
		// The configuration is refused before any case file is read; the
		// case's symlink is reported once the asset is allowed (below).
		if !strings.Contains(r.stderr, wants[0]) {
			t.Errorf("%s: stderr lacks %q:\n%s", args[0], wants[0], r.stderr)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused run created its output directory")
	}

	allowed := t.TempDir()
	os.WriteFile(filepath.Join(allowed, "data.csv"), []byte("x\n"), 0o644)
	os.WriteFile(cfg, []byte("name: x\ncommand: sh main.sh\nstatic_assets:\n  data: {path: "+filepath.Join(allowed, "data.csv")+"}\ncheckpoints:\n  c1:\n    groups:\n      g: {type: Core}\n"), 0o644)
	if r := wasmeval(t, "validate", hostile); r.code != 2 || !strings.Contains(r.stderr, "static_assets.data.path") {
		t.Errorf("without --mount-root: exit %d\n%s", r.code, r.stderr)
	}
	// Allowed now, the asset passes; the case's symlink is still refused.
	if r := wasmeval(t, "validate", hostile, "--mount-root", allowed); r.code != 2 || !strings.Contains(r.stderr, wants[1]) || strings.Contains(r.stderr, "static_assets") {
		t.Errorf("with --mount-root: exit %d\n%s", r.code, r.stderr)
	}
	os.Remove(filepath.Join(hostile, "c1", "g", "a", "passwd"))
	if r := wasmeval(t, "validate", hostile, "--mount-root", allowed); r.code != 0 {
		t.Errorf("with --mount-root, no symlink: exit %d\n%s", r.code, r.stderr)
	}
	if r := wasmeval(t, "run", hostile, "--submission", sub, "--out", out, "--mount-root", allowed); r.code != 0 {
		t.Errorf("run with --mount-root: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// An empty problem is a configuration error, not a run that passes on no
// cases.
func TestEmptyProblemIsRefused(t *testing.T) {
	empty := writeTree(t, map[string]string{"config.yaml": "name: x\ncommand: sh main.sh\ncheckpoints: {}\n"})
	sub := writeTree(t, map[string]string{"main.sh": "echo\n"})
	for _, args := range [][]string{{"validate", empty}, {"run", empty, "--submission", sub, "--out", filepath.Join(t.TempDir(), "out")}} {
		r := wasmeval(t, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "config.yaml:3: checkpoints: expected at least one checkpoint, got none") {
			t.Errorf("%s: exit %d\n%s%s", args[0], r.code, r.stdout, r.stderr)
		}
	}
}
