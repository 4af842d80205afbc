package host

import (
	"crypto/sha256"
	"encoding/hex"
	goruntime "runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// The verdict cache (docs/running.md, "Verdict cache"). A call's answer
// depends only on the module, the input envelope (which carries the
// binding's config), the host's memory cap and the files the call reads:
// every call sees the same clock and the same seeded random stream
// (clock.go), no network and no file system, and read_asset is its only
// way to see anything else. So the host can answer a call of verify,
// evaluate or test from an earlier one's output, if every file that call
// read still reads the same. The host computes the key and judges an
// entry; the caller keeps the entries (CallOptions.Cache).

// CallCache keeps plugin calls' outputs. The engine gives one with each
// call (plugins/callcache stores them on disk); nil means no cache.
type CallCache interface {
	// Lookup offers use the entry stored under key, if there is one; use
	// says whether it answers the call (the files it read are unchanged
	// and its output reads as a verdict). Lookup returns what use
	// returned, false when there was no entry: a miss, after which the
	// call is made.
	Lookup(key string, use func(CachedCall) bool) bool
	// Store keeps a call's output under key, replacing what was there. A
	// call never fails because its output could not be kept.
	Store(key string, c CachedCall)
}

// CachedCall is what the cache keeps of a call: its output, and every
// file it read through read_asset.
type CachedCall struct {
	// Output is the plugin's output as it returned it. The verdict made
	// from it may share its memory: a cache must not write to it.
	Output []byte
	Reads  []AssetRead
	// Validated is the version of the host's output checks the output
	// passed when it was kept (outputValidation); an entry of another
	// version is checked again in full.
	Validated uint32
}

// AssetRead is one read_asset of a call: the path the plugin gave, and
// the sha256 of the bytes it got, or Refused when it got none (a missing
// file, an escape, a file over the size cap).
type AssetRead struct {
	Path    string
	SHA256  string
	Refused bool
}

// callCacheVersion is part of every key. It changes when what the host
// gives a plugin changes (the clock, the random stream, the host
// functions, how an envelope is encoded), which could change an answer.
const callCacheVersion = 1

// outputValidation is the version of the checks the host holds a
// plugin's output to before a call is answered with it: the output
// envelope's ABI schema, the verdict scanner (verdictscan.go) and a kind's
// limits (checkVerdict). Every entry records the version its output
// passed (CachedCall.Validated). Bump it whenever any of those checks
// changes. Today every hit is checked in full whatever its version (for a
// verdict, checking is decoding: the scanner does both in one pass, so
// there is nothing to skip; plugins/callcache/RATIONALE.md), so the
// version tells a later host which entries its checks have not seen.
const outputValidation = 1

// cacheable says whether calls of export may be answered from the cache:
// the judging calls (verify, evaluate, test). Loaders are not: a stateful
// one is called again with the history, and loading is not what a rescore
// repeats.
func (p *Plugin) cacheable(export string, opts CallOptions) bool {
	if opts.Cache == nil {
		return false
	}
	switch export {
	case "verify", "evaluate", "test":
		return true
	}
	return false
}

// cacheKey is the key of a call of export with input: a sha256 over the
// module's digest, the export, the memory cap, whether the call has
// assets, and the input envelope's bytes (the binding's config, the case,
// the actual result and the expected value are all in it).
func (p *Plugin) cacheKey(export string, input []byte, opts CallOptions) string {
	h := sha256.New()
	var pre [160]byte
	b := append(pre[:0], "wasmeval call "...)
	b = strconv.AppendInt(b, callCacheVersion, 10)
	b = append(b, 0)
	b = append(b, p.digest...)
	b = append(b, 0)
	b = append(b, export...)
	b = append(b, 0)
	b = strconv.AppendUint(b, p.host.opts.MemoryBytes, 10)
	b = strconv.AppendBool(append(b, 0), opts.Assets != nil)
	b = append(b, 0)
	h.Write(b)
	h.Write(input)
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0]))
}

