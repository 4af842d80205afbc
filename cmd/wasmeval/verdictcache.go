package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/wasmeval/wasmeval/engine/manifest"
	"github.com/wasmeval/wasmeval/engine/run"
	"github.com/wasmeval/wasmeval/plugins/callcache"
)

// cacheFlags are the verdict cache's settings, on the commands that
// verify (run, rescore).
type cacheFlags struct {
	off bool
}

func (f *cacheFlags) register(fl *pflag.FlagSet) {
	fl.BoolVar(&f.off, "no-cache", false, "make every plugin call: neither answer calls from the verdict cache nor keep their answers in it (also $"+callcache.EnvDir+"=off)")
}

// open opens the verdict cache (nil when it is off). A cache that cannot
// be opened costs the run its speed, not its results: said on warn, and
// the run goes on without it.
func (f *cacheFlags) open(warn io.Writer) *callcache.Store {
	if f.off {
		return nil
	}
	dir, err := callcache.DefaultDir()
	if err == nil && dir == "" {
		return nil
	}
	var store *callcache.Store
	if err == nil {
		store, err = callcache.Open(dir)
	}
	if err != nil {
		fmt.Fprintf(warn, "warning: %v; every plugin call is made (--no-cache to silence this)\n", err)
		return nil
	}
	return store
}

// recordCache adds a run's verdict cache counts to its manifest's (a
// resumed run's manifest holds the earlier sessions').
func recordCache(m *manifest.Manifest, c *run.CacheCounts) {
	if c == nil {
		return
	}
	if m.VerdictCache == nil {
		m.VerdictCache = &manifest.VerdictCache{}
	}
	m.VerdictCache.Hits += c.Hits
	m.VerdictCache.Misses += c.Misses
}

// printCache says how many plugin calls the verdict cache answered, when
// the run made any.
func printCache(w io.Writer, c *run.CacheCounts) {
	if c == nil || c.Hits+c.Misses == 0 {
		return
	}
	fmt.Fprintf(w, "verdict cache: %d of %d plugin call(s) answered from the cache, %d made\n", c.Hits, c.Hits+c.Misses, c.Misses)
}
