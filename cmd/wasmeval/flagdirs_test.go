package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/journal"
)

// A --plugin-dir or --mount-root that is not a directory is refused,
// naming the flag and the path, before anything runs: a typo used to be
// searched silently (the plugins it held then reported missing), and a
// file was taken as a mount root.
func TestDirectoryFlagsMustBeDirectories(t *testing.T) {
	prob := copyTree(t, "../../examples/inventory")
	sub := filepath.Join(prob, "submissions", "reference")
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "plugns")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", prob, "--submission", sub, "--plugin-dir", missing}, "--plugin-dir " + missing + ": no such file or directory"},
		{[]string{"run", prob, "--submission", sub, "--plugin-dir", file}, "--plugin-dir " + file + ": not a directory"},
		{[]string{"validate", prob, "--plugin-dir", missing}, "--plugin-dir " + missing + ": no such file or directory"},
		{[]string{"run", prob, "--submission", sub, "--mount-root", file}, "mount root " + file + ": not a directory"},
		{[]string{"validate", prob, "--mount-root", file}, "mount root " + file + ": not a directory"},
	} {
		out := filepath.Join(t.TempDir(), "run")
		args := tc.args
		if args[0] == "run" {
			args = append(args, "--out", out, "--progress", "none", "--no-history")
		}
		res := wasmeval(t, args...)
		if res.code != exitUsage || !strings.Contains(res.stderr, tc.want) {
			t.Errorf("%s: exit %d, want %d and %q:\n%s", strings.Join(tc.args, " "), res.code, exitUsage, tc.want, res.stderr)
		}
		if _, err := os.Stat(filepath.Join(out, journal.FileName)); err == nil {
			t.Errorf("%s: the run started", strings.Join(tc.args, " "))
		}
	}
}

// "run PROBLEM SUBMISSION", the natural first guess, is a usage error
// that says how the submission is given, not only how many arguments run
// takes; nothing runs.
func TestRunSaysHowTheSubmissionIsGiven(t *testing.T) {
	prob, sub := "../../examples/inventory", "../../examples/inventory/submissions/reference"
	out := filepath.Join(t.TempDir(), "run")
	res := wasmeval(t, "run", prob, sub, "--out", out, "--progress", "none", "--no-history")
	want := "run takes one PROBLEM, got 2 arguments (" + prob + " " + sub + "); the submission is given with --submission: wasmeval run " + prob + " --submission " + sub
	if res.code != exitUsage || !strings.Contains(res.stderr, want) {
		t.Errorf("exit %d, stderr %q\nwant %d and %q", res.code, res.stderr, exitUsage, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the run wrote %s (%v)", out, err)
	}
}
