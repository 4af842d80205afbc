// Package host loads and runs wasmeval plugins: WebAssembly modules that
// speak the Extism ABI (see docs/plugin-abi.md), compiled by wazero.
//
// A Host compiles each distinct module once per process (and once per
// machine, through wazero's on-disk compilation cache), keeps a pool of
// instances per plugin so concurrent groups never share one, and runs every
// call in a sandbox: no network, no filesystem, no environment, a fake
// clock and a deterministic random source, a per-call timeout and a memory
// cap. An instance that trapped or timed out is discarded.
package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"

	"github.com/wasmeval/wasmeval/plugins/pin"
)

// Defaults for the sandbox limits.
const (
	DefaultTimeout     = 10 * time.Second
	DefaultMemoryBytes = 256 << 20
	DefaultAssetBytes  = 16 << 20

	// MinTimeout is the shortest per-call timeout: in process, Extism
	// counts timeouts in whole milliseconds, and a zero count would mean
	// no timeout (and no termination checks) at all.
	MinTimeout = time.Millisecond
	// MaxMemoryBytes is the largest memory cap: a 32-bit Wasm memory has
	// at most 65,536 pages of 64 KiB.
	MaxMemoryBytes = 65536 * wasmPage
	wasmPage       = 64 << 10
)

// Options configures a Host.
type Options struct {
	// CacheDir holds wazero's compilation cache. Empty means
	// <user cache dir>/wasmeval/wazero; "-" disables the on-disk cache.
	CacheDir string
	// Timeout bounds each call (default DefaultTimeout; at least
	// MinTimeout).
	Timeout time.Duration
	// MemoryBytes caps a plugin instance's linear memory (default
	// DefaultMemoryBytes; from one 64 KiB page to MaxMemoryBytes).
	MemoryBytes uint64
	// AssetBytes caps a file read through read_asset (default
	// DefaultAssetBytes).
	AssetBytes int64
	// Log receives plugin log lines (nil: discarded).
	Log func(plugin, level, msg string)
	// Isolation is where plugin code runs:
	//
	//   - "inprocess" (default): in this process, where a runaway call is
	//     stopped by the module's preemption points (a native-transport
	//     module, see internal/preempt) or by wazero's termination checks
	//     (an Extism module, and slow: see docs/plugin-abi.md);
	//   - "process": in worker processes running this same executable,
	//     compiled without checks and killed at the timeout. The program
	//     must call ServeWorker first thing in main (wasmeval does);
	//   - "auto": each plugin where it costs least: in process when it
	//     gets preemption points, in worker processes otherwise.
	Isolation string
}

// Isolation modes.
const (
	InProcess = "inprocess"
	Process   = "process"
	Auto      = "auto"
)

// Host loads plugins and runs calls into them. It is safe for concurrent
// use.
type Host struct {
	opts     Options
	cache    wazero.CompilationCache
	cacheDir string // resolved, "" when there is no cache

	mu      sync.Mutex
	plugins map[string]*loadEntry // by digest
	// loaded remembers which file (as last seen by stat) gave which plugin,
	// so loading the same unchanged file again — validation, then the run —
	// does not read and hash megabytes twice.
	loaded map[string]loadedFile

	// workersStarted counts the worker processes this host started;
	// describeHits the plugins it loaded from the describe cache;
	// compiledHere the native modules it compiled in its own process.
	workersStarted atomic.Int64
	describeHits   atomic.Int64
	compiledHere   atomic.Int64
}

// WorkersStarted is how many worker processes the host has started
// (Isolation "process"), for tests and inspection: a run whose every call
// was answered from the verdict cache, with every plugin's describe
// answer in the describe cache, starts none.
func (h *Host) WorkersStarted() int64 { return h.workersStarted.Load() }

// ModulesCompiled is how many native-transport modules the host has
// compiled in its own process for in-process calls (a worker compiles in its own): with
// isolation auto, a run answered wholly from the verdict cache, its
// plugins loaded from the describe cache, compiles none.
func (h *Host) ModulesCompiled() int64 { return h.compiledHere.Load() }

// DescribeCacheHits is how many plugins the host loaded with a describe
// answer from the describe cache, without starting a worker.
func (h *Host) DescribeCacheHits() int64 { return h.describeHits.Load() }

type loadedFile struct {
	info os.FileInfo
	p    *Plugin
}

type loadEntry struct {
	once sync.Once
	p    *Plugin
	err  error
}

// New returns a Host. Close it to release compiled modules.
func New(opts Options) (*Host, error) {
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Timeout < MinTimeout {
		return nil, fmt.Errorf("plugin timeout %v: expected at least %v", opts.Timeout, MinTimeout)
	}
	if opts.MemoryBytes == 0 {
		opts.MemoryBytes = DefaultMemoryBytes
	}
	if opts.MemoryBytes < wasmPage || opts.MemoryBytes > MaxMemoryBytes {
		return nil, fmt.Errorf("plugin memory cap %d MiB: expected from 64 KiB to %d MiB (a 32-bit Wasm memory's limit)",
			opts.MemoryBytes>>20, MaxMemoryBytes>>20)
	}
	if opts.AssetBytes <= 0 {
		opts.AssetBytes = DefaultAssetBytes
	}
	switch opts.Isolation {
	case "":
		opts.Isolation = InProcess
	case InProcess, Process, Auto:
	default:
		return nil, fmt.Errorf("plugin isolation %q: expected %s, %s or %s", opts.Isolation, Auto, Process, InProcess)
	}
	h := &Host{opts: opts, plugins: map[string]*loadEntry{}, loaded: map[string]loadedFile{}}
	if opts.CacheDir != "-" {
		dir := opts.CacheDir
		if dir == "" {
			base, err := os.UserCacheDir()
			if err != nil {
				base = os.TempDir()
			}
			dir = filepath.Join(base, "wasmeval", "wazero")
		}
		// Without a usable cache directory plugins still run, only compile
		// more slowly; that is not worth failing a run over.
		if err := os.MkdirAll(dir, 0o755); err == nil {
			if cache, err := wazero.NewCompilationCacheWithDir(dir); err == nil {
				h.cache, h.cacheDir = cache, dir
			}
		}
	}
	extism.SetLogLevel(extism.LogLevelInfo)
	return h, nil
}

