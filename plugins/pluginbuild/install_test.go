package pluginbuild

import (
	"os"
	"path/filepath"
	"testing"
)

// Building a plugin whose module is already in place with the same bytes
// changes nothing there — no rewrite, no temporary file, the provenance
// kept — so a test reading an example's directory while another test
// package rebuilds the examples sees no change; a missing provenance is
// written, and a different module is replaced.
func TestBuildAllLeavesAnUpToDateModuleAlone(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rel, err := filepath.Rel(root, filepath.Join(dir, "answer.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	ex := Example{Go, "./examples/agent-tasks/plugins/answer", rel}
	out := filepath.Join(dir, "answer.wasm")
	if err := BuildAll([]Example{ex}); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	prov := out + ".provenance.json"
	provBefore, err := os.Stat(prov)
	if err != nil {
		t.Fatal(err)
	}
	if err := BuildAll([]Example{ex}); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(out)
	provAfter, _ := os.Stat(prov)
	if !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) || !provAfter.ModTime().Equal(provBefore.ModTime()) {
		t.Fatalf("an up-to-date module or its provenance was rewritten")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("the directory holds %d entries, want the module and its provenance", len(entries))
	}

	os.Remove(prov)
	if err := BuildAll([]Example{ex}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(prov); err != nil {
		t.Fatalf("a missing provenance was not written: %v", err)
	}
	if err := os.WriteFile(out, []byte("\x00asm stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := BuildAll([]Example{ex}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(out); string(data) == "\x00asm stale" {
		t.Fatal("a module that differs was not replaced")
	}
}
