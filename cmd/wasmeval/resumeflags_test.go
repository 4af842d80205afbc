package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/manifest"
	"github.com/wasmeval/wasmeval/engine/result"
)

// A resumed run, and a rescore, find what the problem names where the run
// did, without being told again: plugins bound by name in a --plugin-dir,
// and plugin files under a --mount-root. The manifest keeps the first
// command line and adds the resume's, and lists every plugin the run used.
func TestResumeTakesWhereTheRunFoundItsPlugins(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T) (prob string, flags []string)
	}{
		{"plugin-dir", func(t *testing.T) (string, []string) {
			prob, dir := inventoryWithPluginDir(t)
			return prob, []string{"--plugin-dir", dir}
		}},
		{"mount-root", func(t *testing.T) (string, []string) {
			prob, shared := inventoryWithOutsideRanking(t, true)
			return prob, []string{"--mount-root", shared}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prob, flags := tc.setup(t)
			out := filepath.Join(t.TempDir(), "run")
			args := append([]string{"run", prob, "--submission", filepath.Join(prob, "submissions", "reference")}, flags...)
			code, recs := runRecords(t, out, args...)
			if code != 0 || len(recs) != 20 {
				t.Fatalf("run exited %d with %d cases; want 0 and the example's 20", code, len(recs))
			}
			// The run stops after its first ten results, as if killed.
			keepFirstLines(t, filepath.Join(out, journal.FileName), 10)

			res := wasmeval(t, "run", "--resume", out, "--progress", "none", "--no-history")
			if res.code != 0 {
				t.Fatalf("resume without %s: exit %d:\n%s", flags[0], res.code, res.stderr)
			}
			n := 0
			if err := journal.Read(filepath.Join(out, journal.FileName), func(*result.CaseRecord) error { n++; return nil }); err != nil || n != 20 {
				t.Fatalf("after the resume the journal holds %d results (%v), want 20", n, err)
			}
			m, err := manifest.Read(out)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(m.Flags.Args, flags[0]+"="+flags[1]) || len(m.Flags.ResumeArgs) != 1 ||
				!slices.Contains(m.Flags.ResumeArgs[0], "--resume="+out) {
				t.Errorf("manifest args %q, resume args %q: want the first run's and the resume's", m.Flags.Args, m.Flags.ResumeArgs)
			}
			// Every plugin the run used is in its manifest, those only the
			// case files bind (the ranking evaluator, under --mount-root)
			// among them.
			found := false
			for file := range m.Plugins {
				found = found || strings.HasSuffix(file, "inventory-ranking.wasm")
			}
			if !found {
				t.Errorf("manifest plugins %v: the ranking evaluator is missing", m.Plugins)
			}
			// So does a rescore of the run.
			res = wasmeval(t, "rescore", out, "--out", filepath.Join(t.TempDir(), "rescored"), "--progress", "none")
			if res.code != 0 {
				t.Errorf("rescore without %s: exit %d:\n%s", flags[0], res.code, res.stderr)
			}
			// Given again, a flag wins over the manifest's: a directory
			// without the plugins is searched, and the problem refused.
			keepFirstLines(t, filepath.Join(out, journal.FileName), 10)
			res = wasmeval(t, "run", "--resume", out, flags[0], t.TempDir(), "--progress", "none", "--no-history")
			if res.code != exitUsage {
				t.Errorf("resume with another %s: exit %d, want %d:\n%s", flags[0], res.code, exitUsage, res.stderr)
			}
		})
	}
}

// keepFirstLines cuts a journal after its first n lines.
func keepFirstLines(t *testing.T, file string, n int) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	if len(lines) <= n {
		t.Fatalf("%s has %d lines, not more than %d", file, len(lines), n)
	}
	if err := os.WriteFile(file, bytes.Join(lines[:n], nil), 0o644); err != nil {
		t.Fatal(err)
	}
}
