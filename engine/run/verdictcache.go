package run

import (
	"sync/atomic"

	"github.com/wasmeval/wasmeval/plugins/callcache"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// CacheCounts says how a run's plugin calls (verifiers, evaluator and test
// functions) were answered: Hits from the verdict cache, Misses by running
// the plugin.
type CacheCounts struct {
	Hits   int64 `json:"hits"`
	Misses int64 `json:"misses"`
}

// verdictCache is a run's view of the verdict cache: the store on disk,
// and what the run's calls got from it.
type verdictCache struct {
	store        *callcache.Store
	hits, misses atomic.Int64
}

func newVerdictCache(store *callcache.Store) *verdictCache {
	if store == nil {
		return nil
	}
	return &verdictCache{store: store}
}

// Lookup implements host.CallCache.
func (c *verdictCache) Lookup(key string, use func(host.CachedCall) bool) bool {
	ok := c.store.Find(key, func(e callcache.Entry) bool {
		reads := make([]host.AssetRead, len(e.Reads))
		for i, r := range e.Reads {
			reads[i] = host.AssetRead{Path: r.Path, SHA256: r.SHA256, Refused: r.Refused}
		}
		return use(host.CachedCall{Output: e.Output, Reads: reads, Validated: e.Validated})
	})
	if ok {
		c.hits.Add(1)
	} else {
		c.misses.Add(1)
	}
	return ok
}

// Store implements host.CallCache. An entry that cannot be written (a
// full disk, a directory removed) only costs the next run the call.
func (c *verdictCache) Store(key string, call host.CachedCall) {
	reads := make([]callcache.Read, len(call.Reads))
	for i, r := range call.Reads {
		reads[i] = callcache.Read{Path: r.Path, SHA256: r.SHA256, Refused: r.Refused}
	}
	_ = c.store.Put(key, callcache.Entry{Output: call.Output, Reads: reads, Validated: call.Validated})
}

// flush packs the entries the run wrote or found only in their own files,
// so the next run reads them at once (callcache.Store.Flush). A pack that
// cannot be written costs the next run only the speed.
func (c *verdictCache) flush() {
	if c != nil {
		_ = c.store.Flush()
	}
}

// forCalls is the cache as a call's option: nil (no cache at all, not a
// nil pointer in an interface) when the run has none.
func (c *verdictCache) forCalls() host.CallCache {
	if c == nil {
		return nil
	}
	return c
}

// counts is what the run's calls got so far; nil without a cache.
func (c *verdictCache) counts() *CacheCounts {
	if c == nil {
		return nil
	}
	return &CacheCounts{Hits: c.hits.Load(), Misses: c.misses.Load()}
}
