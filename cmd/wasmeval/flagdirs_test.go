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
