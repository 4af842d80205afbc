package host

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/pin"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

var (
	buildOnce sync.Once
	built     map[string]string
	buildErr  error
)

// plugins builds the test plugins from source once per test binary.
func plugins(t testing.TB) map[string]string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "wasmeval-host-test-")
		if err != nil {
			buildErr = err
			return
		}
		built = map[string]string{
			"misbehave": filepath.Join(dir, "misbehave.wasm"),
			"abi99":     filepath.Join(dir, "abi99.wasm"),
			"minimal":   filepath.Join(dir, "minimal.wasm"),
			"native":    filepath.Join(dir, "native.wasm"),
		}
		if buildErr = pluginbuild.Build("./testdata/native", built["native"]); buildErr != nil {
			return
		}
		built["claims-native"] = filepath.Join(dir, "claims-native.wasm")
		if buildErr = pluginbuild.Build("./testdata/misbehave", built["claims-native"], "-ldflags=-X main.transport=native"); buildErr != nil {
			return
		}
		built["claims-stdio"] = filepath.Join(dir, "claims-stdio.wasm")
		if buildErr = pluginbuild.Build("./testdata/native", built["claims-stdio"], "-ldflags=-X main.transport=stdio"); buildErr != nil {
			return
		}
		if buildErr = pluginbuild.Build("./testdata/misbehave", built["misbehave"]); buildErr != nil {
			return
		}
		if buildErr = pluginbuild.Build("./testdata/minimal", built["minimal"]); buildErr != nil {
			return
		}
		built["batch-lie"] = filepath.Join(dir, "batch-lie.wasm")
		if buildErr = pluginbuild.Build("./testdata/misbehave", built["batch-lie"], "-ldflags=-X main.batchLie=1"); buildErr != nil {
			return
		}
		buildErr = pluginbuild.Build("./testdata/misbehave", built["abi99"], "-ldflags=-X main.abiOverride=99")
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built
}

// TestMain lets this test binary serve as a plugin worker.
func TestMain(m *testing.M) {
	ServeWorker()
	code := m.Run()
	// The plugins built for the tests and benchmarks.
	if built != nil {
		os.RemoveAll(filepath.Dir(built["misbehave"]))
	}
	if verifierWasm != "" {
		os.Remove(verifierWasm)
	}
	os.Exit(code)
}

