package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// The plugin host's speed targets, each measured against a baseline run in
// the same benchmark (docs/benchmarks.md, "Targets"): verify calls per
// second of each SDK's reference verifier on the ~1.5 KB JSON case, one
// call at a time and in batches, against a Python check of the same calls
// in process; a single call's time; the first verdict from a fresh host.

// targetCalls are n distinct verify calls of the ~1.5 KB JSON case (a
// summary with 20 line items, the same as plugins/host's benchmarks), as
// the conformance verifiers check them: the exit status, and the output as
// JSON against the expected JSON text within an absolute tolerance.
func targetCalls(n int) []abi.VerifyInput { return targetCallsOf(n, 20) }

// targetCallsOf are n verify calls of the same case with its number of
// line items: 20 make the ~1.5 KB case, 13 a ~1 KB one (990 bytes).
func targetCallsOf(n, lineItems int) []abi.VerifyInput {
	var items []string
	for i := 0; i < lineItems; i++ {
		items = append(items, fmt.Sprintf(`{"sku":"SKU-%03d","name":"item %d","qty":%d,"price":%.2f,"tags":["a","b"]}`, i, i, i%7, 1.25*float64(i+1)))
	}
	calls := make([]abi.VerifyInput, n)
	for k := range calls {
		out := fmt.Sprintf(`{"currency":"EUR","total":%.1f,"items":[%s]}`, 1234.5+float64(k), strings.Join(items, ","))
		calls[k] = abi.VerifyInput{ABIVersion: abi.Version, Config: map[string]any{"tolerance": 0.001},
			Case:   abi.Case{ID: fmt.Sprintf("bench-%d", k), Arguments: []string{"summary", "items.csv"}},
			Actual: abi.Actual{StatusCode: 0, Output: out}, Expected: map[string]any{"status_code": 0, "output": out}}
	}
	return calls
}

// targetLanguages are the SDKs the targets are about, on their default
// (native) transport, the AssemblyScript SDK also with asc's minimal
// runtime, and the inventory example's verifier (Go SDK), which the Go
// target is about.
var targetLanguages = []string{"rust", "assemblyscript", "assemblyscript-minimal", "go", "go-inventory"}

// inventoryVerifier builds the inventory example's verifier plugin. Its
// config names the output's kind; the calls are otherwise the same.
var inventoryVerifier = Language{"go-inventory", abi.TransportNative, func(out string) error {
	return pluginbuild.Build(moduleFile("examples/inventory/plugins/verifier"), out)
}}

func languageNamed(tb testing.TB, name string) Language {
	for _, l := range append(Languages, inventoryVerifier) {
		if l.Name == name {
			return l
		}
	}
	tb.Fatalf("no language %s", name)
	return Language{}
}

// callsFor are the calls for a target's verifier: the inventory verifier
// is told the output is JSON (the reference verifiers read it as JSON
// unless told otherwise).
func callsFor(name string, calls []abi.VerifyInput) []abi.VerifyInput {
	if name != inventoryVerifier.Name {
		return calls
	}
	out := slices.Clone(calls)
	for i := range out {
		out[i].Config = map[string]any{"output": "json", "tolerance": 0.001}
	}
	return out
}

// pythonRate runs testdata/verify_baseline.py on calls, count times, and
// returns its calls per second (its loop's own timing).
func pythonRate(b *testing.B, calls []abi.VerifyInput, count int) float64 {
	python, err := exec.LookPath("python3")
	if err != nil {
		b.Fatal("python3 is needed for the baseline: ", err)
	}
	data, err := json.Marshal(calls)
	if err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(b.TempDir(), "calls.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		b.Fatal(err)
	}
	out, err := exec.Command(python, "testdata/verify_baseline.py", file, strconv.Itoa(count)).CombinedOutput()
	if err != nil {
		b.Fatalf("python baseline: %v: %s", err, out)
	}
	var rate float64
	if _, err := fmt.Sscanf(string(out), "%g calls/s", &rate); err != nil {
		b.Fatalf("python baseline said %q", out)
	}
	return rate
}

// checkVerdict fails the benchmark on a verdict that is not a pass of both
// attributes: every answer counted is a right one.
func checkVerdict(tb testing.TB, out abi.VerifyOutput, err error) bool {
	tb.Helper()
	if err != nil || len(out.Attributes) != 2 || !out.Attributes[0].IsCorrect || !out.Attributes[1].IsCorrect {
		tb.Errorf("verdict %v %+v", err, out)
		return false
	}
	return true
}

