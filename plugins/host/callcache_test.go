package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// memCache is a CallCache held in a map, counting what it answered. The
// store on disk (plugins/callcache) has tests of its own; these are about
// what the host keeps and when it trusts an entry.
type memCache struct {
	mu           sync.Mutex
	entries      map[string]CachedCall
	hits, misses int
	stores       int
}

func newMemCache() *memCache { return &memCache{entries: map[string]CachedCall{}} }

func (c *memCache) Lookup(key string, use func(CachedCall) bool) bool {
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	ok = ok && use(e)
	c.mu.Lock()
	defer c.mu.Unlock()
	if ok {
		c.hits++
	} else {
		c.misses++
	}
	return ok
}

func (c *memCache) Store(key string, e CachedCall) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries[key] = e
	c.stores++
}

func (c *memCache) counts() (hits, misses, stores int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.misses, c.stores
}

func TestCacheAnswersARepeatedCall(t *testing.T) {
	for _, iso := range []string{InProcess, Process} {
		t.Run(iso, func(t *testing.T) {
			var mu sync.Mutex
			var logs []string
			h := newHost(t, Options{Isolation: iso, Log: func(_, _, msg string) { mu.Lock(); logs = append(logs, msg); mu.Unlock() }})
			p := load(t, h, "misbehave")
			cache := newMemCache()
			opts := CallOptions{Cache: cache}
			in := verifyCall("log", nil) // logs once per call made
			first, err := verifyWith(p, in, opts)
			if err != nil {
				t.Fatal(err)
			}
			second, err := verifyWith(p, in, opts)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(first) != fmt.Sprint(second) {
				t.Fatalf("the cached verdict differs: %v, then %v", first, second)
			}
			if hits, misses, stores := cache.counts(); hits != 1 || misses != 1 || stores != 1 {
				t.Fatalf("hits %d misses %d stores %d, want 1 1 1", hits, misses, stores)
			}
			mu.Lock()
			n := len(logs)
			mu.Unlock()
			if n != 1 {
				t.Fatalf("the plugin ran %d times (its log: %q), want once", n, logs)
			}
			// Anything else in the input is another call: the config, the
			// expected value, the actual output.
			other := verifyCall("log", map[string]any{"x": 1})
			changedExpected := verifyCall("log", nil)
			changedExpected.Expected = map[string]any{"output": "other\n"}
			changedActual := verifyCall("log", nil)
			changedActual.Actual.Output = "other\n"
			for _, in := range []abi.VerifyInput{other, changedExpected, changedActual} {
				if _, err := verifyWith(p, in, opts); err != nil {
					t.Fatal(err)
				}
			}
			if hits, misses, _ := cache.counts(); hits != 1 || misses != 4 {
				t.Fatalf("after three other inputs: hits %d misses %d, want 1 4", hits, misses)
			}
			// Without assets and with them are two keys: a call with none
			// cannot answer one that could read files.
			if _, err := verifyWith(p, in, CallOptions{Cache: cache, Assets: testAssets{}}); err != nil {
				t.Fatal(err)
			}
			if hits, _, _ := cache.counts(); hits != 1 {
				t.Fatal("a call without assets answered one with assets")
			}
		})
	}
}

// TestCacheRechecksAssets: an entry names every file its call read, with
// its digest (or that it was refused), and answers a call only while
// each still reads the same.
func TestCacheRechecksAssets(t *testing.T) {
	for _, iso := range []string{InProcess, Process} {
		t.Run(iso, func(t *testing.T) {
			h := newHost(t, Options{Isolation: iso, AssetBytes: 1024})
			p := load(t, h, "misbehave")
			cache := newMemCache()
			assets := testAssets{"golden.txt": "golden"}
			call := func(path string) string {
				t.Helper()
				attrs, err := verifyWith(p, verifyCall("asset", map[string]any{"path": path}), CallOptions{Assets: assets, Cache: cache})
				if err != nil {
					t.Fatal(err)
				}
				return fmt.Sprint(attrs[0].Actual)
			}
			expect := func(path, want string, hits, misses int) {
				t.Helper()
				if got := call(path); got != want {
					t.Fatalf("read_asset(%s) = %q, want %q", path, got, want)
				}
				if h, m, _ := cache.counts(); h != hits || m != misses {
					t.Fatalf("after reading %s: hits %d misses %d, want %d %d", path, h, m, hits, misses)
				}
			}
			expect("golden.txt", "golden", 0, 1)
			expect("golden.txt", "golden", 1, 1)
			assets["golden.txt"] = "changed"
			expect("golden.txt", "changed", 1, 2)
			expect("golden.txt", "changed", 2, 2)
			// A refused read is recorded too: the file appearing, or
			// shrinking under the cap, changes the answer.
			expect("later.txt", "refused", 2, 3)
			expect("later.txt", "refused", 3, 3)
			assets["later.txt"] = "here now"
			expect("later.txt", "here now", 3, 4)
			delete(assets, "golden.txt")
			expect("golden.txt", "refused", 3, 5)
		})
	}
}