func newHost(t testing.TB, opts Options) *Host {
	t.Helper()
	if opts.CacheDir == "" {
		opts.CacheDir = filepath.Join(os.TempDir(), "wasmeval-host-test-cache")
	}
	h, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func load(t testing.TB, h *Host, name string) *Plugin {
	t.Helper()
	p, err := h.Load(context.Background(), plugins(t)[name], "")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// verifyCall is a verify call of case c1 with the test plugins' mode.
func verifyCall(mode string, extra map[string]any) abi.VerifyInput {
	cfg := map[string]any{"mode": mode}
	for k, v := range extra {
		cfg[k] = v
	}
	return abi.VerifyInput{Config: cfg, Case: abi.Case{ID: "c1", Arguments: []string{"a"}},
		Actual: abi.Actual{Output: "hi\n"}, Expected: map[string]any{"output": "hi\n"}}
}

func verifyMode(p *Plugin, mode string, extra map[string]any) ([]abi.Attribute, error) {
	return verifyWith(p, verifyCall(mode, extra), CallOptions{})
}

func verifyWith(p *Plugin, in abi.VerifyInput, opts CallOptions) ([]abi.Attribute, error) {
	out, err := p.Verify(context.Background(), in, opts)
	return out.Attributes, err
}

// testAssets are assets held in memory, refused by name (as the engine's
// problem assets refuse escapes) or when over the cap.
type testAssets map[string]string

func (a testAssets) ReadAsset(path string, max int64) ([]byte, error) {
	data, ok := a[path]
	if !ok {
		return nil, fmt.Errorf("%s is not a problem file", path)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is %d bytes, over the %d byte cap", path, len(data), max)
	}
	return []byte(data), nil
}

func TestLoadDescribeAndVerify(t *testing.T) {
	h := newHost(t, Options{})
	p := load(t, h, "misbehave")
	d := p.Describe()
	if d.Name != "misbehave" || d.ABIVersion != abi.Version || !p.HasKind(abi.KindVerifier) || len(p.Digest()) != 64 {
		t.Fatalf("describe %+v digest %s", d, p.Digest())
	}
	if got := strings.Join(p.Exports(), ","); got != "describe,verify,load_cases,evaluate,test,verify_batch" {
		t.Errorf("exports %s", got)
	}
	attrs, err := verifyMode(p, "ok", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(attrs) != 1 || attrs[0].Attribute != "output" || !attrs[0].IsCorrect {
		t.Fatalf("attrs %+v", attrs)
	}
	// Loading the same file again returns the same compiled plugin.
	if again := load(t, h, "misbehave"); again != p {
		t.Error("a module must be compiled once per host")
	}
}

func TestLoadRefusals(t *testing.T) {
	h := newHost(t, Options{})
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.wasm")
	os.WriteFile(text, []byte("this is not wasm at all"), 0o644)
	empty := filepath.Join(dir, "empty.wasm")
	os.WriteFile(empty, []byte("\x00asm\x01\x00\x00\x00"), 0o644)
	cases := []struct {
		file, sha, fault, detail string
	}{
		{text, "", FaultNotWasm, "magic number"},
		{empty, "", FaultMissingExport, "every wasmeval plugin exports describe"},
		{plugins(t)["misbehave"], strings.Repeat("0", 64), FaultDigest, "refusing to run it"},
		{plugins(t)["abi99"], "", FaultABI, "the plugin speaks ABI 99; this wasmeval speaks 1"},
	}
	for _, c := range cases {
		_, err := h.Load(context.Background(), c.file, c.sha)
		var pe *Error
		if !errors.As(err, &pe) || pe.Fault != c.fault || !strings.Contains(pe.Error(), c.detail) {
			t.Errorf("%s: got %v, want fault %q with %q", filepath.Base(c.file), err, c.fault, c.detail)
		}
	}
	digest, _, _ := Digest(plugins(t)["misbehave"])
	if _, err := h.Load(context.Background(), plugins(t)["misbehave"], digest); err != nil {
		t.Errorf("matching digest: %v", err)
	}
}

// Every kind of misbehaviour is contained: a clear fault naming the plugin
// and export, the faulty instance discarded, and the next call fine.
func TestFaultIsolation(t *testing.T) {
	for _, iso := range []string{InProcess, Process} {
		t.Run(iso, func(t *testing.T) {
			// The timeout leaves a loaded machine room to reach the memory
			// cap first.
			h := newHost(t, Options{Timeout: 5 * time.Second, MemoryBytes: 32 << 20, Isolation: iso})
			testFaultIsolation(t, iso, load(t, h, "misbehave"), "misbehave")
		})
	}
}

// testFaultIsolation checks every misbehaviour of p (the misbehave plugin,
// on any transport), whose describe names it name.
func testFaultIsolation(t *testing.T, isolation string, p *Plugin, name string) {
	for _, tc := range []struct{ mode, fault, detail string }{
		{"trap", FaultTrap, "nil map"},
		{"loop", FaultTimeout, "no answer within 5s"},
		{"oom", FaultMemory, "32 MiB cap"},
		{"badjson", FaultInvalidJSON, `output starts "{not json"`},
		{"badenvelope", FaultEnvelope, "verify_output"},
		{"fail", FaultFailed, "refusing on purpose"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			_, err := verifyMode(p, tc.mode, nil)
			var pe *Error
			if !errors.As(err, &pe) || pe.Fault != tc.fault || pe.Export != "verify" || !strings.Contains(pe.Error(), tc.detail) {
				t.Fatalf("got %v, want fault %q containing %q", err, tc.fault, tc.detail)
			}
			if !strings.HasPrefix(pe.Error(), "plugin "+name+"@") {
				t.Errorf("the message names the plugin: %s", pe.Error())
			}
			attrs, err := verifyMode(p, "ok", nil)
			if err != nil || !attrs[0].IsCorrect {
				t.Fatalf("the next call must work: %v %+v", err, attrs)
			}
		})
	}
	// In process, trapped and timed-out instances are discarded; with
	// workers, traps are handled inside the worker and a timed-out worker
	// is killed.
	if want := map[string]int64{InProcess: 3, Process: 1}[isolation]; p.discarded.Load() < want {
		t.Errorf("discarded %d, want at least %d", p.discarded.Load(), want)
	}
}

// A plugin's diff keeps at most as many entries as a built-in check's.
func TestPluginDiffIsCapped(t *testing.T) {
	p := load(t, newHost(t, Options{}), "misbehave")
	attrs, err := verifyMode(p, "bigdiff", nil)
	if err != nil {
		t.Fatal(err)
	}
	d := attrs[0].Diff
	if d == nil || len(d.Entries) != abi.MaxDiffEntries || !d.Truncated || d.Summary != "10000 lines differ" ||
		d.Entries[abi.MaxDiffEntries-1].Path != fmt.Sprintf("line %d", abi.MaxDiffEntries) {
		t.Errorf("diff kept %d entries (truncated %v)", len(d.Entries), d.Truncated)
	}
}

// A verdict with more attributes than MaxVerdictAttributes is a fault of
// the plugin, not a verdict to store; one at the cap is accepted.
func TestVerdictWithTooManyAttributesIsAFault(t *testing.T) {
	p := load(t, newHost(t, Options{}), "misbehave")
	attrs, err := verifyMode(p, "manyattrs", map[string]any{"attributes": MaxVerdictAttributes})
	if err != nil || len(attrs) != MaxVerdictAttributes {
		t.Fatalf("a verdict at the cap: %d attributes, %v", len(attrs), err)
	}
	attrs, err = verifyMode(p, "manyattrs", map[string]any{"attributes": 20000})
	var perr *Error
	if !errors.As(err, &perr) || perr.Fault != FaultOversized || attrs != nil ||
		!strings.Contains(err.Error(), "export verify: returned an oversized verdict: 20000 attributes in one verdict, at most 256 are accepted") {
		t.Fatalf("20,000 attributes: %v (%d kept)", err, len(attrs))
	}
}

// An error a verifier reports in its envelope is its verdict, passed on
// as such, not a fault.
func TestVerdictErrorIsNotAFault(t *testing.T) {
	p := load(t, newHost(t, Options{}), "misbehave")
	out, err := p.Verify(context.Background(), verifyCall("verdict", nil), CallOptions{})
	if err != nil || out.Error != "cannot verify this output" {
		t.Fatalf("%v %+v", err, out)
	}
}

// Wall clock and randomness cannot change a verdict: two hosts (fresh
// instances, fresh runtimes) give byte-identical answers.
func TestDeterministicSandbox(t *testing.T) {
	var outs []string
	for _, iso := range []string{InProcess, Process} {
		p := load(t, newHost(t, Options{CacheDir: "-", Isolation: iso}), "misbehave")
		for j := 0; j < 2; j++ {
			attrs, err := verifyMode(p, "clock", nil)
			if err != nil {
				t.Fatal(err)
			}
			outs = append(outs, fmt.Sprint(attrs[0].Actual))
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, o := range outs[1:] {
		if o != outs[0] {
			t.Fatalf("clock/random differ between calls: %q", outs)
		}
	}
	// And on any machine: the wall clock reads 2022-01-01T00:00:00Z, the
	// random bytes are the sandbox's fixed ChaCha8 stream and the
	// monotonic clock moves only by the plugin's 3 ms sleep, so the answer
	// is this constant wherever and whenever the test runs.
	if want := "1640995200000000000 ce4ed727a9eeda8b 3000000"; outs[0] != want {
		t.Errorf("clock/random answer %q, want the pinned %q", outs[0], want)
	}
}

// read_asset reads through the call's Assets, in process and relayed
// from a worker process alike; a refusal reaches the plugin as a refusal
// and its reason the run log, and a call without assets can read none.
func TestReadAsset(t *testing.T) {
	for _, iso := range []string{InProcess, Process} {
		t.Run(iso, func(t *testing.T) {
			var logs []string
			var mu sync.Mutex
			h := newHost(t, Options{Isolation: iso, AssetBytes: 1024, Log: func(plugin, level, msg string) {
				mu.Lock()
				logs = append(logs, level+" "+msg)
				mu.Unlock()
			}})
			p := load(t, h, "misbehave")
			assets := testAssets{"golden.txt": "golden", "big.bin": strings.Repeat("x", 2048)}
			for path, want := range map[string]string{"golden.txt": "golden", "../secret": "refused", "big.bin": "refused"} {
				attrs, err := verifyWith(p, verifyCall("asset", map[string]any{"path": path}), CallOptions{Assets: assets})
				if err != nil {
					t.Fatal(err)
				}
				if attrs[0].Actual != want {
					t.Errorf("read_asset(%q) = %v, want %q", path, attrs[0].Actual, want)
				}
			}
			attrs, err := verifyWith(p, verifyCall("asset", map[string]any{"path": "golden.txt"}), CallOptions{})
			if err != nil || attrs[0].Actual != "refused" {
				t.Errorf("a call without assets read one: %v %v", attrs, err)
			}
			mu.Lock()
			defer mu.Unlock()
			all := strings.Join(logs, "\n")
			for _, want := range []string{`read_asset "big.bin" refused: big.bin is 2048 bytes, over the 1024 byte cap`,
				`read_asset "../secret" refused: ../secret is not a problem file`,
				`read_asset "golden.txt" refused: no problem directory is in scope for this call`} {
				if !strings.Contains(all, want) {
					t.Errorf("refusals are logged: want %q in %v", want, logs)
				}
			}
		})
	}
}

func TestLogRouting(t *testing.T) {
	for _, iso := range []string{InProcess, Process} {
		t.Run(iso, func(t *testing.T) { testLogRouting(t, iso) })
	}
}

func testLogRouting(t *testing.T, isolation string) {
	var got []string
	var mu sync.Mutex
	h := newHost(t, Options{Isolation: isolation, Log: func(plugin, level, msg string) {
		mu.Lock()
		got = append(got, plugin+" "+level+" "+msg)
		mu.Unlock()
	}})
	p := load(t, h, "misbehave")
	if _, err := verifyMode(p, "log", nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] != "misbehave info checked case c1" {
		t.Fatalf("logs %q", got)
	}
	// A plugin that logs in a loop gets MaxLogLines lines per call, a long
	// line is cut, and one warning says how much was dropped; the next call
	// logs again.
	got = nil
	mu.Unlock()
	if _, err := verifyMode(p, "logflood", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := verifyMode(p, "log", nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(got) != MaxLogLines+2 {
		t.Fatalf("%d log lines, want %d", len(got), MaxLogLines+2)
	}
	if first := got[0]; !strings.HasPrefix(first, "misbehave warn long long") || len(first) > MaxLogLineSize+100 || !strings.HasSuffix(first, "… (5904 bytes cut)") {
		t.Errorf("long line: %d bytes, ends %q", len(first), first[len(first)-30:])
	}
	if last := got[MaxLogLines-1]; last != fmt.Sprintf("misbehave info line %d of a plugin that logs in a loop", MaxLogLines-2) {
		t.Errorf("last kept line %q", last)
	}
	dropped := 0
	for i := MaxLogLines - 1; i < 20000; i++ {
		dropped += len(fmt.Sprintf("line %d of a plugin that logs in a loop", i))
	}
	if w, want := got[MaxLogLines], fmt.Sprintf("misbehave warn verify: 19001 more log lines (%d bytes) dropped: a call logs at most 1000 lines, 256 KiB", dropped); w != want {
		t.Errorf("summary %q", w)
	}
	if got[MaxLogLines+1] != "misbehave info checked case c1" {
		t.Errorf("the next call's line: %q", got[MaxLogLines+1])
	}
}

func TestOtherKinds(t *testing.T) {
	p := load(t, newHost(t, Options{}), "misbehave")
	ev, err := p.Evaluate(context.Background(), abi.EvaluateInput{Function: "echo", Arguments: map[string]any{"score": 0.25}}, CallOptions{})
	if err != nil || ev.Score != 0.25 {
		t.Fatalf("evaluate %+v %v", ev, err)
	}
	tr, err := p.Test(context.Background(), abi.AgentRun{Status: "completed"}, nil, CallOptions{})
	if err != nil || !tr.Passed || tr.Feedback != "status completed" {
		t.Fatalf("test %+v %v", tr, err)
	}
	lo, err := p.LoadCases(context.Background(), abi.LoadInput{Group: abi.GroupInfo{Checkpoint: "c", Group: "g"}}, CallOptions{})
	if err != nil || len(lo.Cases) != 1 || lo.Cases[0].ID != "c0" || lo.Done {
		t.Fatalf("load %+v %v", lo, err)
	}
}

// Concurrent calls never share an instance (the race detector would see
// it) and all get their own answer.
func TestConcurrentCalls(t *testing.T) {
	for _, iso := range []string{InProcess, Process} {
		t.Run(iso, func(t *testing.T) { testConcurrentCalls(t, iso) })
	}
}

func testConcurrentCalls(t *testing.T, isolation string) {
	p := load(t, newHost(t, Options{Isolation: isolation}), "misbehave")
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				out := fmt.Sprintf("%d-%d", g, i)
				attrs, err := verifyWith(p, abi.VerifyInput{Case: abi.Case{ID: out}, Actual: abi.Actual{Output: out},
					Expected: map[string]any{"output": out}, Config: map[string]any{"mode": "ok"}}, CallOptions{})
				if err != nil || !attrs[0].IsCorrect || attrs[0].Actual != out {
					errs <- fmt.Errorf("%s: %v %+v", out, err, attrs)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// No network, no filesystem, no environment: a plugin that tries gets
// nothing, and a server it aims at never hears from it.
func TestSandboxRefusesNetworkFilesystemEnvironment(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	os.Setenv("WASMEVAL_SECRET", "leak")
	defer os.Unsetenv("WASMEVAL_SECRET")
	p := load(t, newHost(t, Options{}), "misbehave")
	if attrs, err := verifyMode(p, "http", map[string]any{"url": srv.URL}); err == nil {
		t.Errorf("an HTTP request must be refused, got %+v", attrs)
	} else if !strings.Contains(err.Error(), "not allowed") {
		t.Errorf("refusal should say why: %v", err)
	}
	if hits.Load() != 0 {
		t.Errorf("the server received %d requests", hits.Load())
	}
	attrs, err := verifyMode(p, "env", nil)
	if err != nil || attrs[0].Actual != "[] 0" {
		t.Errorf("environment and arguments must be empty: %v %+v", err, attrs)
	}
	attrs, err = verifyMode(p, "fs", nil)
	if err != nil || attrs[0].Actual == "<nil>" {
		t.Errorf("the host filesystem must be unreachable: %v %+v", err, attrs)
	}
}

// A plugin file changed after it was loaded is read again, not served from
// the earlier load: the pin still decides.
func TestChangedFileIsReloaded(t *testing.T) {
	h := newHost(t, Options{})
	data, err := os.ReadFile(plugins(t)["misbehave"])
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "p.wasm")
	os.WriteFile(file, data, 0o644)
	digest, _, _ := Digest(file)
	p, err := h.Load(context.Background(), file, digest)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := h.Load(context.Background(), file, digest); err != nil || again != p {
		t.Fatalf("unchanged file: %v %v", again == p, err)
	}
	os.WriteFile(file, append(data, 0), 0o644)
	var pe *Error
	if _, err := h.Load(context.Background(), file, digest); !errors.As(err, &pe) || pe.Fault != FaultDigest {
		t.Fatalf("changed file must be refused, got %v", err)
	}
}

// Workers started after the plugin file was replaced still run the module
// whose digest was checked: they are sent its bytes, not its path.
func TestWorkersRunThePinnedModule(t *testing.T) {
	// The timeout is wide: only the looping call below should reach it.
	h := newHost(t, Options{Isolation: Process, Timeout: 20 * time.Second})
	data, err := os.ReadFile(plugins(t)["misbehave"])
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "p.wasm")
	os.WriteFile(file, data, 0o644)
	p, err := h.Load(context.Background(), file, pin.Digest(data))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(file, []byte("replaced after the pin was checked"), 0o644)
	ok := func() {
		t.Helper()
		attrs, err := verifyMode(p, "ok", nil)
		if err != nil || len(attrs) != 1 || !attrs[0].IsCorrect {
			t.Fatalf("attrs %+v, err %v", attrs, err)
		}
	}
	ok()
	// A call that outlives its timeout gets its worker killed, so the
	// next call is served by a worker started after the file changed.
	if _, err := verifyMode(p, "loop", nil); err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("the looping call: %v", err)
	}
	ok()
	if p.InstancesCreated() < 2 {
		t.Fatalf("the call after the timeout should have started a new worker, %d started", p.InstancesCreated())
	}
}

// Limits outside what the host can enforce are refused when the host is
// made, not discovered later as a panic or a call that never ends.
func TestOptionLimits(t *testing.T) {
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{Timeout: 500 * time.Microsecond}, "plugin timeout 500µs: expected at least 1ms"},
		{Options{Timeout: -time.Second}, "plugin timeout -1s: expected at least 1ms"},
		{Options{MemoryBytes: 8 << 30}, "plugin memory cap 8192 MiB: expected from 64 KiB to 4096 MiB"},
		{Options{MemoryBytes: 1000}, "plugin memory cap 0 MiB: expected from 64 KiB"},
	} {
		if h, err := New(tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			if h != nil {
				h.Close()
			}
			t.Errorf("%+v: got %v, want %q", tc.opts, err, tc.want)
		}
	}
	// The shortest timeout is enforced in process (a timeout that rounded
	// down to zero milliseconds used to disable the checks, and a looping
	// plugin then ran forever). Whether a Go guest starts its runtime
	// within a millisecond depends on the machine and its load; either
	// way a looping plugin is stopped with a timeout fault, at its start or
	// in its call, and never runs on.
	h := newHost(t, Options{Timeout: MinTimeout, Isolation: InProcess})
	path := plugins(t)["misbehave"]
	done := make(chan error, 1)
	go func() {
		p, err := h.Load(context.Background(), path, "")
		if err == nil {
			_, err = verifyMode(p, "loop", nil)
		}
		done <- err
	}()
	select {
	case err := <-done:
		var pe *Error
		if !errors.As(err, &pe) || pe.Fault != FaultTimeout || !strings.Contains(pe.Error(), "1ms") {
			t.Errorf("a looping Go plugin under a 1ms timeout: %v", err)
		}
	case <-time.After(5 * time.Minute):
		t.Fatal("a looping Go plugin under a 1ms timeout was not stopped")
	}
}

// A memory cap below what the module itself declares is said to be that,
// not blamed on the file, on the Extism path and the native one alike.
func TestMemoryCapBelowModuleMinimum(t *testing.T) {
	for _, name := range []string{"minimal", "native"} {
		h := newHost(t, Options{MemoryBytes: 64 << 10, Isolation: InProcess})
		_, err := h.Load(context.Background(), plugins(t)[name], "")
		var pe *Error
		if !errors.As(err, &pe) || pe.Fault != FaultMemory || !strings.Contains(pe.Error(), "more linear memory than the 64 KiB cap") {
			t.Errorf("%s: got %v, want a memory fault naming the cap", name, err)
		}
	}
}

// Compiled code goes to wazero's on-disk cache, by default under the user
// cache directory, and a second host (a fresh process's, in effect) reads
// it back instead of compiling again: the cache gains no entry.
func TestCompilationCacheIsUsed(t *testing.T) {
	base := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", base)
	t.Setenv("HOME", base)
	h, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(base, "wasmeval", "wazero"); h.cacheDir != want {
		t.Fatalf("default cache dir %q, want %q", h.cacheDir, want)
	}
	entries := func() map[string]time.Time {
		m := map[string]time.Time{}
		filepath.WalkDir(h.cacheDir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if info, err := d.Info(); err == nil {
					m[p] = info.ModTime()
				}
			}
			return nil
		})
		return m
	}
	load(t, h, "minimal")
	first := entries()
	if len(first) == 0 {
		t.Fatal("loading a plugin left nothing in the compilation cache")
	}
	h.Close()
	h2, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close()
	load(t, h2, "minimal")
	if second := entries(); !maps.Equal(first, second) {
		t.Errorf("the second host compiled again: cache %v, then %v", first, second)
	}
}

// A Go plugin instance that lives for thousands of calls keeps collecting
// its garbage: each call here makes about 3 MB of it, so the instance goes
// through well over a thousand collection cycles. With a monotonic clock
// that ticked at every reading, Go's GC CPU limiter engaged after a few
// hundred cycles, no cycle finished after that, and the instance ran out of
// memory (see callClock).
func TestLongLivedGoInstanceKeepsCollecting(t *testing.T) {
	big := []byte(strings.Repeat("0123456789abcdef", 1<<16)) // 1 MiB
	for _, iso := range []string{InProcess, Process} {
		t.Run(iso, func(t *testing.T) {
			p := load(t, newHost(t, Options{Isolation: iso, MemoryBytes: 32 << 20}), "misbehave")
			for i := 0; i < 1500; i++ {
				out, err := p.Call(context.Background(), "echo", big, CallOptions{})
				if err != nil || len(out) != len(big) {
					t.Fatalf("call %d: %v (%d bytes back)", i, err, len(out))
				}
			}
			if n := p.InstancesCreated(); n != 1 {
				t.Errorf("%d instances were needed, want the first one throughout", n)
			}
		})
	}
}

// A module compiled in a worker (without termination checks) and the same
// module loaded in process share the compilation cache's directory. The
// in-process load must still get code it can stop (wazero's cache keys
// hold whether a module was compiled with its checks, and a module given
// preemption points has other bytes): a looping call ends at its timeout,
// on both transports.
func TestInProcessNeverRunsAWorkersUncheckedCode(t *testing.T) {
	for _, name := range []string{"misbehave", "native"} {
		t.Run(name, func(t *testing.T) {
			cache := t.TempDir()
			worker := newHost(t, Options{Isolation: Process, CacheDir: cache})
			if attrs, err := verifyMode(load(t, worker, name), "ok", nil); err != nil || len(attrs) != 1 || !attrs[0].IsCorrect {
				t.Fatalf("a worker's call: attrs %+v, err %v", attrs, err)
			}
			inproc := newHost(t, Options{Isolation: InProcess, CacheDir: cache, Timeout: 2 * time.Second})
			p := load(t, inproc, name)
			done := make(chan error, 1)
			go func() {
				_, err := verifyMode(p, "loop", nil)
				done <- err
			}()
			select {
			case err := <-done:
				var pe *Error
				if !errors.As(err, &pe) || pe.Fault != FaultTimeout {
					t.Fatalf("the looping call in process: %v", err)
				}
			case <-time.After(5 * time.Minute):
				t.Fatal("the looping call in process was not stopped: it ran a worker's code, compiled without checks")
			}
		})
	}
}

// Auto isolation runs a native-transport module in process, where its
// preemption points stop it cheaply, and an Extism module in worker
// processes, where it needs no termination checks; each answers, and a
// runaway call in either is a timeout fault.
func TestAutoIsolation(t *testing.T) {
	h := newHost(t, Options{Isolation: Auto, Timeout: 3 * time.Second})
	for _, tc := range []struct{ plugin, want string }{
		{"native", InProcess},
		{"misbehave", Process},
	} {
		p := load(t, h, tc.plugin)
		if got := p.Isolation(); got != tc.want {
			t.Errorf("%s runs %s, want %s", tc.plugin, got, tc.want)
		}
		if attrs, err := verifyMode(p, "ok", nil); err != nil || len(attrs) != 1 || !attrs[0].IsCorrect {
			t.Errorf("%s: attrs %+v, err %v", tc.plugin, attrs, err)
		}
		// Compiled by now, at load or (from the describe cache) at the call.
		if tc.want == InProcess && (p.native == nil || !p.native.preempted) {
			t.Errorf("%s runs in process without preemption points", tc.plugin)
		}
		var pe *Error
		if _, err := verifyMode(p, "loop", nil); !errors.As(err, &pe) || pe.Fault != FaultTimeout {
			t.Errorf("%s: the looping call: %v", tc.plugin, err)
		}
	}
}

// Messages name what a plugin must be with its article.
func TestKindName(t *testing.T) {
	for kind, want := range map[string]string{abi.KindEvaluator: "an evaluator", abi.KindVerifier: "a verifier",
		abi.KindTest: "a test function", abi.KindLoader: "a loader"} {
		if got := KindName(kind); got != want {
			t.Errorf("KindName(%q) = %q, want %q", kind, got, want)
		}
	}
}
