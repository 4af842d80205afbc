package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/wasmeval/wasmeval/engine/manifest"
	"github.com/wasmeval/wasmeval/plugins/callcache"
)

// copyTree copies a directory (the example problem, plugins and
// submissions included) into a new one.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// withCache runs wasmeval with its verdict cache in dir.
func withCache(t *testing.T, dir string, args ...string) cliResult {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), callcache.EnvDir+"="+dir)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := cliResult{stdout: out.String(), stderr: errb.String(), code: cmd.ProcessState.ExitCode()}
	if err != nil && cmd.ProcessState == nil {
		t.Fatal(err)
	}
	if strings.Contains(res.stderr, "goroutine ") || strings.Contains(res.stderr, "panic:") {
		t.Fatalf("wasmeval printed a Go stack trace:\n%s", res.stderr)
	}
	return res
}

// cacheCounts reads a run's verdict cache counts from its manifest (nil
// when it records none) and checks the summary line says the same.
func cacheCounts(t *testing.T, r cliResult, dir string) *manifest.VerdictCache {
	t.Helper()
	m, err := manifest.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`verdict cache: (\d+) of (\d+) plugin call\(s\) answered from the cache, (\d+) made`).FindStringSubmatch(r.stdout)
	switch {
	case m.VerdictCache == nil && line != nil:
		t.Fatalf("the summary reports a cache the manifest does not:\n%s", r.stdout)
	case m.VerdictCache != nil && line == nil:
		t.Fatalf("the manifest records %+v, the summary says nothing:\n%s", *m.VerdictCache, r.stdout)
	case line != nil:
		want := fmt.Sprintf("%d %d %d", m.VerdictCache.Hits, m.VerdictCache.Hits+m.VerdictCache.Misses, m.VerdictCache.Misses)
		if got := strings.Join(line[1:], " "); got != want {
			t.Fatalf("summary says %s, manifest %s", got, want)
		}
	}
	return m.VerdictCache
}

// caseVerdicts are a run's verdicts by case: attributes, score, pass.
func caseVerdicts(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, r := range readJournal(t, dir) {
		data, err := json.Marshal(struct {
			A any
			S float64
			P bool
			O string
			U string
		}{r.Attributes, r.Score, r.Passed, string(r.Outcome), r.Unscored})
		if err != nil {
			t.Fatal(err)
		}
		out[r.Checkpoint+"/"+r.Group+"/"+r.ID] = string(data)
	}
	return out
}

func sameVerdicts(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d cases, want %d", what, len(got), len(want))
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: case %s:\n got %s\nwant %s", what, id, got[id], w)
		}
	}
}

// entries reads the cache's entries from its packs and logs
// (packs/*.pack, packs/*.log): the entry bytes by key, a later record of
// a key (a later file, or later in one file) over an earlier one.
func entries(t *testing.T, dir string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "packs", "*"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	out := map[string]string{}
	for _, f := range files {
		if !strings.HasSuffix(f, ".pack") && !strings.HasSuffix(f, ".log") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rest, ok := strings.CutPrefix(string(data), packMagic)
		if !ok {
			t.Fatalf("%s is not a pack", f)
		}
		for rest != "" {
			line, after, _ := strings.Cut(rest, "\n")
			k, length, _ := strings.Cut(line, " ")
			n, err := strconv.Atoi(length)
			if err != nil || n >= len(after) {
				t.Fatalf("%s: a record framed %q", f, line)
			}
			out[k] = after[:n]
			rest = after[n+1:]
		}
	}
	return out
}

// packMagic starts a verdict cache pack or log (plugins/callcache).
const packMagic = "wasmeval-call-cache-pack 1\n"

// writePack replaces the cache's packs and logs with one pack holding
// entries (key → entry bytes).
func writePack(t *testing.T, dir string, entries map[string]string) {
	t.Helper()
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	buf := []byte(packMagic)
	for _, k := range keys {
		buf = fmt.Appendf(buf, "%s %d\n%s\n", k, len(entries[k]), entries[k])
	}
	packs := filepath.Join(dir, "packs")
	if err := os.RemoveAll(packs); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(packs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(packs, "0000000000000001-0000000000000000.pack"), buf, 0o644); err != nil {
		t.Fatal(err)
	}
}

