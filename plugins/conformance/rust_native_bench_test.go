package conformance

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// exportMacro is a line of the reference plugin that invokes one of the
// SDK's export macros (describe!, verifier!, setup!, mock!, ...).
var exportMacro = regexp.MustCompile(`^[a-z_]+!\(`)

// BenchmarkRustNative is the Rust reference verifier's verify path (the
// SDK's decoding, the plugin's check, the verdict's encoding, as its
// verify_batch export runs them) compiled for the machine itself, on the
// same 256 calls of the ~1.5 KB JSON case as BenchmarkTargets, in CPU time
// per call: set against the worker's CPU time per call in BenchmarkTargets
// it says how much of a call is the JSON work itself and how much what
// WebAssembly adds.
//
//	go test -run '^$' -bench RustNative -benchtime 20x ./plugins/conformance/
func BenchmarkRustNative(b *testing.B) {
	dir := b.TempDir()
	lib, err := os.ReadFile(moduleFile("plugins/conformance/rust/lib.rs"))
	if err != nil {
		b.Fatal(err)
	}
	var body []string
	for _, line := range strings.Split(string(lib), "\n") {
		switch {
		case strings.HasPrefix(line, "//!"), strings.HasPrefix(line, "use wasmeval::"), exportMacro.MatchString(line):
			// The exports are for wasm32 only; main.rs calls the
			// functions they name.
			continue
		}
		body = append(body, line)
	}
	main, err := os.ReadFile("testdata/rust_native_verify.rs")
	if err != nil {
		b.Fatal(err)
	}
	for name, data := range map[string][]byte{"plugin.rs": []byte(strings.Join(body, "\n")), "main.rs": main} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "verify")
	if err := pluginbuild.BuildRustNative(filepath.Join(dir, "main.rs"), bin); err != nil {
		if errors.Is(err, pluginbuild.ErrToolchain) {
			b.Skip(err)
		}
		b.Fatal(err)
	}
	buf := []byte(`{"abi_version":1,"calls":[`)
	for i, c := range targetCalls(host.MaxBatchCalls) {
		if i > 0 {
			buf = append(buf, ',')
		}
		if buf, err = c.AppendJSON(buf); err != nil {
			b.Fatal(err)
		}
	}
	input := filepath.Join(dir, "batch.json")
	if err := os.WriteFile(input, append(buf, "]}"...), 0o644); err != nil {
		b.Fatal(err)
	}
	// CPU time of a run of rounds rounds, and the calls it answered.
	run := func(rounds int) (time.Duration, int) {
		cmd := exec.Command(bin, input, strconv.Itoa(rounds))
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("%s: %v", bin, err)
		}
		var calls int
		if _, err := fmt.Sscanf(string(out), "%d calls", &calls); err != nil {
			b.Fatalf("%s said %q", bin, out)
		}
		return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), calls
	}
	// The difference of a long run and a short one leaves out the start
	// (reading the input, the first allocations).
	b.ResetTimer()
	short, shortCalls := run(1)
	long, longCalls := run(1 + b.N)
	b.ReportMetric(float64((long-short).Microseconds())/float64(longCalls-shortCalls), "cpu-µs/call")
}