// BenchmarkTargets reports, in one run: the Python baseline; each SDK's
// reference verifier and the inventory example's verifier in worker
// processes (the CLI's isolation) and in process, one call at a time and
// in batches of 256, pooled on all cores, with the CPU time per call; and
// each rate as a multiple of Python's.
//
//	go test -run '^$' -bench Targets -benchtime 3s ./plugins/conformance/
func BenchmarkTargets(b *testing.B) {
	calls := targetCalls(host.MaxBatchCalls)
	var mu sync.Mutex
	rates := map[string]float64{}
	record := func(name string, rate float64) {
		mu.Lock()
		rates[name] = rate
		mu.Unlock()
	}
	b.Run("python", func(b *testing.B) {
		rate := pythonRate(b, calls, max(b.N, 1000))
		b.ReportMetric(rate, "calls/s")
		record("python", rate)
	})
	for _, name := range targetLanguages {
		lang := languageNamed(b, name)
		calls := callsFor(name, calls)
		for _, iso := range []string{host.Process, host.InProcess} {
			p := loadIn(b, lang, iso)
			if !p.Batches("verify") {
				b.Fatalf("%s: the verifier answers no batches", name)
			}
			for _, batch := range []int{1, host.MaxBatchCalls} {
				row := fmt.Sprintf("%s/%s/single", name, iso)
				if batch > 1 {
					row = fmt.Sprintf("%s/%s/batch-%d", name, iso, batch)
				}
				b.Run(row, func(b *testing.B) {
					self0, children0 := cpuTimes()
					var next atomic.Int64
					b.RunParallel(func(pb *testing.PB) {
						pending := make([]abi.VerifyInput, 0, batch)
						flush := func() {
							outs, errs := p.VerifyBatch(context.Background(), pending, host.CallOptions{})
							for i := range outs {
								if !checkVerdict(b, outs[i], errs[i]) {
									return
								}
							}
							pending = pending[:0]
						}
						for pb.Next() {
							pending = append(pending, calls[next.Add(1)%int64(len(calls))])
							if len(pending) == batch {
								flush()
							}
						}
						if len(pending) > 0 {
							flush()
						}
					})
					rate := float64(b.N) / b.Elapsed().Seconds()
					b.ReportMetric(rate, "calls/s")
					reportCPU(b, self0, children0)
					record(row, rate)
				})
			}
		}
	}
	if rates["python"] == 0 {
		return
	}
	var report strings.Builder
	for _, name := range targetLanguages {
		for _, iso := range []string{host.Process, host.InProcess} {
			for _, mode := range []string{"single", fmt.Sprintf("batch-%d", host.MaxBatchCalls)} {
				row := fmt.Sprintf("%s/%s/%s", name, iso, mode)
				if r := rates[row]; r > 0 {
					fmt.Fprintf(&report, "\n%-44s %9.0f calls/s  %5.2fx Python", row, r, r/rates["python"])
				}
			}
		}
	}
	// Printed, not logged: a parent benchmark's log is dropped without -v.
	fmt.Printf("Targets (verify, ~1.5 KB JSON case; Python in process: %.0f calls/s):%s\n", rates["python"], report.String())
}

// reportCPU reports the CPU time per call since self0 and children0 (from
// cpuTimes): host-cpu-µs/call is this process's (the host's, and in
// process the guest's too), worker-cpu-µs/call the worker processes'.
// Their sum is what a core spends on a call, whatever else the machine is
// doing: 100,000 calls/s on 2 cores needs it at most 20 µs.
func reportCPU(b *testing.B, self0, children0 time.Duration) {
	self, children := cpuTimes()
	b.ReportMetric(float64((self-self0).Microseconds())/float64(b.N), "host-cpu-µs/call")
	b.ReportMetric(float64((children-children0).Microseconds())/float64(b.N), "worker-cpu-µs/call")
}

// BenchmarkSingleCall is one verify call of the ~1.5 KB case at a time, on
// one goroutine, to each SDK's reference verifier in both isolations: the
// time of a call.
//
//	go test -run '^$' -bench SingleCall -benchtime 3s ./plugins/conformance/
//
// The target is about a 1 KB verify; the ~1.5 KB case of the other
// benchmarks is measured too.
func BenchmarkSingleCall(b *testing.B) {
	for _, name := range targetLanguages {
		lang := languageNamed(b, name)
		for _, size := range []struct {
			name  string
			items int
		}{{"1KB", 13}, {"1.5KB", 20}} {
			calls := callsFor(name, targetCallsOf(64, size.items))
			for _, iso := range []string{host.InProcess, host.Process} {
				b.Run(name+"/"+size.name+"/"+iso, func(b *testing.B) {
					p := loadIn(b, lang, iso)
					b.ResetTimer()
					self0, children0 := cpuTimes()
					for i := 0; i < b.N; i++ {
						out, err := p.Verify(context.Background(), calls[i%len(calls)], host.CallOptions{})
						if !checkVerdict(b, out, err) {
							return
						}
					}
					b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/call")
					b.ReportMetric(float64(len(calls[0].Actual.Output)), "output-bytes")
					reportCPU(b, self0, children0)
				})
			}
		}
	}
}

// BenchmarkFirstVerdict is the time from a fresh host to a first verdict,
// with wazero's compilation cache warm: loading the plugin (reading,
// hashing, compiling from the cache, describe) and one verify call.
//
//	go test -run '^$' -bench FirstVerdict -benchtime 10x ./plugins/conformance/
func BenchmarkFirstVerdict(b *testing.B) {
	for _, name := range targetLanguages {
		lang := languageNamed(b, name)
		call := callsFor(name, targetCalls(1))[0]
		for _, iso := range []string{host.InProcess, host.Process} {
			b.Run(name+"/"+iso, func(b *testing.B) {
				file, cache := Reference(b, lang), b.TempDir()
				warm := func() time.Duration {
					start := time.Now()
					h, err := host.New(host.Options{CacheDir: cache, Isolation: iso})
					if err != nil {
						b.Fatal(err)
					}
					defer h.Close()
					p, err := h.Load(context.Background(), file, "")
					if err != nil {
						b.Fatal(err)
					}
					out, err := p.Verify(context.Background(), call, host.CallOptions{})
					checkVerdict(b, out, err)
					return time.Since(start)
				}
				warm() // fills the cache
				var total time.Duration
				for i := 0; i < b.N; i++ {
					total += warm()
				}
				b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/first-verdict")
			})
		}
	}
}
