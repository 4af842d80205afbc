package run

import (
	"path/filepath"
	"testing"

	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/plugins/callcache"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// TestVerdictCachePacksARun: a rescore leaves the entries it wrote in a
// pack (its log, renamed when it ends), and the next rescore, in a store
// opened again as the next process would, is answered from the pack,
// then writes no pack or log of its own.
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
	if logs, _ := filepath.Glob(filepath.Join(dir, "packs", "*.log")); len(logs) != 0 {
		t.Fatalf("logs left after the cold rescore: %v", logs)
	}
	if store, err = callcache.Open(dir); err != nil {
		t.Fatal(err)
	}
	if _, counts := verifyTimeOfRescore(t, p, from, store); counts.Hits != n || counts.Misses != 0 {
		t.Fatalf("warm, from the pack: %+v", counts)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "packs", "*")); len(files) != 1 {
		t.Fatalf("packs and logs after the warm rescore: %v", files)
	}
}

// TestWarmRescoreStartsNoWorker: a rescore whose every call is answered
// from the verdict cache, by a plugin host whose describe cache has the
// verifier, starts no plugin worker process (counted by the host), and
// gives the verdicts the cold rescore gave. A rescore that has to make
// the calls, with the same describe cache, starts its worker at the
// first call and gives them too.
func TestWarmRescoreStartsNoWorker(t *testing.T) {
	const n = 200
	v, p, from, hostCache, dir, store := cacheTestRun(t, "minimal", n)
	cold := rescoreCached(t, p, from, store, hostCache, host.Process)
	if cold.counts.Misses != n || cold.counts.Hits != 0 || cold.workers == 0 {
		t.Fatalf("cold: %+v, %d workers", cold.counts, cold.workers)
	}
	store, err := callcache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	warm := rescoreCached(t, p, from, store, hostCache, host.Process)
	if warm.counts.Hits != n || warm.counts.Misses != 0 {
		t.Fatalf("warm: %+v", warm.counts)
	}
	if warm.workers != 0 {
		t.Fatalf("the warm rescore started %d plugin workers, want none", warm.workers)
	}
	// An empty verdict cache: every call is made, by a worker started
	// at the first of them.
	empty, err := callcache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	made := rescoreCached(t, p, from, empty, hostCache, host.Process)
	if made.counts.Misses != n || made.workers == 0 {
		t.Fatalf("calls made after a cached describe: %+v, %d workers", made.counts, made.workers)
	}
	for _, r := range []cachedRescore{warm, made} {
		if r.outcome.Rescored != cold.outcome.Rescored || r.outcome.VerdictsChanged != cold.outcome.VerdictsChanged ||
			r.outcome.ScoresChanged != cold.outcome.ScoresChanged || r.outcome.VerdictsChanged != v.changed(n) {
			t.Fatalf("rescored %d, verdicts changed %d, scores %d; cold: %d, %d, %d (want %d changed)",
				r.outcome.Rescored, r.outcome.VerdictsChanged, r.outcome.ScoresChanged,
				cold.outcome.Rescored, cold.outcome.VerdictsChanged, cold.outcome.ScoresChanged, v.changed(n))
		}
	}
}

// TestWarmRescoreInProcessCompilesNothing: under the CLI's default
// isolation (auto) the Rust SDK's verifier runs in the host's process; a
// rescore answered wholly from the verdict cache, its describe answer
// cached, compiles no module and starts no worker, and gives the cold
// rescore's verdicts. With an empty verdict cache the module is compiled
// at the first call, once.
func TestWarmRescoreInProcessCompilesNothing(t *testing.T) {
	const n = 200
	_, p, from, hostCache, dir, store := cacheTestRun(t, "rust", n)
	cold := rescoreCached(t, p, from, store, hostCache, host.Auto)
	if cold.counts.Misses != n || cold.workers != 0 || cold.compiled != 1 {
		t.Fatalf("cold: %+v, %d workers, %d modules compiled; want %d misses, none, one", cold.counts, cold.workers, cold.compiled, n)
	}
	store, err := callcache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	warm := rescoreCached(t, p, from, store, hostCache, host.Auto)
	if warm.counts.Hits != n || warm.workers != 0 || warm.compiled != 0 {
		t.Fatalf("warm: %+v, %d workers, %d modules compiled; want %d hits and none", warm.counts, warm.workers, warm.compiled, n)
	}
	empty, err := callcache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	made := rescoreCached(t, p, from, empty, hostCache, host.Auto)
	if made.counts.Misses != n || made.workers != 0 || made.compiled != 1 {
		t.Fatalf("calls made after a cached describe: %+v, %d workers, %d modules compiled", made.counts, made.workers, made.compiled)
	}
	for _, r := range []cachedRescore{warm, made} {
		if r.outcome.Rescored != cold.outcome.Rescored || r.outcome.VerdictsChanged != cold.outcome.VerdictsChanged ||
			r.outcome.ScoresChanged != cold.outcome.ScoresChanged {
			t.Fatalf("rescored %d, verdicts changed %d, scores %d; cold: %d, %d, %d",
				r.outcome.Rescored, r.outcome.VerdictsChanged, r.outcome.ScoresChanged,
				cold.outcome.Rescored, cold.outcome.VerdictsChanged, cold.outcome.ScoresChanged)
		}
	}
}

// cacheTestRun records a run of n cases verified by the named verifier
// (of rescoreVerifiers), loads its problem, and opens an empty verdict
// cache; hostCache is a fresh plugin host cache directory.
func cacheTestRun(t *testing.T, name string, n int) (v rescoreVerifier, p *problem.Problem, from, hostCache, dir string, store *callcache.Store) {
	t.Helper()
	for _, rv := range rescoreVerifiers {
		if rv.name == name {
			v = rv
		}
	}
	if v.name != name {
		t.Fatalf("no rescore verifier %s", name)
	}
	prob, from := recordedRunVerified(t, n, 100, 40, 4, v.module(t), v.config)
	p, err := LoadProblem(prob)
	if err != nil {
		t.Fatal(err)
	}
	hostCache, dir = t.TempDir(), t.TempDir()
	if store, err = callcache.Open(dir); err != nil {
		t.Fatal(err)
	}
	return v, p, from, hostCache, dir, store
}