// Close releases every compiled plugin.
func (h *Host) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, e := range h.plugins {
		if e.p != nil {
			e.p.close()
		}
	}
	h.plugins = map[string]*loadEntry{}
	h.loaded = map[string]loadedFile{}
	if h.cache != nil {
		return h.cache.Close(context.Background())
	}
	return nil
}

// Digest returns the sha256 of a file as lowercase hex.
func Digest(path string) (string, []byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", nil, err
	}
	return pin.Digest(data), data, nil
}

// Load compiles (once per process) the plugin in file and checks it: its
// digest must equal wantSHA256 when given, it must be a Wasm module, its
// describe export must answer with an ABI version the host speaks, and it
// must have the export of every kind it claims. In worker processes the
// describe answer may come from the describe cache (describecache.go),
// checked the same way, and the first worker then starts at the first
// call.
func (h *Host) Load(ctx context.Context, file, wantSHA256 string) (*Plugin, error) {
	return h.load(ctx, file, wantSHA256, h.opts.Isolation)
}

// LoadInProcess is Load for a plugin each of whose calls someone is
// waiting on as it is made, one at a time — a mock answering a
// submission's request — rather than calls the engine gathers into
// batches: the plugin runs in this process, under wazero's termination
// checks and the same limits, whatever the host's Isolation. A call then
// costs no round trip to a worker process, whose two wake-ups dominate a
// small call's latency on a busy machine (see RATIONALE.md, "Mock
// plugins run in process").
func (h *Host) LoadInProcess(ctx context.Context, file, wantSHA256 string) (*Plugin, error) {
	return h.load(ctx, file, wantSHA256, InProcess)
}

func (h *Host) load(ctx context.Context, file, wantSHA256, isolation string) (*Plugin, error) {
	// A plugin is loaded once per isolation: the file's last stat and the
	// digest are remembered with it, under keys apart for another
	// isolation than the host's.
	other := ""
	if isolation != h.opts.Isolation {
		other = isolation + "\x00"
	}
	key := other + file
	info, statErr := os.Stat(file)
	if statErr == nil {
		h.mu.Lock()
		lf, ok := h.loaded[key]
		h.mu.Unlock()
		if ok && os.SameFile(lf.info, info) && lf.info.Size() == info.Size() && lf.info.ModTime().Equal(info.ModTime()) &&
			(wantSHA256 == "" || wantSHA256 == lf.p.digest) {
			return lf.p, nil
		}
	}
	digest, data, err := Digest(file)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", file, err)
	}
	if wantSHA256 != "" && wantSHA256 != digest {
		return nil, &Error{Plugin: file, Fault: FaultDigest,
			Detail: fmt.Sprintf("config pins sha256 %s but the file has %s; refusing to run it", wantSHA256, digest)}
	}
	entryKey := other + digest
	h.mu.Lock()
	e, ok := h.plugins[entryKey]
	if !ok {
		e = &loadEntry{}
		h.plugins[entryKey] = e
	}
	h.mu.Unlock()
	e.once.Do(func() {
		switch isolation {
		case Process:
			e.p, e.err = h.startRemote(ctx, file, digest, data)
		case Auto:
			e.p, e.err = h.loadAuto(ctx, file, digest, data)
		default:
			e.p, e.err = h.compile(ctx, file, digest, data, true)
		}
		if e.p != nil {
			e.p.label = e.p.Label() // loaded: its describe is settled
		}
	})
	if e.p != nil && statErr == nil {
		h.mu.Lock()
		h.loaded[key] = loadedFile{info: info, p: e.p}
		h.mu.Unlock()
	}
	return e.p, e.err
}

// loadAuto loads a plugin where its calls cost least. A native-transport
// module given preemption points runs in process: stopping it there costs
// a few instructions per loop, and its calls no round trip to a worker.
// Any other module (an Extism module, or one the rewriter cannot read)
// would need wazero's termination checks in process, which cost a guest
// about three times its own time: it runs in worker processes. See
// RATIONALE.md, "Isolation".
//
// A native module whose describe answer is in the describe cache is
// compiled at its first call (lazy.go). Should the rewriter then refuse
// it, it runs in process under wazero's checks: slower, as safe.
func (h *Host) loadAuto(ctx context.Context, file, digest string, data []byte) (*Plugin, error) {
	if iface, err := readInterface(data); err == nil && iface.isNative() {
		if p := h.loadNativeLazily(file, digest, data); p != nil {
			return p, nil
		}
		p, err := h.compile(ctx, file, digest, data, true)
		if err != nil || p.native != nil && p.native.preempted {
			if err == nil {
				h.keepDescribe(h.inProcessKey(digest), p.describeRaw)
			}
			return p, err
		}
		p.close()
	}
	return h.startRemote(ctx, file, digest, data)
}

// Isolation is where the plugin's calls run: InProcess or Process (never
// Auto: a plugin loaded with it is in one or the other).
func (p *Plugin) Isolation() string {
	if p.workers != nil {
		return Process
	}
	return InProcess
}
