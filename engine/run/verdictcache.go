package run

import (
	"context"
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

// flush makes the log of the entries the run wrote a pack
// (callcache.Store.Flush). A log that cannot be renamed is read as it is
// by the next run.
func (c *verdictCache) flush() {
	if c != nil {
		_ = c.store.Flush()
	}
}

// forCalls is the cache as a call's option: nil (no cache at all, not a
// nil pointer in an interface) when the run has none; counting in ctx's
// callCounter too, when it has one.
func (c *verdictCache) forCalls(ctx context.Context) host.CallCache {
	if c == nil {
		return nil
	}
	if n, ok := ctx.Value(callCounterKey{}).(*callCounter); ok {
		return countedCache{c, n}
	}
	return c
}

// counts is what the run's calls got so far; nil without a cache.
// add counts calls made elsewhere (a distributed run's workers) as the
// run's own; nothing without a cache.
func (c *verdictCache) add(n CacheCounts) {
	if c != nil {
		c.hits.Add(n.Hits)
		c.misses.Add(n.Misses)
	}
}

// callCounterKey carries, in a context, a counter of the calls made under
// it (withCallCounter).
type callCounterKey struct{}

// callCounter counts the verdict cache's answers to some of a run's calls
// (one group's, whose worker reports them).
type callCounter struct{ hits, misses atomic.Int64 }

func withCallCounter(ctx context.Context, n *callCounter) context.Context {
	return context.WithValue(ctx, callCounterKey{}, n)
}

// countedCache is the cache as a call's option, counting its answers in
// a counter of the caller's too.
type countedCache struct {
	*verdictCache
	n *callCounter
}

func (c countedCache) Lookup(key string, use func(host.CachedCall) bool) bool {
	ok := c.verdictCache.Lookup(key, use)
	if ok {
		c.n.hits.Add(1)
	} else {
		c.n.misses.Add(1)
	}
	return ok
}

func (c *verdictCache) counts() *CacheCounts {
	if c == nil {
		return nil
	}
	return &CacheCounts{Hits: c.hits.Load(), Misses: c.misses.Load()}
}
