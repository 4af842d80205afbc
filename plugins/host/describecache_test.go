package host

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/pin"
)

// describeEntryFile is where a host with cache dir dir keeps the
// describe answer of the plugin file (for a host with opts).
func describeEntryFile(t *testing.T, dir, file string, opts Options) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	opts.CacheDir = dir
	h := newHost(t, opts)
	if opts.Isolation == Auto {
		return filepath.Join(h.describeDir(), h.inProcessKey(pin.Digest(data)))
	}
	return filepath.Join(h.describeDir(), h.describeKey(pin.Digest(data)))
}

// A plugin in worker processes whose describe answer is cached loads
// without starting a worker; its first call starts one, which answers as
// a worker started at load would, and the plugin is the same as loaded
// fresh.
func TestDescribeCacheLoadsWithoutAWorker(t *testing.T) {
	dir := t.TempDir()
	cold := newHost(t, Options{CacheDir: dir, Isolation: Process})
	fresh := load(t, cold, "minimal")
	if cold.WorkersStarted() != 1 || cold.DescribeCacheHits() != 0 {
		t.Fatalf("cold load: %d workers, %d describe hits; want 1, 0", cold.WorkersStarted(), cold.DescribeCacheHits())
	}
	if _, err := os.Stat(describeEntryFile(t, dir, plugins(t)["minimal"], Options{})); err != nil {
		t.Fatalf("no describe entry after a cold load: %v", err)
	}

	warm := newHost(t, Options{CacheDir: dir, Isolation: Process})
	p := load(t, warm, "minimal")
	if warm.WorkersStarted() != 0 || warm.DescribeCacheHits() != 1 || p.InstancesCreated() != 0 {
		t.Fatalf("warm load: %d workers, %d describe hits; want 0, 1", warm.WorkersStarted(), warm.DescribeCacheHits())
	}
	if p.Label() != fresh.Label() || strings.Join(p.Exports(), ",") != strings.Join(fresh.Exports(), ",") ||
		!bytes.Equal(p.describeRaw, fresh.describeRaw) || p.Describe().Name != "minimal" || !p.HasKind(abi.KindVerifier) {
		t.Fatalf("from the cache: %s %v %+v; fresh: %s %v %+v", p.Label(), p.Exports(), p.Describe(), fresh.Label(), fresh.Exports(), fresh.Describe())
	}
	for i := 0; i < 2; i++ {
		attrs, err := verifyMode(p, "ok", nil)
		if err != nil || len(attrs) != 2 || !attrs[0].IsCorrect {
			t.Fatalf("call %d: %v %+v", i, err, attrs)
		}
	}
	if warm.WorkersStarted() != 1 {
		t.Fatalf("two calls started %d workers, want 1 (started at the first, kept for the second)", warm.WorkersStarted())
	}
}

// Faults, limits and timeouts are the same when a plugin loaded from the
// describe cache starts its first worker at a call: the first call of
// each subtest below is on a plugin with no worker yet.
func TestDescribeCacheLazyWorkerFaults(t *testing.T) {
	dir := t.TempDir()
	opts := Options{CacheDir: dir, Timeout: 5 * time.Second, MemoryBytes: 32 << 20, Isolation: Process}
	load(t, newHost(t, opts), "misbehave") // fills the cache
	t.Run("each fault first", func(t *testing.T) {
		h := newHost(t, opts)
		p := load(t, h, "misbehave")
		if h.WorkersStarted() != 0 {
			t.Fatalf("%d workers started at load", h.WorkersStarted())
		}
		testFaultIsolation(t, Process, p, "misbehave")
	})
	for _, tc := range []struct{ mode, fault, detail string }{
		{"loop", FaultTimeout, "no answer within 5s"},
		{"oom", FaultMemory, "32 MiB cap"},
		{"trap", FaultTrap, "nil map"},
	} {
		t.Run("first call "+tc.mode, func(t *testing.T) {
			h := newHost(t, opts)
			p := load(t, h, "misbehave")
			if h.WorkersStarted() != 0 {
				t.Fatalf("%d workers started at load", h.WorkersStarted())
			}
			_, err := verifyMode(p, tc.mode, nil)
			var pe *Error
			if !errors.As(err, &pe) || pe.Fault != tc.fault || !strings.Contains(pe.Error(), tc.detail) ||
				!strings.HasPrefix(pe.Error(), "plugin misbehave@") {
				t.Fatalf("got %v, want fault %q containing %q", err, tc.fault, tc.detail)
			}
			if attrs, err := verifyMode(p, "ok", nil); err != nil || !attrs[0].IsCorrect {
				t.Fatalf("the next call must work: %v %+v", err, attrs)
			}
		})
	}
}

