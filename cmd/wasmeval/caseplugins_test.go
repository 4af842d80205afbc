package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/plugins/share"
	"github.com/wasmeval/wasmeval/plugins/share/sharetest"
)

// rebindCasePlugin makes the inventory example's case files that bind the
// moved ranking evaluator (inventoryWithOutsideRanking) bind it by binding
// instead of by path ("name: …" or "ref: …").
func rebindCasePlugin(t *testing.T, prob, binding string) {
	t.Helper()
	path := regexp.MustCompile(`(?m)^(\s+)path: \.\./\S+$`)
	for _, c := range []string{"top_all", "top_two"} {
		file := filepath.Join(prob, "checkpoint_1", "top", c, "case.yaml")
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !path.Match(b) {
			t.Fatalf("%s binds no plugin by a path leading out of the problem:\n%s", file, b)
		}
		if err := os.WriteFile(file, path.ReplaceAll(b, []byte("${1}"+binding)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// rankedByTheEvaluator checks that the top group's cases passed with the
// moved evaluator's verdict among their attributes.
func rankedByTheEvaluator(t *testing.T, recs map[string]*result.CaseRecord) {
	t.Helper()
	for _, k := range []string{"checkpoint_1/top/top_all", "checkpoint_1/top/top_two"} {
		r := recs[k]
		if r == nil {
			t.Fatalf("%s: not in the run", k)
		}
		found := false
		for _, a := range r.Attributes {
			found = found || strings.Contains(a.Attribute, "top_by_value") && a.IsCorrect
		}
		if !found || !r.Passed {
			t.Errorf("%s: passed %v, attributes %+v; want the evaluator's verdict among them", k, r.Passed, r.Attributes)
		}
	}
}

// A case file's own check binds its evaluator by name (found in
// --plugin-dir) or by reference (an OCI registry, through the problem's
// lock), as a problem's config can: `plugin lock` locks the reference the
// case files name, and the runs score those cases with the plugin. A name
// found nowhere is refused before the run, naming the case file and key.
func TestCaseFilesBindPluginsByNameAndByReference(t *testing.T) {
	t.Run("by name", func(t *testing.T) {
		prob, shared := inventoryWithOutsideRanking(t, true)
		rebindCasePlugin(t, prob, "name: inventory-ranking")
		sub := filepath.Join(prob, "submissions", "reference")
		code, recs := runRecords(t, filepath.Join(t.TempDir(), "run"), "run", prob, "--submission", sub, "--plugin-dir", shared)
		if code != 0 || len(recs) != 20 {
			t.Fatalf("run exited %d with %d cases; want 0 and the example's 20", code, len(recs))
		}
		rankedByTheEvaluator(t, recs)

		res := wasmeval(t, "run", prob, "--submission", sub, "--out", filepath.Join(t.TempDir(), "none"), "--progress", "none", "--no-history")
		want := filepath.Join(prob, "checkpoint_1", "top", "top_all", "case.yaml") + ": checks[1].plugin.name: plugin \"inventory-ranking\" not found"
		if res.code != exitUsage || !strings.Contains(res.stderr, want) {
			t.Errorf("without --plugin-dir: exit %d, want %d and %q:\n%s", res.code, exitUsage, want, res.stderr)
		}
	})

	t.Run("by reference", func(t *testing.T) {
		reg := sharetest.StartRegistry(t, sharetest.RegistryOptions{})
		t.Setenv(share.CacheEnv, t.TempDir())
		prob, shared := inventoryWithOutsideRanking(t, true)
		ref := "oci://" + reg.Host + "/team-a/inventory-ranking:1.0"
		if res := wasmeval(t, "plugin", "push", filepath.Join(shared, "inventory-ranking.wasm"), ref); res.code != 0 {
			t.Fatalf("push: %d %s", res.code, res.stderr)
		}
		rebindCasePlugin(t, prob, "ref: "+ref)
		res := wasmeval(t, "plugin", "lock", prob)
		if res.code != 0 || !strings.Contains(res.stdout, "locked "+ref+"\n") {
			t.Fatalf("lock: exit %d; want 0 and the case files' reference locked:\n%s%s", res.code, res.stdout, res.stderr)
		}
		// The module comes from the cache, through the lock: the registry
		// is not needed any more.
		if err := os.RemoveAll(shared); err != nil {
			t.Fatal(err)
		}
		reg.Stop()
		code, recs := runRecords(t, filepath.Join(t.TempDir(), "run"), "run", prob, "--submission", filepath.Join(prob, "submissions", "reference"), "--offline")
		if code != 0 || len(recs) != 20 {
			t.Fatalf("offline run exited %d with %d cases; want 0 and the example's 20", code, len(recs))
		}
		rankedByTheEvaluator(t, recs)
	})
}