// unchanged says whether every file a cached call read still reads the
// same through the call's assets now.
func (p *Plugin) unchanged(reads []AssetRead, opts CallOptions) bool {
	for _, r := range reads {
		data, err := readAsset(assetScope{assets: opts.Assets, max: p.host.opts.AssetBytes}, r.Path)
		if (err != nil) != r.Refused {
			return false
		}
		if err == nil && digestOf(data) != r.SHA256 {
			return false
		}
	}
	return true
}

func digestOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// lookup answers a call from the cache: decode turns a cached output
// into the call's result (and fails on one that does not read as one).
func (p *Plugin) lookup(key string, opts CallOptions, decode func([]byte) error) bool {
	return opts.Cache.Lookup(key, func(c CachedCall) bool {
		return p.unchanged(c.Reads, opts) && decode(c.Output) == nil
	})
}

// checkCached checks and decodes a cached output as checkEnvelope does a
// plugin's. A verdict is scanned in place, keeping no part of raw (each
// string it keeps is its own copy; most are decoded copies anyway), rather
// than copied whole first: the entry's bytes are the store's, and a hit
// otherwise paid for a copy of the whole verdict to keep a few words of
// it. Anything the scanner leaves to the full path is copied first, as
// there.
func checkCached(label, export, schema string, raw []byte, v any) error {
	if vo, ok := v.(*abi.VerifyOutput); ok && len(raw) > 0 {
		if fast, ok := scanVerifyOutputDetached(unsafe.String(&raw[0], len(raw))); ok {
			*vo = fast
			return nil
		}
	}
	return checkEnvelope(label, export, schema, raw, v)
}

// recordingAssets are a call's assets, noting every read (for the cache
// entry the call's output makes).
type recordingAssets struct {
	assets Assets
	mu     sync.Mutex
	reads  []AssetRead
}

// recording wraps opts' assets to note reads. Without assets nothing is
// noted: every read is refused, and the key says there were none.
func recording(opts CallOptions) (CallOptions, *recordingAssets) {
	if opts.Assets == nil {
		return opts, &recordingAssets{}
	}
	r := &recordingAssets{assets: opts.Assets}
	opts.Assets = r
	return opts, r
}

func (r *recordingAssets) ReadAsset(path string, max int64) ([]byte, error) {
	data, err := r.assets.ReadAsset(path, max)
	read := AssetRead{Path: path, Refused: err != nil}
	if err == nil {
		read.SHA256 = digestOf(data)
	}
	r.mu.Lock()
	r.reads = append(r.reads, read)
	r.mu.Unlock()
	return data, err
}

// noted is what was read so far, each path once (the first read: a call
// reads a problem's files, which do not change under it).
func (r *recordingAssets) noted() []AssetRead {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := make(map[string]bool, len(r.reads))
	out := make([]AssetRead, 0, len(r.reads))
	for _, rd := range r.reads {
		if !seen[rd.Path] {
			seen[rd.Path] = true
			out = append(out, rd)
		}
	}
	return out
}

// lookupAll runs look(scratch, i) for i in [0, n), on every core when
// there are enough: a lookup is encoding the call's envelope, its key, and
// finding and decoding its verdict, each call's own, and a batch's
// lookups would otherwise leave every core but one idle while a run
// verifies one group at a time. scratch is a buffer of the goroutine's
// own, for look to encode into and keep grown.
func lookupAll(n int, look func(scratch *[]byte, i int)) {
	workers := min(goruntime.GOMAXPROCS(0), n/minLookupsPerWorker)
	if workers < 2 {
		scratch := getBuffer()
		for i := 0; i < n; i++ {
			look(&scratch, i)
		}
		putBuffer(scratch)
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			scratch := getBuffer()
			defer func() { putBuffer(scratch) }()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				look(&scratch, i)
			}
		}()
	}
	wg.Wait()
}

// minLookupsPerWorker keeps small batches' lookups on one goroutine: a
// goroutine's start costs about what a lookup does.
const minLookupsPerWorker = 16