// An entry that is not a whole entry of this module's answer is a miss:
// the plugin is loaded as without a cache (a worker started, its answer
// asked), and its answer replaces the entry. Each way an entry can be
// damaged, truncated, foreign or forged so it claims what the module
// cannot do.
func TestDescribeCacheBadEntriesAreMisses(t *testing.T) {
	file := plugins(t)["minimal"]
	dir := t.TempDir()
	load(t, newHost(t, Options{CacheDir: dir, Isolation: Process}), "minimal")
	entry := describeEntryFile(t, dir, file, Options{})
	good, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.Base(entry)
	answer, err := decodeDescribeEntry(key, good)
	if err != nil {
		t.Fatalf("the entry written does not read back: %v", err)
	}
	// The native plugin's answer and entry: another module's.
	native := describeEntryFile(t, dir, plugins(t)["native"], Options{})
	load(t, newHost(t, Options{CacheDir: dir, Isolation: Process}), "native")
	nativeEntry, err := os.ReadFile(native)
	if err != nil {
		t.Fatal(err)
	}
	nativeAnswer, err := decodeDescribeEntry(filepath.Base(native), nativeEntry)
	if err != nil {
		t.Fatal(err)
	}
	flip := func(b []byte, at int) []byte { b = bytes.Clone(b); b[at] ^= 0x01; return b }
	framed := func(answer string) []byte { return encodeDescribeEntry(key, []byte(answer)) }
	headerEnd := bytes.IndexByte(good[len(describeEntryMagic):], '\n') + len(describeEntryMagic) + 1
	for _, tc := range []struct {
		name  string
		entry []byte
	}{
		{"empty", nil},
		{"magic only", []byte(describeEntryMagic)},
		{"header cut", good[:len(describeEntryMagic)+40]},
		{"header without its answer", good[:headerEnd]},
		{"answer cut by a byte", good[:len(good)-1]},
		{"a byte more", append(bytes.Clone(good), '}')},
		{"a bit flipped in the answer", flip(good, headerEnd+5)},
		{"a bit flipped in the checksum", flip(good, len(describeEntryMagic)+66)},
		{"a bit flipped in the key", flip(good, len(describeEntryMagic)+3)},
		{"another format", append([]byte("wasmeval describe 2\n"), good[len(describeEntryMagic):]...)},
		{"garbage", bytes.Repeat([]byte{0xff, 0x00, '\n'}, 100)},
		{"over the size cap", append(bytes.Clone(good), bytes.Repeat([]byte(" "), maxDescribeEntry)...)},
		{"another module's entry, copied", nativeEntry},
		{"another module's answer, under this key", encodeDescribeEntry(key, nativeAnswer)},
		{"not JSON", framed(`{"abi_version":1,"name":"minimal"`)},
		{"not a describe envelope", framed(`{"abi_version":1,"name":"","kinds":["verifier"]}`)},
		{"an ABI this host does not speak", framed(`{"abi_version":99,"name":"minimal","version":"1.0.0","kinds":["verifier"]}`)},
		{"a kind the module lacks", framed(`{"abi_version":1,"name":"minimal","version":"1.0.0","kinds":["verifier","evaluator"]}`)},
		{"a batch the module lacks", framed(`{"abi_version":1,"name":"minimal","version":"1.0.0","kinds":["verifier"],"batch":["verify"]}`)},
		{"a transport the module lacks", framed(`{"abi_version":1,"name":"minimal","version":"1.0.0","kinds":["verifier"],"transport":"native"}`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if bytes.Equal(tc.entry, good) {
				t.Fatal("the case is the good entry")
			}
			if err := os.WriteFile(entry, tc.entry, 0o644); err != nil {
				t.Fatal(err)
			}
			h := newHost(t, Options{CacheDir: dir, Isolation: Process})
			p := load(t, h, "minimal")
			if h.DescribeCacheHits() != 0 || h.WorkersStarted() != 1 {
				t.Fatalf("%d describe hits, %d workers; want a miss", h.DescribeCacheHits(), h.WorkersStarted())
			}
			if !bytes.Equal(p.describeRaw, answer) || p.Describe().Name != "minimal" || len(p.Describe().Kinds) != 1 {
				t.Fatalf("describe %+v", p.Describe())
			}
			if now, _ := os.ReadFile(entry); !bytes.Equal(now, good) {
				t.Fatalf("the entry was not replaced: %q", now)
			}
		})
	}
	t.Run("a directory in its place", func(t *testing.T) {
		os.Remove(entry)
		if err := os.Mkdir(entry, 0o755); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(entry)
		h := newHost(t, Options{CacheDir: dir, Isolation: Process})
		if p := load(t, h, "minimal"); h.DescribeCacheHits() != 0 || h.WorkersStarted() != 1 || p.Describe().Name != "minimal" {
			t.Fatalf("%d describe hits, %d workers, %+v", h.DescribeCacheHits(), h.WorkersStarted(), p.Describe())
		}
	})
}