func expectCounts(t *testing.T, what string, got *manifest.VerdictCache, hits, misses int64) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: no verdict cache counts", what)
	}
	if got.Hits != hits || got.Misses != misses {
		t.Fatalf("%s: %d hits and %d misses, want %d and %d", what, got.Hits, got.Misses, hits, misses)
	}
}

// TestVerdictCache runs the example problem with its plugins (a Go
// verifier, a Go evaluator that reads the catalog through read_asset)
// twice, then rescores the run after changing one thing at a time: each
// change misses exactly the calls it concerns, and every verdict equals
// the one a run without the cache gives.
func TestVerdictCache(t *testing.T) {
	cache := t.TempDir()
	prob := copyTree(t, example)
	sub := filepath.Join(prob, "submissions", "reference")
	first, second := filepath.Join(t.TempDir(), "first"), filepath.Join(t.TempDir(), "second")

	r := withCache(t, cache, "run", prob, "--submission", sub, "--out", first)
	if r.code != 0 {
		t.Fatalf("first run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	c := cacheCounts(t, r, first)
	if c == nil || c.Hits != 0 || c.Misses == 0 {
		t.Fatalf("first run: %+v, want misses only", c)
	}
	calls := c.Misses
	stored := entries(t, cache)
	if len(stored) == 0 || int64(len(stored)) > calls {
		t.Fatalf("first run: %d entries for %d calls", len(stored), calls)
	}

	// The second run: every call answered from the cache, but those of
	// the cases that name a static asset ({{static:catalog}}): the local
	// runtime shows an asset at a path inside the run's own session
	// directory, and the path, in the case's arguments, is part of what
	// the verifier is given. Those miss in every run, the same ones.
	r = withCache(t, cache, "run", prob, "--submission", sub, "--out", second)
	if r.code != 0 {
		t.Fatalf("second run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	c2 := cacheCounts(t, r, second)
	if c2 == nil || c2.Hits+c2.Misses != calls || c2.Hits == 0 {
		t.Fatalf("second run: %+v, want %d calls, most of them hits", c2, calls)
	}
	sameVerdicts(t, "second run", caseVerdicts(t, second), caseVerdicts(t, first))
	third := filepath.Join(t.TempDir(), "third")
	r = withCache(t, cache, "run", prob, "--submission", sub, "--out", third)
	if r.code != 0 {
		t.Fatalf("third run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	expectCounts(t, "third run", cacheCounts(t, r, third), c2.Hits, c2.Misses)
	sameVerdicts(t, "third run", caseVerdicts(t, third), caseVerdicts(t, first))
	stored = entries(t, cache)

	// --no-cache: every call made, nothing read or written.
	nocache := filepath.Join(t.TempDir(), "nocache")
	r = withCache(t, cache, "run", prob, "--submission", sub, "--out", nocache, "--no-cache")
	if r.code != 0 {
		t.Fatalf("--no-cache run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if c := cacheCounts(t, r, nocache); c != nil {
		t.Fatalf("--no-cache run recorded %+v", *c)
	}
	if after := entries(t, cache); fmt.Sprint(after) != fmt.Sprint(stored) {
		t.Fatalf("--no-cache changed the cache: %d entries before, %d after", len(stored), len(after))
	}
	sameVerdicts(t, "--no-cache run", caseVerdicts(t, nocache), caseVerdicts(t, first))

	// rescore compares a rescore of the second run with the cache against
	// one without, and returns the cached one's counts.
	n := 0
	rescore := func(what string) *manifest.VerdictCache {
		t.Helper()
		n++
		cached, fresh := filepath.Join(t.TempDir(), fmt.Sprint("cached", n)), filepath.Join(t.TempDir(), fmt.Sprint("fresh", n))
		rc := withCache(t, cache, "rescore", second, "--problem", prob, "--out", cached)
		rf := withCache(t, cache, "rescore", second, "--problem", prob, "--out", fresh, "--no-cache")
		if rc.code != rf.code || rc.code == 2 {
			t.Fatalf("%s: rescore exits %d with the cache, %d without\n%s\n%s", what, rc.code, rf.code, rc.stderr, rf.stderr)
		}
		if c := cacheCounts(t, rf, fresh); c != nil {
			t.Fatalf("%s: rescore --no-cache recorded %+v", what, *c)
		}
		sameVerdicts(t, what, caseVerdicts(t, cached), caseVerdicts(t, fresh))
		return cacheCounts(t, rc, cached)
	}
	// A rescore gives the cases that name a static asset the placeholder,
	// not a run's path: they miss once, then hit like the others.
	expectCounts(t, "first rescore", rescore("first rescore"), c2.Hits, c2.Misses)
	expectCounts(t, "rescore, nothing changed", rescore("unchanged"), calls, 0)

	// records counts the run's records that pick says are of interest:
	// checkpoint_2 re-runs checkpoint_1's Core groups as regressions, so
	// a case of group summary is verified twice.
	records := func(pick func(group, id string) bool) int64 {
		n := int64(0)
		for _, rec := range readJournal(t, second) {
			if pick(rec.Group, rec.ID) {
				n++
			}
		}
		return n
	}
	// One case's expected value: its verifier calls alone miss.
	basic := filepath.Join(prob, "checkpoint_1", "summary", "basic", "case.yaml")
	editFile(t, basic, `"total_value": 23.47`, `"total_value": 23.48`)
	n1 := records(func(g, id string) bool { return strings.HasSuffix(g, "summary") && id == "basic" })
	if n1 != 2 {
		t.Fatalf("case basic was verified %d times, want 2 (its group and its regression)", n1)
	}
	expectCounts(t, "one expected value changed", rescore("expected"), calls-n1, n1)

	// The summary group's verifier config: each of its cases misses.
	cfg := filepath.Join(prob, "checkpoint_1", "config.yaml")
	editFile(t, cfg, "tolerance: 0.005", "tolerance: 0.01")
	ns := records(func(g, _ string) bool { return strings.HasSuffix(g, "summary") })
	expectCounts(t, "a binding's config changed", rescore("config"), calls-ns, ns)

	// The catalog the ranking evaluator reads through read_asset: each of
	// its calls misses (as do the calls of the cases the loader plugin
	// makes from the catalog, whose expected values change with it).
	top, _ := filepath.Glob(filepath.Join(prob, "checkpoint_1", "top", "*", "case.yaml"))
	editFile(t, filepath.Join(prob, "static", "catalog.csv"), "B200,rug,home,1,89.00", "B200,rug,home,1,1.00")
	if c := rescore("asset"); c.Misses < int64(len(top)) || c.Misses >= calls || c.Hits+c.Misses != calls {
		t.Fatalf("an asset changed: %+v, want at least the %d ranking calls to miss", *c, len(top))
	}
	expectCounts(t, "the asset again", rescore("asset again"), calls, 0)

	// The cache cleared (its directory deleted, as docs/running.md says):
	// every call is made again.
	if err := os.RemoveAll(cache); err != nil {
		t.Fatal(err)
	}
	expectCounts(t, "cache cleared", rescore("cleared"), 0, calls)

	// Corrupt entries on disk: the packs replaced by one holding every
	// entry, three of them damaged. Each is a miss, gets the right
	// verdict, and a good entry is written after it.
	files := entries(t, cache)
	names := make([]string, 0, len(files))
	for k := range files {
		names = append(names, k)
	}
	sort.Strings(names)
	bad := map[string]string{
		names[0]: files[names[0]][:len(files[names[0]])/2], // truncated
		names[1]: "not an entry at all",                    // garbage
		names[2]: files[names[3]],                          // another key's entry
	}
	damaged := maps.Clone(files)
	maps.Copy(damaged, bad)
	writePack(t, cache, damaged)
	c = rescore("corrupt entries")
	if int64(len(files)) != calls {
		t.Fatalf("%d entries for %d calls made", len(files), calls)
	}
	expectCounts(t, "corrupt entries", c, calls-3, 3)
	store, err := callcache.Open(cache)
	if err != nil {
		t.Fatal(err)
	}
	replaced := 0
	for k := range bad {
		if _, ok := store.Get(k); ok {
			replaced++
		}
	}
	if int64(replaced) != c.Misses {
		t.Fatalf("%d of the corrupt entries replaced, %d calls missed", replaced, c.Misses)
	}
}

// TestVerdictCacheTwoProcesses: two rescores sharing one cache at the
// same time both give the verdicts of a rescore without it.
func TestVerdictCacheTwoProcesses(t *testing.T) {
	cache := t.TempDir()
	prob := copyTree(t, example)
	runDir := filepath.Join(t.TempDir(), "run")
	r := withCache(t, t.TempDir(), "run", example, "--submission", example+"/submissions/broken", "--out", runDir, "--no-cache")
	if r.code != 1 {
		t.Fatalf("run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	want := caseVerdicts(t, runDir)
	for round := 0; round < 2; round++ { // cold, then warm
		var wg sync.WaitGroup
		outs := []string{filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")}
		results := make([]cliResult, 2)
		for i := range outs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = withCache(t, cache, "rescore", runDir, "--problem", prob, "--out", outs[i], "--jobs", "2")
			}()
		}
		wg.Wait()
		for i, out := range outs {
			if results[i].code != 1 {
				t.Fatalf("round %d, rescore %d: exit %d\n%s", round, i, results[i].code, results[i].stderr)
			}
			sameVerdicts(t, fmt.Sprintf("round %d, rescore %d", round, i), caseVerdicts(t, out), want)
		}
		if round == 1 {
			for i, out := range outs {
				if c := cacheCounts(t, results[i], out); c == nil || c.Misses != 0 {
					t.Fatalf("warm rescore %d: %+v, want hits only", i, c)
				}
			}
		}
	}
	if leftovers, _ := filepath.Glob(filepath.Join(cache, "*", ".tmp-*")); len(leftovers) > 0 {
		t.Fatalf("temporary files left: %v", leftovers)
	}
}

// editFile replaces old with new in a file, which must hold old.
func editFile(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	if err := os.WriteFile(path, bytes.Replace(data, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestVerdictCacheDistributed: with --workers the plugin calls are made
// (or answered from the cache) in the worker processes, which report how
// with each group: the summary line and the manifest count them as runs
// in one process do, cold and then warm, with the same verdicts.
func TestVerdictCacheDistributed(t *testing.T) {
	sub := filepath.Join(example, "submissions", "reference")
	runs := func(extra ...string) (counts []manifest.VerdictCache, verdicts []map[string]string) {
		cache := t.TempDir()
		for _, name := range []string{"cold", "warm"} {
			out := filepath.Join(t.TempDir(), name)
			r := withCache(t, cache, append([]string{"run", example, "--submission", sub, "--out", out}, extra...)...)
			if r.code != 0 {
				t.Fatalf("%s run %v: exit %d\n%s\n%s", name, extra, r.code, r.stdout, r.stderr)
			}
			c := cacheCounts(t, r, out)
			if c == nil {
				t.Fatalf("%s run %v: no verdict cache counts", name, extra)
			}
			counts = append(counts, *c)
			verdicts = append(verdicts, caseVerdicts(t, out))
		}
		return counts, verdicts
	}
	local, want := runs()
	if local[0].Hits != 0 || local[0].Misses == 0 || local[1].Hits == 0 {
		t.Fatalf("runs in one process counted %+v: want misses, then hits", local)
	}
	dist, got := runs("--workers", "2")
	for i, name := range []string{"cold", "warm"} {
		if dist[i] != local[i] {
			t.Errorf("%s: distributed run counted %+v, a run in one process %+v", name, dist[i], local[i])
		}
		sameVerdicts(t, name+" distributed run", got[i], want[i])
	}
}
