package run

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/callcache"
)

// TestVerdictCachePacksARun: a rescore leaves the entries it wrote in a
// pack, and the next rescore, in a store opened again as the next process
// would, is answered from the pack alone (the entries' own files are
// removed first), then writes no pack of its own.
func TestVerdictCachePacksARun(t *testing.T) {
	v := rescoreVerifiers[1]
	if v.name != "minimal" {
		t.Fatalf("rescoreVerifiers[1] is %s, want minimal", v.name)
	}
	const n = 300
	prob, from := recordedRunVerified(t, n, 100, 40, 4, v.module(t), v.config)
	p, err := LoadProblem(prob)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	store, err := callcache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, counts := verifyTimeOfRescore(t, p, from, store); counts.Misses != n || counts.Hits != 0 {
		t.Fatalf("cold: %+v", counts)
	}
	packs, _ := filepath.Glob(filepath.Join(dir, "packs", "*.pack"))
	if len(packs) != 1 {
		t.Fatalf("packs after the cold rescore: %v", packs)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "??", "*"))
	if len(files) != n {
		t.Fatalf("%d entry files, want %d", len(files), n)
	}
	for _, f := range files {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	if store, err = callcache.Open(dir); err != nil {
		t.Fatal(err)
	}
	if _, counts := verifyTimeOfRescore(t, p, from, store); counts.Hits != n || counts.Misses != 0 {
		t.Fatalf("warm, from the pack: %+v", counts)
	}
	if packs, _ := filepath.Glob(filepath.Join(dir, "packs", "*.pack")); len(packs) != 1 {
		t.Fatalf("packs after the warm rescore: %v", packs)
	}
}
