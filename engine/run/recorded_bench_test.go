package run

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/agent"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// BenchmarkRecorded scores 10,000 recorded agent results (--results:
// nothing runs) in the same run with the built-in assertion that checks
// the answer (equals on answer) and with two test-function plugins making
// the same check: the Go SDK's wordtest and the Rust conformance
// plugin. For each plugin it also measures the plugin alone — the same
// results, parsed and rendered once, given to it in batches as the run
// does — so run/alone says whether scoring runs at the plugin's own
// throughput. Figures: docs/benchmarks.md, "Scoring recorded agent runs".
func BenchmarkRecorded(b *testing.B) {
	n := 10000
	if s := os.Getenv("WASMEVAL_BENCH_RESULTS"); s != "" {
		fmt.Sscan(s, &n)
	}
	failing := (n + 9) / 10
	prob := b.TempDir()
	_, goDigest := buildPlugin(b, prob, "wordtest")
	root, err := pluginbuild.ModuleRoot()
	if err != nil {
		b.Fatal(err)
	}
	rustWasm := filepath.Join(prob, "conformance_rust.wasm")
	if err := pluginbuild.BuildRust(filepath.Join(root, "plugins", "conformance", "rust", "lib.rs"), rustWasm); err != nil {
		b.Fatal(err)
	}
	rustDigest, _, err := host.Digest(rustWasm)
	if err != nil {
		b.Fatal(err)
	}
	results := b.TempDir()
	cases, err := os.Create(filepath.Join(prob, "core.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("t%05d", i)
		fmt.Fprintf(cases, "%s: {instruction: \"What is the capital of France?\"}\n", id)
		answer := "Paris"
		if i%10 == 0 {
			answer = "London"
		}
		data, _ := json.Marshal(map[string]any{"task_name": id, "status": "completed", "elapsed_seconds": 1.5, "task_result": answer,
			"conversation": []any{
				map[string]any{"role": "user", "content": "What is the capital of France?"},
				map[string]any{"role": "assistant", "content": "The capital of France is " + answer + "."},
			}})
		if err := os.WriteFile(filepath.Join(results, id+".json"), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	cases.Close()
	type variant struct {
		name, check  string
		wasm, digest string
		config       map[string]any
	}
	variants := []variant{
		{name: "built-in", check: "{kind: equals, attribute: answer, value: Paris}"},
		{name: "go", check: fmt.Sprintf("{kind: test, plugin: {path: wordtest.wasm, sha256: %s, config: {word: paris}}}", goDigest),
			wasm: "wordtest.wasm", digest: goDigest, config: map[string]any{"word": "paris"}},
		{name: "rust", check: fmt.Sprintf("{kind: test, plugin: {path: conformance_rust.wasm, sha256: %s, config: {expected: Paris}}}", rustDigest),
			wasm: "conformance_rust.wasm", digest: rustDigest, config: map[string]any{"expected": "Paris"}},
	}
	score := func(v variant) time.Duration {
		dir := filepath.Join(prob, v.name)
		os.MkdirAll(filepath.Join(dir, "c1"), 0o755)
		if v.wasm != "" {
			os.Link(filepath.Join(prob, v.wasm), filepath.Join(dir, v.wasm))
		}
		cfg := fmt.Sprintf("name: recorded\nentry_file: agent.sh\nadapter: {type: agent}\ncheckpoints:\n  c1:\n    groups:\n      core: {type: Core, checks: [%s]}\n", v.check)
		os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o644)
		os.Link(filepath.Join(prob, "core.yaml"), filepath.Join(dir, "c1", "core.yaml"))
		p, err := LoadProblem(dir)
		if err != nil {
			b.Fatal(err)
		}
		p.Adapter.Agent.Results = results
		plugins, err := host.New(host.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer plugins.Close()
		start := time.Now()
		res, err := Run(context.Background(), Options{Problem: p, Submission: b.TempDir(), OutDir: b.TempDir(), Plugins: plugins,
			Runtime: local.New(local.Options{BaseDir: b.TempDir()}), Loader: BuiltinLoader})
		if err != nil {
			b.Fatal(err)
		}
		took := time.Since(start)
		if s := res.Summaries[0]; s.Cases != n || s.CasesPassed != n-failing || s.Verdict == result.VerdictInconclusive {
			b.Fatalf("%s: %d cases, %d passed, verdict %s", v.name, s.Cases, s.CasesPassed, s.Verdict)
		}
		return took
	}
	alone := func(v variant) time.Duration {
		plugins, err := host.New(host.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer plugins.Close()
		p, err := plugins.Load(context.Background(), filepath.Join(prob, v.wasm), v.digest)
		if err != nil {
			b.Fatal(err)
		}
		ins := make([]abi.TestInput, n)
		for i := range ins {
			r, err := agent.ReadFile(filepath.Join(results, fmt.Sprintf("t%05d.json", i)), agent.Options{})
			if err != nil {
				b.Fatal(err)
			}
			ins[i] = abi.TestInput{ABIVersion: abi.Version, Config: v.config, Result: r.AgentRun()}
		}
		start := time.Now()
		passed := 0
		for lo := 0; lo < n; lo += recordedBatch {
			outs, errs := p.TestBatch(context.Background(), ins[lo:min(lo+recordedBatch, n)], host.CallOptions{})
			for k := range outs {
				if errs[k] != nil {
					b.Fatal(errs[k])
				}
				if outs[k].Passed {
					passed++
				}
			}
		}
		if passed != n-failing {
			b.Fatalf("%s alone passed %d", v.name, passed)
		}
		return time.Since(start)
	}
	if only := os.Getenv("WASMEVAL_BENCH_VARIANT"); only != "" {
		for _, v := range variants {
			if v.name == only {
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					score(v)
				}
				return
			}
		}
		b.Fatalf("no variant %q", only)
	}
	b.ResetTimer()
	took := map[string]time.Duration{}
	for i := 0; i < b.N; i++ {
		for _, v := range variants {
			took[v.name] += score(v)
			if v.wasm != "" {
				took[v.name+"-alone"] += alone(v)
			}
		}
	}
	rate := func(name string) float64 { return float64(n*b.N) / took[name].Seconds() }
	b.ReportMetric(rate("built-in"), "builtin-results/s")
	for _, name := range []string{"go", "rust"} {
		b.ReportMetric(rate(name), name+"-results/s")
		b.ReportMetric(rate(name+"-alone"), name+"-alone-results/s")
		b.ReportMetric(rate(name)/rate(name+"-alone"), name+"-run/alone")
		b.ReportMetric(rate(name)/rate("built-in"), name+"/builtin")
	}
}
