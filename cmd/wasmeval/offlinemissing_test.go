package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/pin"
	"github.com/wasmeval/wasmeval/plugins/share"
	"github.com/wasmeval/wasmeval/plugins/share/sharetest"
)

// An offline run with an empty cache names, in its first error, every
// artifact the lock names that the cache lacks: the problem's verifier
// and the evaluator a case file binds, which is resolved only when its
// case loads, after the verifier has already failed.
func TestOfflineRunListsEverythingMissing(t *testing.T) {
	reg := sharetest.StartRegistry(t, sharetest.RegistryOptions{})
	t.Setenv(share.CacheEnv, t.TempDir())
	verifier := "../../examples/inventory/plugins/inventory-verifier.wasm"
	ranking := "../../examples/inventory/plugins/inventory-ranking.wasm"
	vref := "oci://" + reg.Host + "/team-a/inventory-verifier:1.0"
	rref := "oci://" + reg.Host + "/team-b/ranking:2.0"
	for plugin, ref := range map[string]string{verifier: vref, ranking: rref} {
		if res := wasmeval(t, "plugin", "push", plugin, ref); res.code != 0 {
			t.Fatalf("push %s: %d %s", ref, res.code, res.stderr)
		}
	}
	dir := writeTree(t, map[string]string{
		"config.yaml": "name: p\nentry_file: main.sh\ncommand: sh {entry_file}\nadapter: {type: cli}\n" +
			"verifier:\n  ref: " + vref + "\n  sha256: " + pin.Digest(mustRead(t, verifier)) + "\n  config: {output: json}\n" +
			"checkpoints:\n  c1:\n    groups: {g: {type: Core}}\n",
		"c1/g/a/case.yaml": "expected: {status_code: 0, output: {\"ok\": true}}\n" +
			"checks:\n  - kind: evaluator\n    plugin:\n      ref: " + rref + "\n      sha256: " + pin.Digest(mustRead(t, ranking)) +
			"\n    function: top_by_value\n    arguments: {catalog: static/catalog.csv}\n",
		"static/catalog.csv": "sku,name,qty,price\nA1,widget,3,2.50\n",
	})
	sub := writeTree(t, map[string]string{"main.sh": "echo '{\"ok\": true}'\n"})
	if res := wasmeval(t, "plugin", "lock", dir); res.code != 0 {
		t.Fatalf("lock: %d %s", res.code, res.stderr)
	}
	lock := mustLock(t, mustRead(t, filepath.Join(dir, share.LockFileName)))
	if len(lock.Plugins) != 2 {
		t.Fatalf("the lock names %d plugins, want the verifier and the case's evaluator", len(lock.Plugins))
	}
	t.Setenv(share.CacheEnv, t.TempDir()) // an empty cache
	res := wasmeval(t, "run", dir, "--submission", sub, "--out", filepath.Join(t.TempDir(), "run"), "--offline")
	if res.code == 0 {
		t.Fatalf("offline run with an empty cache passed:\n%s", res.stdout)
	}
	if !strings.Contains(res.stderr, "the plugin cache lacks 2 of the artifacts") {
		t.Errorf("the offline failure does not say how many artifacts are missing:\n%s", res.stderr)
	}
	for _, e := range lock.Plugins {
		ref, err := share.ParseRef(e.Ref)
		if err != nil {
			t.Fatal(err)
		}
		if pinned := ref.AtDigest(e.Manifest).String(); !strings.Contains(res.stderr, pinned) {
			t.Errorf("the offline failure does not name %s:\n%s", pinned, res.stderr)
		}
	}
}