func TestCacheKeepsNoFault(t *testing.T) {
	h := newHost(t, Options{Isolation: Process})
	p := load(t, h, "misbehave")
	cache := newMemCache()
	opts := CallOptions{Cache: cache}
	for _, mode := range []string{"trap", "fail", "badjson", "badenvelope", "manyattrs"} {
		for i := 0; i < 2; i++ {
			if _, err := verifyWith(p, verifyCall(mode, map[string]any{"attributes": MaxVerdictAttributes + 1}), opts); err == nil {
				t.Fatalf("%s: no fault", mode)
			}
		}
	}
	if hits, misses, stores := cache.counts(); hits != 0 || misses != 10 || stores != 0 {
		t.Fatalf("faults: hits %d misses %d stores %d, want 0 10 0", hits, misses, stores)
	}
	// An error the plugin reports in its envelope is its answer: kept.
	for i := 0; i < 2; i++ {
		attrs, err := p.Verify(context.Background(), verifyCall("verdict", nil), opts)
		if err != nil || attrs.Error == "" {
			t.Fatalf("verdict mode: %+v, %v", attrs, err)
		}
	}
	if hits, _, stores := cache.counts(); hits != 1 || stores != 1 {
		t.Fatalf("reported error: hits %d stores %d, want 1 1", hits, stores)
	}
}

// TestCacheCorruptEntry: an entry whose output does not read as an answer
// is a miss; the call is made and its answer replaces the entry.
func TestCacheCorruptEntry(t *testing.T) {
	h := newHost(t, Options{})
	p := load(t, h, "misbehave")
	cache := newMemCache()
	opts := CallOptions{Cache: cache}
	in := verifyCall("", nil)
	want, err := verifyWith(p, in, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "{not json", `{"attributes":[{"attribute":"","is_correct":"yes"}]}`, `{"results":[]}`} {
		cache.mu.Lock()
		for k := range cache.entries {
			cache.entries[k] = CachedCall{Output: []byte(bad)}
		}
		cache.mu.Unlock()
		got, err := verifyWith(p, in, opts)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("entry %q: %v, %v; want %v", bad, got, err, want)
		}
		cache.mu.Lock()
		for _, e := range cache.entries {
			if string(e.Output) == bad {
				t.Errorf("entry %q was not replaced", bad)
			}
		}
		cache.mu.Unlock()
	}
	if hits, misses, _ := cache.counts(); hits != 0 || misses != 5 {
		t.Fatalf("hits %d misses %d, want 0 5", hits, misses)
	}
}

