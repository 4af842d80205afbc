package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// SlowFactor is how much slower than the fastest SDK a language may be
// before the benchmark flags it.
const SlowFactor = 3

// BenchmarkSDKs calls each language's reference verifier, pooled and on all
// cores, with the same vector in the CLI's default process isolation, and
// reports calls/s and the module's size; it flags any language more than
// SlowFactor times slower than the fastest (docs/benchmarks.md).
//
//	go test -run '^$' -bench SDKs -benchtime 3s ./plugins/conformance/
func BenchmarkSDKs(b *testing.B) {
	vec := vectorNamed(b, "verify_json_diff")
	var mu sync.Mutex
	rates := map[string]float64{}
	sizes := map[string]int64{}
	for _, lang := range Languages {
		b.Run(lang.Name, func(b *testing.B) {
			file := Reference(b, lang)
			st, err := os.Stat(file)
			if err != nil {
				b.Fatal(err)
			}
			h, err := host.New(host.Options{CacheDir: filepath.Join(b.TempDir(), "cache"), Isolation: host.Process})
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close()
			p, err := h.Load(context.Background(), file, "")
			if err != nil {
				b.Fatal(err)
			}
			want := vec.expand(*vec.Output)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					out, failure, err := call(context.Background(), p, vec)
					if err != nil || failure != "" || string(out) != want {
						b.Errorf("%s: wrong answer: %v %s %s", lang.Name, err, failure, head(out))
						return
					}
				}
			})
			rate := float64(b.N) / b.Elapsed().Seconds()
			b.ReportMetric(rate, "calls/s")
			b.ReportMetric(float64(st.Size()), "module-bytes")
			mu.Lock()
			rates[lang.Name], sizes[lang.Name] = rate, st.Size()
			mu.Unlock()
		})
	}
	if len(rates) == 0 {
		return
	}
	names := make([]string, 0, len(rates))
	best := 0.0
	for n, r := range rates {
		names = append(names, n)
		best = max(best, r)
	}
	sort.Strings(names)
	var report strings.Builder
	for _, n := range names {
		flag := ""
		if rates[n]*SlowFactor < best {
			flag = fmt.Sprintf("  SLOW: more than %dx slower than the fastest", SlowFactor)
		}
		fmt.Fprintf(&report, "\n%-21s %9.0f calls/s  %5.2fx of the fastest  %8d bytes%s", n, rates[n], rates[n]/best, sizes[n], flag)
	}
	// Every SDK on its two transports, measured in this run:
	// what the native transport gives over Extism's for the same plugin.
	for _, lang := range []string{"go", "rust", "assemblyscript"} {
		if n, e := rates[lang], rates[lang+"-extism"]; n > 0 && e > 0 {
			fmt.Fprintf(&report, "\n%s SDK, native transport / Extism transport: %.2fx", lang, n/e)
		}
	}
	// Printed, not logged: a parent benchmark's log is dropped without -v.
	fmt.Println("SDK comparison (verify, vector verify_json_diff, process isolation):" + report.String())
}

// batchBenchInput is the ~1.5 KB JSON case result of plugins/host's
// benchmarks (a summary with 20 line items, expected and actual the same)
// as the inventory verifier's verify input; k varies the case's id and
// total, so the calls of a batch are not one text repeated.
func batchBenchInput(b *testing.B, k int) []byte {
	var items []string
	for i := 0; i < 20; i++ {
		items = append(items, fmt.Sprintf(`{"sku":"SKU-%03d","name":"item %d","qty":%d,"price":%.2f,"tags":["a","b"]}`, i, i, i%7, 1.25*float64(i+1)))
	}
	out := fmt.Sprintf(`{"currency":"EUR","total":%.1f,"items":[%s]}`, 1234.5+float64(k), strings.Join(items, ","))
	in, err := json.Marshal(abi.VerifyInput{ABIVersion: abi.Version, Config: map[string]any{"output": "json", "tolerance": 0.001},
		Case:   abi.Case{ID: fmt.Sprintf("bench-%d", k), Arguments: []string{"summary", "items.csv"}},
		Actual: abi.Actual{StatusCode: 0, Output: out}, Expected: map[string]any{"status_code": 0, "output": out}})
	if err != nil {
		b.Fatal(err)
	}
	return in
}

// BenchmarkBatch verifies the same kind of case with the inventory
// example's verifier (the Go SDK, native transport), pooled on all cores,
// one call at a time (single) and in batches of n calls (batch-n), in both
// isolations, and reports verify calls per second. The calls differ (see
// batchBenchInput), and every answer is checked: a batch's output must be
// its calls' single outputs, in order.
//
//	go test -run '^$' -bench Batch -benchtime 3s ./plugins/conformance/
func BenchmarkBatch(b *testing.B) {
	root, err := pluginbuild.ModuleRoot()
	if err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(b.TempDir(), "inventory-verifier.wasm")
	if err := pluginbuild.Build(filepath.Join(root, "examples/inventory/plugins/verifier"), file); err != nil {
		b.Fatal(err)
	}
	const maxBatch = 256
	inputs := make([][]byte, maxBatch)
	for k := range inputs {
		inputs[k] = batchBenchInput(b, k)
	}
	for _, iso := range []string{host.Process, host.InProcess} {
		b.Run(iso, func(b *testing.B) {
			h, err := host.New(host.Options{CacheDir: filepath.Join(b.TempDir(), "cache"), Isolation: iso})
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close()
			ctx := context.Background()
			p, err := h.Load(ctx, file, "")
			if err != nil {
				b.Fatal(err)
			}
			if !slices.Contains(p.Describe().Batch, "verify") {
				b.Fatalf("the verifier announces batch %q", p.Describe().Batch)
			}
			singles := make([][]byte, maxBatch)
			for k, in := range inputs {
				out, err := p.Call(ctx, "verify", in, host.CallOptions{})
				if err != nil || !bytes.Contains(out, []byte(`"is_correct":true`)) || bytes.Contains(out, []byte(`"is_correct":false`)) {
					b.Fatalf("verify: %v %s", err, out)
				}
				singles[k] = out
			}
			b.Run("single", func(b *testing.B) {
				var next atomic.Int64
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						k := int(next.Add(1)) % maxBatch
						out, err := p.Call(ctx, "verify", inputs[k], host.CallOptions{})
						if err != nil || !bytes.Equal(out, singles[k]) {
							b.Errorf("verify: %v %s", err, head(out))
							return
						}
					}
				})
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
			})
			for _, n := range []int{16, 64, maxBatch} {
				in, err := json.Marshal(abi.BatchInput{ABIVersion: abi.Version, Calls: toRaw(inputs[:n])})
				if err != nil {
					b.Fatal(err)
				}
				results := make([][]byte, n)
				for i := range results {
					results[i] = fmt.Appendf(nil, `{"call":%d,"output":%s}`, i, singles[i])
				}
				want := []byte(`{"results":[` + string(bytes.Join(results, []byte(","))) + `]}`)
				b.Run(fmt.Sprintf("batch-%d", n), func(b *testing.B) {
					b.RunParallel(func(pb *testing.PB) {
						for pb.Next() {
							out, err := p.Call(ctx, "verify_batch", in, host.CallOptions{})
							if err != nil || !bytes.Equal(out, want) {
								b.Errorf("verify_batch: %v %s", err, head(out))
								return
							}
						}
					})
					b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "calls/s")
				})
			}
		})
	}
}

func toRaw(inputs [][]byte) []json.RawMessage {
	out := make([]json.RawMessage, len(inputs))
	for i, in := range inputs {
		out[i] = in
	}
	return out
}
