package host

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// A plugin built with the Go SDK's default speaks the native transport and
// is driven without Extism; a misbehaving one is contained as on the
// Extism path: a clear fault, the instance discarded, the next call fine.
func TestNativeFaultIsolation(t *testing.T) {
	for _, iso := range []string{InProcess, Process} {
		t.Run(iso, func(t *testing.T) {
			h := newHost(t, Options{Timeout: 5 * time.Second, MemoryBytes: 32 << 20, Isolation: iso})
			p := load(t, h, "native")
			if p.Describe().Transport != abi.TransportNative || iso == InProcess && p.native == nil {
				t.Fatalf("transport %q, native module %v", p.Describe().Transport, p.native != nil)
			}
			// In process, the faults below (a loop stopped at its timeout
			// among them) are contained by the module's own preemption
			// points, not wazero's checks.
			if iso == InProcess && !p.native.preempted {
				t.Fatal("the native module runs in process without preemption points")
			}
			testFaultIsolation(t, iso, p, "misbehave-native")
		})
	}
}

// An output over the cap is a fault, read no further than its length.
func TestNativeOutputCap(t *testing.T) {
	p := load(t, newHost(t, Options{}), "native")
	_, err := verifyMode(p, "big", nil)
	var pe *Error
	if !errors.As(err, &pe) || pe.Fault != FaultEnvelope || !strings.Contains(err.Error(), "output larger than 64 MiB") {
		t.Fatalf("got %v", err)
	}
}

// read_asset and log work on the native transport under the same rules.
func TestNativeAssetsAndLogs(t *testing.T) {
	assets := testAssets{"golden.txt": "golden", "large.bin": strings.Repeat("x", 100<<10)}
	var logs []string
	var mu sync.Mutex
	h := newHost(t, Options{AssetBytes: 200 << 10, Log: func(plugin, level, msg string) {
		mu.Lock()
		logs = append(logs, plugin+" "+level+" "+msg)
		mu.Unlock()
	}})
	p := load(t, h, "native")
	for path, want := range map[string]string{"golden.txt": "golden", "../secret": "refused", "/etc/passwd": "refused",
		"large.bin": strings.Repeat("x", 100<<10)} {
		attrs, err := verifyWith(p, verifyCall("asset", map[string]any{"path": path}), CallOptions{Assets: assets})
		if err != nil {
			t.Fatal(err)
		}
		if attrs[0].Actual != want {
			t.Errorf("read_asset(%q) = %.40v, want %.40q", path, attrs[0].Actual, want)
		}
	}
	if _, err := verifyMode(p, "log", nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	all := strings.Join(logs, "\n")
	if !strings.Contains(all, `read_asset "../secret" refused`) || !strings.Contains(all, "misbehave-native info checked case c1") {
		t.Errorf("logs: %v", logs)
	}
}

// The sandbox's clock and random source are the same on the native path:
// the answer is the constant TestDeterministicSandbox pins for Extism.
func TestNativeDeterministicSandbox(t *testing.T) {
	for _, iso := range []string{InProcess, Process} {
		p := load(t, newHost(t, Options{CacheDir: "-", Isolation: iso}), "native")
		for j := 0; j < 2; j++ {
			attrs, err := verifyMode(p, "clock", nil)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := fmt.Sprint(attrs[0].Actual), "1640995200000000000 ce4ed727a9eeda8b 3000000"; got != want {
				t.Errorf("%s, call %d: clock/random answer %q, want %q", iso, j, got, want)
			}
		}
	}
}

// One native instance serves 1,500 calls of 1 MiB each way under a 32 MiB
// cap: the input buffer is reused and the guest's collector keeps up.
func TestNativeLongLivedInstance(t *testing.T) {
	big := []byte(strings.Repeat("0123456789abcdef", 1<<16))
	for _, iso := range []string{InProcess, Process} {
		t.Run(iso, func(t *testing.T) {
			p := load(t, newHost(t, Options{Isolation: iso, MemoryBytes: 32 << 20}), "native")
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

// describe's transport must be the one the module speaks: a module that
// claims native but imports Extism, and a native one that claims stdio, are
// refused at load with a message saying why, in both isolations.
func TestTransportMustMatchTheModule(t *testing.T) {
	for _, iso := range []string{InProcess, Process} {
		h := newHost(t, Options{Isolation: iso})
		for name, want := range map[string]string{
			"claims-native": "describe says transport native, but the module does not speak it",
			"claims-stdio":  `describe says transport "stdio", but the module exports wasmeval_input and wasmeval_output`,
		} {
			_, err := h.Load(context.Background(), plugins(t)[name], "")
			var pe *Error
			if !errors.As(err, &pe) || pe.Fault != FaultEnvelope || !strings.Contains(err.Error(), want) {
				t.Errorf("%s, %s: got %v, want an envelope fault containing %q", iso, name, err, want)
			}
		}
	}
}