// An entry is held whole: every shorter prefix of one and every one-bit
// change of it fails to decode.
func TestDescribeEntryDecode(t *testing.T) {
	key := strings.Repeat("ab", 32)
	good := encodeDescribeEntry(key, []byte(`{"abi_version":1,"name":"x","kinds":["verifier"]}`))
	if _, err := decodeDescribeEntry(key, good); err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(good); n++ {
		if _, err := decodeDescribeEntry(key, good[:n]); err == nil {
			t.Errorf("a prefix of %d bytes decodes", n)
		}
	}
	for i := range good {
		for bit := 0; bit < 8; bit++ {
			b := bytes.Clone(good)
			b[i] ^= 1 << bit
			if _, err := decodeDescribeEntry(key, b); err == nil {
				t.Errorf("byte %d bit %d changed: still decodes", i, bit)
			}
		}
	}
	if _, err := decodeDescribeEntry(strings.Repeat("cd", 32), good); err == nil {
		t.Error("an entry decodes under another key")
	}
}

// An entry that passes every check but is not the module's answer (here:
// another name) loads the plugin; its first worker says otherwise, so
// the first call is a fault that says so, and the entry is removed: the
// next load asks the plugin.
func TestDescribeCacheForgedEntryIsFoundAtTheFirstCall(t *testing.T) {
	dir := t.TempDir()
	entry := describeEntryFile(t, dir, plugins(t)["minimal"], Options{})
	load(t, newHost(t, Options{CacheDir: dir, Isolation: Process}), "minimal")
	forged := `{"abi_version":1,"name":"forged","version":"1.0.0","kinds":["verifier"]}`
	if err := os.WriteFile(entry, encodeDescribeEntry(filepath.Base(entry), []byte(forged)), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHost(t, Options{CacheDir: dir, Isolation: Process})
	p := load(t, h, "minimal")
	if h.DescribeCacheHits() != 1 || p.Describe().Name != "forged" {
		t.Fatalf("the forged entry was not used: %d hits, %+v", h.DescribeCacheHits(), p.Describe())
	}
	_, err := verifyMode(p, "ok", nil)
	var pe *Error
	if !errors.As(err, &pe) || pe.Fault != FaultEnvelope || !strings.Contains(pe.Detail, "describe cache") {
		t.Fatalf("the first call: %v", err)
	}
	if _, err := os.Stat(entry); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the forged entry is still there: %v", err)
	}
	// Later calls get the same fault without starting a worker each.
	started := h.WorkersStarted()
	if _, err := verifyMode(p, "ok", nil); !errors.As(err, &pe) || pe.Fault != FaultEnvelope || h.WorkersStarted() != started {
		t.Fatalf("the second call: %v, %d workers started (%d before)", err, h.WorkersStarted(), started)
	}
	h2 := newHost(t, Options{CacheDir: dir, Isolation: Process})
	if p := load(t, h2, "minimal"); p.Describe().Name != "minimal" || h2.DescribeCacheHits() != 0 {
		t.Fatalf("after: %+v, %d hits", p.Describe(), h2.DescribeCacheHits())
	}
}

// A changed module (another digest) does not get the old module's answer,
// even at the same path; nor does a host with another memory cap.
func TestDescribeCacheIsKeyedByModuleAndMemoryCap(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "verifier.wasm")
	copyFile := func(from string) {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	loadFile := func(opts Options) (*Host, *Plugin) {
		opts.CacheDir, opts.Isolation = dir, Process
		h := newHost(t, opts)
		p, err := h.Load(context.Background(), file, "")
		if err != nil {
			t.Fatal(err)
		}
		return h, p
	}
	copyFile(plugins(t)["native"])
	if _, p := loadFile(Options{}); p.Describe().Transport != abi.TransportNative {
		t.Fatalf("native: %+v", p.Describe())
	}
	if h, _ := loadFile(Options{}); h.DescribeCacheHits() != 1 {
		t.Fatal("the native plugin's answer was not kept")
	}
	copyFile(plugins(t)["minimal"])
	h, p := loadFile(Options{})
	if h.DescribeCacheHits() != 0 || h.WorkersStarted() != 1 || p.Describe().Name != "minimal" || p.Describe().Transport != "" {
		t.Fatalf("the changed module: %d hits, %d workers, %+v", h.DescribeCacheHits(), h.WorkersStarted(), p.Describe())
	}
	if h, _ := loadFile(Options{MemoryBytes: 64 << 20}); h.DescribeCacheHits() != 0 || h.WorkersStarted() != 1 {
		t.Fatalf("another memory cap: %d hits, %d workers", h.DescribeCacheHits(), h.WorkersStarted())
	}
	if h, _ := loadFile(Options{MemoryBytes: 64 << 20, Timeout: time.Minute, AssetBytes: 1 << 10}); h.DescribeCacheHits() != 1 {
		t.Fatal("the timeout or asset cap is part of the key; neither reaches describe")
	}
}