// TestCacheBatch: a batch's calls are looked up first and only the misses
// go to the plugin; a faulting call of a batch is made alone and not
// kept; every answer is the one a single call gives.
func TestCacheBatch(t *testing.T) {
	for _, iso := range []string{InProcess, Process} {
		t.Run(iso, func(t *testing.T) {
			h := newHost(t, Options{Isolation: iso})
			p := load(t, h, "misbehave")
			cache := newMemCache()
			opts := CallOptions{Cache: cache}
			ins := make([]abi.VerifyInput, 6)
			for i := range ins {
				ins[i] = verifyCall("", nil)
				ins[i].Case.ID = fmt.Sprintf("c%d", i)
				ins[i].Actual.Output = fmt.Sprintf("out %d\n", i%2)
				ins[i].Expected = map[string]any{"output": "out 0\n"}
			}
			ins[4].Case.Extra = map[string]any{"mode": "trap"}
			ins[5].Case.Extra = map[string]any{"mode": "verdict"}
			// Two of them answered before, alone.
			for _, i := range []int{0, 1} {
				if _, err := verifyWith(p, ins[i], opts); err != nil {
					t.Fatal(err)
				}
			}
			batches := p.batches.Load()
			outs, errs := p.VerifyBatch(context.Background(), ins, opts)
			for i := range ins {
				want, wantErr := p.Verify(context.Background(), ins[i], CallOptions{})
				if fmt.Sprint(outs[i]) != fmt.Sprint(want) || (errs[i] == nil) != (wantErr == nil) {
					t.Errorf("call %d: %v, %v; alone %v, %v", i, outs[i], errs[i], want, wantErr)
				}
			}
			var fault *Error
			if !errors.As(errs[4], &fault) {
				t.Fatalf("call 4 did not fault: %v", errs[4])
			}
			// 2 misses alone, then 2 hits and 4 misses in the batch; 2 + 3
			// stored (not the trap). The batch faulted as a whole on the
			// trap, so its four calls were made alone, not looked up again.
			if hits, misses, stores := cache.counts(); hits != 2 || misses != 6 || stores != 5 {
				t.Fatalf("hits %d misses %d stores %d, want 2 6 5", hits, misses, stores)
			}
			if p.batches.Load() != batches {
				t.Fatalf("a batch with a trap was answered as a batch")
			}
			// Again without the trap: everything but it is cached, and the
			// rest of the batch goes to the plugin.
			ins[4].Case.Extra = nil
			before := maps.Clone(cache.entries)
			outs, errs = p.VerifyBatch(context.Background(), ins, opts)
			for i := range ins {
				if errs[i] != nil {
					t.Fatalf("call %d: %v", i, errs[i])
				}
			}
			if hits, misses, stores := cache.counts(); hits != 7 || misses != 7 || stores != 6 {
				t.Fatalf("second batch: hits %d misses %d stores %d, want 7 7 6", hits, misses, stores)
			}
			if len(cache.entries) != len(before)+1 {
				t.Fatalf("%d entries, want %d", len(cache.entries), len(before)+1)
			}
			// Calls answered by a batch output are kept from it, and
			// answer the same calls later.
			for i := range ins {
				ins[i].Case.ID += "-again"
			}
			batches = p.batches.Load()
			first, errs := p.VerifyBatch(context.Background(), ins, opts)
			if p.batches.Load() != batches+1 {
				t.Fatalf("%d batches answered, want 1", p.batches.Load()-batches)
			}
			again, againErrs := p.VerifyBatch(context.Background(), ins, opts)
			for i := range ins {
				if errs[i] != nil || againErrs[i] != nil || fmt.Sprint(first[i]) != fmt.Sprint(again[i]) || fmt.Sprint(first[i]) != fmt.Sprint(outs[i]) {
					t.Fatalf("call %d: %v %v, then %v %v (before: %v)", i, first[i], errs[i], again[i], againErrs[i], outs[i])
				}
			}
			if hits, misses, stores := cache.counts(); hits != 13 || misses != 13 || stores != 12 {
				t.Fatalf("batch answered: hits %d misses %d stores %d, want 13 13 12", hits, misses, stores)
			}
		})
	}
}

// TestCacheBatchLooksUpInParallel: a large batch's lookups run on every
// core; each call still gets its own answer (run it with -race).
func TestCacheBatchLooksUpInParallel(t *testing.T) {
	h := newHost(t, Options{Isolation: Process})
	p := load(t, h, "misbehave")
	cache := newMemCache()
	opts := CallOptions{Cache: cache, Assets: testAssets{"a.txt": "a"}}
	ins := make([]abi.VerifyInput, 100)
	for i := range ins {
		ins[i] = verifyCall("", nil)
		ins[i].Case.ID = fmt.Sprintf("c%d", i)
		ins[i].Actual.Output = fmt.Sprintf("out %d\n", i%3)
		ins[i].Expected = map[string]any{"output": "out 0\n"}
	}
	cold, errs := p.VerifyBatch(context.Background(), ins, opts)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	warm, errs := p.VerifyBatch(context.Background(), ins, opts)
	for i := range ins {
		if errs[i] != nil || fmt.Sprint(warm[i]) != fmt.Sprint(cold[i]) {
			t.Fatalf("call %d: %v, %v; cold %v", i, warm[i], errs[i], cold[i])
		}
		if got, want := warm[i].Attributes[0].Actual, ins[i].Actual.Output; got != want {
			t.Fatalf("call %d answered with another call's verdict: actual %v, want %v", i, got, want)
		}
	}
	if hits, misses, _ := cache.counts(); hits != 100 || misses != 100 {
		t.Fatalf("hits %d misses %d, want 100 100", hits, misses)
	}
}

// TestCacheManyCallsWithoutBatches: a plugin without batches gets its
// many calls looked up at once too, and only the misses made.
func TestCacheManyCallsWithoutBatches(t *testing.T) {
	h := newHost(t, Options{Isolation: Process})
	p := load(t, h, "minimal")
	if p.Batches("verify") {
		t.Fatal("the minimal plugin answers batches; this test needs one that does not")
	}
	cache := newMemCache()
	opts := CallOptions{Cache: cache}
	ins := make([]abi.VerifyInput, 40)
	for i := range ins {
		ins[i] = verifyCall("", nil)
		ins[i].Case.ID = fmt.Sprintf("c%d", i)
	}
	cold, _ := p.VerifyBatch(context.Background(), ins[:30], opts)
	warm, errs := p.VerifyBatch(context.Background(), ins, opts)
	for i := range ins {
		if errs[i] != nil {
			t.Fatalf("call %d: %v", i, errs[i])
		}
		if i < 30 && fmt.Sprint(warm[i]) != fmt.Sprint(cold[i]) {
			t.Fatalf("call %d: %v, cold %v", i, warm[i], cold[i])
		}
	}
	if hits, misses, stores := cache.counts(); hits != 30 || misses != 40 || stores != 40 {
		t.Fatalf("hits %d misses %d stores %d, want 30 40 40", hits, misses, stores)
	}
}

