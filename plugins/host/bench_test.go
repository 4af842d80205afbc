package host

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/abi/abischema"
	"github.com/wasmeval/wasmeval/plugins/abi/jsonvalue"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

var (
	verifierOnce sync.Once
	verifierWasm string
	verifierErr  error
)

// exampleVerifier builds the inventory example's verifier plugin.
func exampleVerifier(b testing.TB) string {
	verifierOnce.Do(func() {
		verifierWasm = filepath.Join(os.TempDir(), fmt.Sprintf("wasmeval-bench-verifier-%d.wasm", os.Getpid()))
		verifierErr = pluginbuild.Build("../../examples/inventory/plugins/verifier", verifierWasm)
	})
	if verifierErr != nil {
		b.Fatal(verifierErr)
	}
	return verifierWasm
}

// benchInput is a realistic ~2 KB verify call: a JSON summary with line
// items (engine/plugincall's BenchmarkVerifier verifies the same case).
func benchInput() abi.VerifyInput {
	var items []string
	for i := 0; i < 20; i++ {
		items = append(items, fmt.Sprintf(`{"sku":"SKU-%03d","name":"item %d","qty":%d,"price":%.2f,"tags":["a","b"]}`, i, i, i%7, 1.25*float64(i+1)))
	}
	out := `{"currency":"EUR","total":1234.5,"items":[` + strings.Join(items, ",") + `]}`
	return abi.VerifyInput{ABIVersion: abi.Version, Config: benchConfig,
		Case:   abi.Case{ID: "bench", Arguments: []string{"summary", "items.csv"}},
		Actual: abi.Actual{StatusCode: 0, Output: out}, Expected: map[string]any{"status_code": 0, "output": out}}
}

var benchConfig = map[string]any{"output": "json", "tolerance": 0.001}

// BenchmarkFirstCall measures loading a plugin and getting its first
// verdict in a fresh host: with wazero's compilation cache warm, and with
// no cache at all. The minimal rows are the floor, measured in the same
// run: a Go plugin with nothing but Extism's PDK and a fixed verdict.
//
//	go test -run '^$' -bench FirstCall -benchtime 5x ./plugins/host/
func BenchmarkFirstCall(b *testing.B) {
	in := benchInput()
	verifier, minimal := exampleVerifier(b), plugins(b)["minimal"]
	warm := b.TempDir()
	for _, tc := range []struct{ name, cache, iso, wasm string }{
		{"warm-cache", warm, InProcess, verifier}, {"no-cache", "-", InProcess, verifier},
		{"process-warm-cache", warm, Process, verifier}, {"process-no-cache", "-", Process, verifier},
		{"minimal-warm-cache", warm, InProcess, minimal}, {"minimal-process-warm-cache", warm, Process, minimal},
	} {
		wasm := tc.wasm
		if tc.cache != "-" { // fill the cache once (per compilation mode)
			h, err := New(Options{CacheDir: tc.cache, Isolation: tc.iso})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := h.Load(context.Background(), wasm, ""); err != nil {
				b.Fatal(err)
			}
			h.Close()
		}
		b.Run(tc.name, func(b *testing.B) {
			var total time.Duration
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				h, err := New(Options{CacheDir: tc.cache, Isolation: tc.iso})
				if err != nil {
					b.Fatal(err)
				}
				p, err := h.Load(context.Background(), wasm, "")
				if err != nil {
					b.Fatal(err)
				}
				if _, err := p.Verify(context.Background(), in, CallOptions{}); err != nil {
					b.Fatal(err)
				}
				total += time.Since(t0)
				h.Close()
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/first-call")
		})
	}
}