// Hosts loading the same plugin at once, with no entry yet, each write
// one; the entry left is whole and no temporary file is.
func TestDescribeCacheConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h, err := New(Options{CacheDir: dir, Isolation: Process})
			if err != nil {
				errs[i] = err
				return
			}
			defer h.Close()
			_, errs[i] = h.Load(context.Background(), plugins(t)["minimal"], "")
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	entry := describeEntryFile(t, dir, plugins(t)["minimal"], Options{})
	data, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decodeDescribeEntry(filepath.Base(entry), data); err != nil {
		t.Fatalf("the entry: %v", err)
	}
	if tmp, _ := filepath.Glob(filepath.Join(filepath.Dir(entry), ".tmp-*")); len(tmp) != 0 {
		t.Fatalf("temporary files left: %v", tmp)
	}
}

// Without an on-disk cache there is no describe cache: every load starts
// a worker.
func TestNoDescribeCacheWithoutACacheDir(t *testing.T) {
	for i := 0; i < 2; i++ {
		h := newHost(t, Options{CacheDir: "-", Isolation: Process})
		load(t, h, "minimal")
		if h.WorkersStarted() != 1 || h.DescribeCacheHits() != 0 {
			t.Fatalf("load %d: %d workers, %d hits", i, h.WorkersStarted(), h.DescribeCacheHits())
		}
	}
}

