package plugincall

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/verify"
	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// TestMain lets this test binary serve as a plugin worker.
func TestMain(m *testing.M) {
	host.ServeWorker()
	code := m.Run()
	if verifierWasm != "" {
		os.Remove(verifierWasm)
	}
	os.Exit(code)
}

var (
	verifierOnce sync.Once
	verifierWasm string
	verifierErr  error
)

// exampleVerifier builds the inventory example's verifier plugin from
// source, once per test binary.
func exampleVerifier(tb testing.TB) string {
	verifierOnce.Do(func() {
		verifierWasm = filepath.Join(os.TempDir(), fmt.Sprintf("wasmeval-plugincall-verifier-%d.wasm", os.Getpid()))
		verifierErr = pluginbuild.Build("../../examples/inventory/plugins/verifier", verifierWasm)
	})
	if verifierErr != nil {
		tb.Fatal(verifierErr)
	}
	return verifierWasm
}

// loadVerifier loads the example verifier into a new host.
func loadVerifier(tb testing.TB, isolation string) *host.Plugin {
	tb.Helper()
	h, err := host.New(host.Options{Isolation: isolation, CacheDir: filepath.Join(os.TempDir(), "wasmeval-host-test-cache")})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { h.Close() })
	p, err := h.Load(context.Background(), exampleVerifier(tb), "")
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// benchCase is a realistic ~2 KB case result: a JSON summary with line items.
func benchCase() (*cases.Case, verify.Actual) {
	var items []string
	for i := 0; i < 20; i++ {
		items = append(items, fmt.Sprintf(`{"sku":"SKU-%03d","name":"item %d","qty":%d,"price":%.2f,"tags":["a","b"]}`, i, i, i%7, 1.25*float64(i+1)))
	}
	out := `{"currency":"EUR","total":1234.5,"items":[` + strings.Join(items, ",") + `]}`
	c := &cases.Case{ID: "bench", Arguments: []string{"summary", "items.csv"}, Expected: map[string]any{"status_code": 0, "output": out}}
	return c, verify.Actual{StatusCode: 0, Output: out}
}

var benchConfig = map[string]any{"output": "json", "tolerance": 0.001}