// BenchmarkFirstCallPhases splits BenchmarkFirstCall's warm-cache,
// in-process case into its phases: reading and hashing the module,
// compiling it (from the cache: wazero still decodes and validates the
// module and loads and checksums the cached machine code), instantiating
// it (the guest runtime's own start), and the first verdict.
//
//	go test -run '^$' -bench FirstCallPhases -benchtime 5x ./plugins/host/
func BenchmarkFirstCallPhases(b *testing.B) {
	in := benchInput()
	wasm := exampleVerifier(b)
	cache := b.TempDir()
	if h, err := New(Options{CacheDir: cache, Isolation: InProcess}); err != nil {
		b.Fatal(err)
	} else if _, err := h.Load(context.Background(), wasm, ""); err != nil {
		b.Fatal(err)
	} else {
		h.Close()
	}
	cached := dirBytes(b, cache)
	var read, compile, instantiate, verdict time.Duration
	var faults int64
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		h, err := New(Options{CacheDir: cache, Isolation: InProcess})
		if err != nil {
			b.Fatal(err)
		}
		digest, data, err := Digest(wasm)
		if err != nil {
			b.Fatal(err)
		}
		f0 := minorFaults()
		t1 := time.Now()
		p := &Plugin{host: h, file: wasm, digest: digest, size: len(data), data: data, checked: true}
		iface, err := readInterface(data)
		if err != nil {
			b.Fatal(err)
		}
		transport := abi.TransportStdio
		if iface.isNative() {
			transport = abi.TransportNative
			p.native, err = p.compileNative(context.Background(), true)
		} else {
			p.compiled, err = p.compileModule(context.Background(), true)
		}
		if err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		faults += minorFaults() - f0
		inst, err := p.newInstance(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		p.pool = make(chan *instance, 1)
		p.pool <- inst
		p.describe.Kinds, p.describe.Transport = []string{"verifier"}, transport
		if _, err := p.Verify(context.Background(), in, CallOptions{}); err != nil {
			b.Fatal(err)
		}
		t4 := time.Now()
		read, compile, instantiate, verdict = read+t1.Sub(t0), compile+t2.Sub(t1), instantiate+t3.Sub(t2), verdict+t4.Sub(t3)
		p.close()
		h.Close()
	}
	for _, m := range []struct {
		d    time.Duration
		name string
	}{{read, "ms/read"}, {compile, "ms/compile"}, {instantiate, "ms/instantiate"}, {verdict, "ms/verdict"}} {
		b.ReportMetric(float64(m.d.Microseconds())/1000/float64(b.N), m.name)
	}
	// What compiling from the cache handles: the cache's size (machine
	// code for the module and Extism's kernel) and the page faults taken
	// while compiling, most of them the cached code read into fresh memory.
	b.ReportMetric(float64(cached)/(1<<20), "MiB/cache")
	b.ReportMetric(float64(faults)/float64(b.N), "faults/compile")
}

// dirBytes is the total size of the files under dir.
func dirBytes(b *testing.B, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkVerdictHostSide measures, natively, the host's own work on a
// verify call of BenchmarkVerifier: encoding the input envelope and
// scanning the plugin's output (the example verifier's real output) — and,
// for comparison, the full path the host takes for an output the scanner
// does not accept: parsing it into a tree and checking that against the
// ABI schema.
//
//	go test -run '^$' -bench VerdictHostSide ./plugins/host/
func BenchmarkVerdictHostSide(b *testing.B) {
	in := benchInput()
	input, err := json.Marshal(in)
	if err != nil {
		b.Fatal(err)
	}
	p, err := newHost(b, Options{Isolation: Process}).Load(context.Background(), exampleVerifier(b), "")
	if err != nil {
		b.Fatal(err)
	}
	out, err := p.Call(context.Background(), "verify", input, CallOptions{})
	if err != nil {
		b.Fatal(err)
	}
	doc, err := jsonvalue.ParseShared(string(out))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("encode-input", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := encodeEnvelope(in, false, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode-input-encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := json.Marshal(in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parse-output", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := jsonvalue.ParseShared(string(out)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("scan-output", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, ok := scanVerifyOutput(out); !ok {
				b.Fatal("refused")
			}
		}
	})
	b.Run("check-schema", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if err := abischema.Validate("verify_output", doc); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkRoundTrip1MB sends a 1 MB output into a plugin that returns it
// in its verdict (1 MB in, 1 MB back).
//
//	go test -run '^$' -bench RoundTrip -benchtime 20x ./plugins/host/
func BenchmarkRoundTrip1MB(b *testing.B) {
	p := load(b, newHost(b, Options{Isolation: Process}), "misbehave")
	big := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB
	in := abi.VerifyInput{Case: abi.Case{ID: "big"}, Actual: abi.Actual{Output: big},
		Expected: map[string]any{"output": big}, Config: map[string]any{"mode": "ok"}}
	b.SetBytes(2 << 20)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := p.Verify(context.Background(), in, CallOptions{})
		if err != nil || !out.Attributes[0].IsCorrect || len(out.Attributes[0].Actual.(string)) != len(big) {
			b.Fatalf("%v", err)
		}
	}
}

// BenchmarkTransport1MB moves 1 MB into a plugin and back with no decoding
// on either side: the cost of the stdio transport itself.
//
//	go test -run '^$' -bench Transport -benchtime 20x ./plugins/host/
func BenchmarkTransport1MB(b *testing.B) {
	p := load(b, newHost(b, Options{Isolation: Process}), "misbehave")
	big := []byte(strings.Repeat("0123456789abcdef", 1<<16))
	b.SetBytes(2 << 20)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := p.Call(context.Background(), "echo", big, CallOptions{})
		if err != nil || len(out) != len(big) {
			b.Fatalf("%v (%d bytes back)", err, len(out))
		}
	}
}

// BenchmarkGuestLoop runs a Go guest's tight 10⁶-iteration loop in process
// (compiled with termination checks) and in a worker (compiled without):
// what the checks cost a Go plugin.
//
//	go test -run '^$' -bench GuestLoop -benchtime 20x ./plugins/host/
func BenchmarkGuestLoop(b *testing.B) {
	for _, iso := range []string{InProcess, Process} {
		b.Run(iso, func(b *testing.B) {
			p := load(b, newHost(b, Options{Isolation: iso}), "misbehave")
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := p.Call(context.Background(), "spin", nil, CallOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