// A native plugin run in process (isolation auto) whose describe answer is
// cached loads without being compiled, and is compiled at its first call;
// the calls are answered as from a plugin compiled at load, a runaway
// first call is stopped, and a forged entry is found out at the first call
// and removed.
func TestDescribeCacheDefersInProcessCompilation(t *testing.T) {
	dir := t.TempDir()
	cold := newHost(t, Options{CacheDir: dir, Isolation: Auto, Timeout: 3 * time.Second})
	if p := load(t, cold, "native"); p.native == nil || p.lazy != nil || cold.DescribeCacheHits() != 0 {
		t.Fatalf("cold load: compiled %v, lazy %v, %d describe hits", p.native != nil, p.lazy != nil, cold.DescribeCacheHits())
	}
	entry := describeEntryFile(t, dir, plugins(t)["native"], Options{Isolation: Auto})
	if _, err := os.Stat(entry); err != nil {
		t.Fatalf("no describe entry after a cold load: %v", err)
	}

	for _, first := range []string{"ok", "loop"} {
		warm := newHost(t, Options{CacheDir: dir, Isolation: Auto, Timeout: 3 * time.Second})
		p := load(t, warm, "native")
		if p.native != nil || p.lazy == nil || warm.DescribeCacheHits() != 1 || p.Isolation() != InProcess {
			t.Fatalf("warm load: compiled %v, lazy %v, %d describe hits, %s", p.native != nil, p.lazy != nil, warm.DescribeCacheHits(), p.Isolation())
		}
		_, err := verifyMode(p, first, nil)
		var pe *Error
		if first == "loop" && (!errors.As(err, &pe) || pe.Fault != FaultTimeout) {
			t.Fatalf("a looping first call: %v", err)
		}
		if p.native == nil || !p.native.preempted {
			t.Fatal("the first call did not compile the module with preemption points")
		}
		if attrs, err := verifyMode(p, "ok", nil); err != nil || len(attrs) != 1 || !attrs[0].IsCorrect {
			t.Fatalf("after a first %s call: %v %+v", first, err, attrs)
		}
	}

	forged := bytes.Replace(cold.loaded[plugins(t)["native"]].p.describeRaw, []byte(`"name":"`), []byte(`"name":"forged-`), 1)
	if err := os.WriteFile(entry, encodeDescribeEntry(filepath.Base(entry), forged), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHost(t, Options{CacheDir: dir, Isolation: Auto})
	p := load(t, h, "native")
	if !strings.HasPrefix(p.Describe().Name, "forged-") {
		t.Fatalf("the forged entry was not used: %+v", p.Describe())
	}
	for i := 0; i < 2; i++ {
		var pe *Error
		if _, err := verifyMode(p, "ok", nil); !errors.As(err, &pe) || pe.Fault != FaultEnvelope || !strings.Contains(pe.Detail, "describe cache") {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if _, err := os.Stat(entry); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the forged entry is still there: %v", err)
	}
}

// Auto runs a native module the preemption rewriter refuses in worker
// processes, loaded from the describe cache or not: an answer kept by a
// worker-process load never loads it lazily into the host's process. A
// module whose in-process entry says it was rewritten before, and which
// now cannot be, runs under wazero's checks for that run and loses the
// entry, so the next load goes to workers.
func TestAutoRunsARefusedModuleInWorkersFromTheDescribeCache(t *testing.T) {
	dir := t.TempDir()
	// A cold load in process with preemption points keeps the in-process
	// entry; a worker-process load keeps the other one.
	load(t, newHost(t, Options{CacheDir: dir, Isolation: Auto}), "native")
	load(t, newHost(t, Options{CacheDir: dir, Isolation: Process}), "native")
	inProcess := describeEntryFile(t, dir, plugins(t)["native"], Options{Isolation: Auto})
	for _, f := range []string{inProcess, describeEntryFile(t, dir, plugins(t)["native"], Options{})} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("no describe entry %s: %v", f, err)
		}
	}

	refuse := func(t *testing.T) {
		saved := instrument
		instrument = func([]byte) ([]byte, error) { return nil, errors.New("refused for the test") }
		t.Cleanup(func() { instrument = saved })
	}
	t.Run("entry says rewritten, rewriter now refuses", func(t *testing.T) {
		refuse(t)
		h := newHost(t, Options{CacheDir: dir, Isolation: Auto, Timeout: 3 * time.Second})
		p := load(t, h, "native")
		if p.lazy == nil || p.Isolation() != InProcess {
			t.Fatalf("loaded lazily %v, %s: want a lazy in-process load from the entry", p.lazy != nil, p.Isolation())
		}
		if attrs, err := verifyMode(p, "ok", nil); err != nil || len(attrs) != 1 || !attrs[0].IsCorrect {
			t.Fatalf("attrs %+v, err %v", attrs, err)
		}
		if p.native == nil || p.native.preempted {
			t.Fatal("the call did not run under wazero's checks")
		}
		var pe *Error
		if _, err := verifyMode(p, "loop", nil); !errors.As(err, &pe) || pe.Fault != FaultTimeout {
			t.Fatalf("the looping call: %v", err)
		}
		if _, err := os.Stat(inProcess); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the in-process entry is still there: %v", err)
		}
	})
	t.Run("no in-process entry, rewriter refuses", func(t *testing.T) {
		refuse(t)
		for i := 0; i < 2; i++ { // with the worker-process entry, then again
			h := newHost(t, Options{CacheDir: dir, Isolation: Auto, Timeout: 3 * time.Second})
			p := load(t, h, "native")
			if p.Isolation() != Process || p.lazy != nil {
				t.Fatalf("load %d: runs %s (lazy %v), want worker processes", i, p.Isolation(), p.lazy != nil)
			}
			if attrs, err := verifyMode(p, "ok", nil); err != nil || len(attrs) != 1 || !attrs[0].IsCorrect {
				t.Fatalf("load %d: attrs %+v, err %v", i, attrs, err)
			}
			if _, err := os.Stat(inProcess); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("load %d: a module auto ran in workers left an in-process entry: %v", i, err)
			}
		}
	})
}

// The first calls of a plugin loaded lazily, made at once from many
// goroutines, share its one compilation (run with -race).
func TestLazyPluginFirstCallsAtOnce(t *testing.T) {
	dir := t.TempDir()
	load(t, newHost(t, Options{CacheDir: dir, Isolation: Auto}), "native")
	h := newHost(t, Options{CacheDir: dir, Isolation: Auto, Timeout: 30 * time.Second})
	p := load(t, h, "native")
	if p.lazy == nil {
		t.Fatal("not loaded lazily")
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			attrs, err := verifyMode(p, "ok", nil)
			if err == nil && (len(attrs) != 1 || !attrs[0].IsCorrect) {
				err = fmt.Errorf("attrs %+v", attrs)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}