// TestCacheChecksEntriesOfAnyVersion: an entry records the version of the
// checks its output passed, and a hit is checked again whatever its
// version: an entry of another version whose output the checks refuse
// (a verdict that judges nothing) is a miss, and the call replaces it.
func TestCacheChecksEntriesOfAnyVersion(t *testing.T) {
	h := newHost(t, Options{})
	p := load(t, h, "misbehave")
	cache := newMemCache()
	opts := CallOptions{Cache: cache}
	in := verifyCall("", nil)
	want, err := verifyWith(p, in, opts)
	if err != nil {
		t.Fatal(err)
	}
	cache.mu.Lock()
	for k, e := range cache.entries {
		if e.Validated != outputValidation {
			t.Errorf("entry kept with version %d, want %d", e.Validated, outputValidation)
		}
		cache.entries[k] = CachedCall{Output: []byte(`{"attributes":[]}`), Validated: outputValidation + 1}
	}
	cache.mu.Unlock()
	got, err := verifyWith(p, in, opts)
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%v, %v; want %v", got, err, want)
	}
	if hits, misses, stores := cache.counts(); hits != 0 || misses != 2 || stores != 2 {
		t.Fatalf("hits %d misses %d stores %d, want 0 2 2", hits, misses, stores)
	}
	cache.mu.Lock()
	defer cache.mu.Unlock()
	for _, e := range cache.entries {
		if e.Validated != outputValidation || string(e.Output) == `{"attributes":[]}` {
			t.Errorf("entry not replaced: %q, version %d", e.Output, e.Validated)
		}
	}
}

// TestCachedVerdictKeepsNoPartOfEntry: a verdict answered from the cache
// is scanned in place, and nothing of it changes when the entry's bytes
// do afterwards (a store may reuse or release them).
func TestCachedVerdictKeepsNoPartOfEntry(t *testing.T) {
	for _, text := range verdictTexts {
		raw := []byte(text)
		var got abi.VerifyOutput
		if err := checkCached("p", "verify", "verify_output", raw, &got); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		before, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		for i := range raw {
			raw[i] = 'x'
		}
		after, _ := json.Marshal(got)
		if string(after) != string(before) {
			t.Errorf("%s: the verdict changed with the entry's bytes:\n%s\n%s", text, before, after)
		}
	}
}

// A verdict scanned from an output the call owns gives what the text's
// scan gives, and writing into its json.RawMessage values (which are
// parts of that output) changes none of the strings it keeps.
func TestOwnedVerdictSharesOnlyItsValues(t *testing.T) {
	// The verdict's strings, values other than objects and lists
	// included.
	strs := func(vo abi.VerifyOutput) []string {
		out := []string{vo.Error, vo.Unscored}
		value := func(v any) string {
			if _, raw := v.(json.RawMessage); raw {
				return ""
			}
			return fmt.Sprint(v)
		}
		for _, a := range vo.Attributes {
			out = append(out, a.Attribute, value(a.Actual), value(a.Expected))
			if a.Diff != nil {
				out = append(out, a.Diff.Summary, a.Diff.Unified)
				for _, e := range a.Diff.Entries {
					out = append(out, e.Path, e.Op, value(e.Expected), value(e.Actual))
				}
			}
		}
		return out
	}
	for _, text := range verdictTexts {
		want, ok := scanVerifyOutputText(text)
		if !ok {
			continue // a verdict only the full path takes
		}
		got, ok := scanVerifyOutputOwned([]byte(text))
		gotJSON, _ := json.Marshal(got)
		wantJSON, _ := json.Marshal(want)
		if !ok || string(gotJSON) != string(wantJSON) {
			t.Fatalf("%s: owned scan %+v, %v; the text's %+v", text, got, ok, want)
		}
		before := strs(got)
		for _, a := range got.Attributes {
			for _, v := range []any{a.Actual, a.Expected} {
				if m, ok := v.(json.RawMessage); ok {
					for i := range m {
						m[i] = 'x'
					}
				}
			}
		}
		if after := strs(got); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Fatalf("%s: kept strings changed when the values were written to:\n%q\nwas\n%q", text, after, before)
		}
	}
}
