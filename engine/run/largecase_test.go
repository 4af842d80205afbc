package run

import (
	"context"
	"os"
	"path/filepath"
	goruntime "runtime"
	"testing"

	"github.com/wasmeval/wasmeval/engine/cases/casetest"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
)

// largeCaseSize is the size of the large case's input file and of its
// expected output: the 50 MB of the report that a case cost 1.2–1.6 GB.
const largeCaseSize = 50 << 20

// largeCaseProblem writes a problem with one case whose directory holds a
// size-byte input file (data.txt) and the same bytes as its expected
// output, and a submission that prints the input (`cat data.txt`), so
// the case passes when the input reached the workspace whole. Output is
// kept up to 64 MiB (output_cap), so the whole output is checked.
func largeCaseProblem(tb testing.TB, size int) (problemDir, submission string) {
	tb.Helper()
	dir := tb.TempDir()
	cfg := "name: large\ncommand: \"sh main.sh\"\noutput_cap: 67108864\ncheckpoints:\n  c1:\n    groups:\n      g:\n        type: Core\n"
	caseDir := filepath.Join(dir, "c1", "g", "big")
	if err := os.MkdirAll(caseDir, 0o755); err != nil {
		tb.Fatal(err)
	}
	for name, content := range map[string]string{"config.yaml": cfg, "c1/g/big/case.yaml": "expected: {status_code: 0}\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	data := filepath.Join(caseDir, "data.txt")
	casetest.WriteLargeText(tb, data, size)
	if err := os.Link(data, filepath.Join(caseDir, "expected_output")); err != nil {
		tb.Fatal(err)
	}
	sub := tb.TempDir()
	if err := os.WriteFile(filepath.Join(sub, "main.sh"), []byte("cat data.txt\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	return dir, sub
}

// Validating a problem loads every case, and a case's 50 MB input file
// is not read for that: validation allocates the expected output once
// (it is checked) and nothing of the input. It used to allocate 5.5× the
// expected output, reading both files with a growing buffer and copying
// the expected one into a string.
func TestValidateDoesNotReadLargeInputs(t *testing.T) {
	prob, _ := largeCaseProblem(t, largeCaseSize)
	p, err := LoadProblem(prob)
	if err != nil {
		t.Fatal(err)
	}
	goruntime.GC()
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	err = Validate(context.Background(), p, BuiltinLoader, nil)
	goruntime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	ratio := float64(after.TotalAlloc-before.TotalAlloc) / largeCaseSize
	t.Logf("validation allocated %.2f× the expected output", ratio)
	if ratio > 1.1 {
		t.Errorf("validation allocated %.2f× the 50 MB expected output, want at most 1.1× (the input is not read)", ratio)
	}
}

// BenchmarkLargeCase runs the 50 MB case through validation and a whole
// run (load, input copied into the workspace, `cat`, checks, journal,
// reports) and reports each one's peak heap as a multiple of the
// expected output.
//
//	go test -run '^$' -bench LargeCase -benchtime 1x ./engine/run/
func BenchmarkLargeCase(b *testing.B) {
	prob, sub := largeCaseProblem(b, largeCaseSize)
	p, err := LoadProblem(prob)
	if err != nil {
		b.Fatal(err)
	}
	var validatePeak, runPeak uint64
	for i := 0; i < b.N; i++ {
		goruntime.GC()
		validatePeak = max(validatePeak, peakHeap(func() {
			if err := Validate(context.Background(), p, BuiltinLoader, nil); err != nil {
				b.Fatal(err)
			}
		}))
		goruntime.GC()
		runPeak = max(runPeak, peakHeap(func() {
			res, err := Run(context.Background(), Options{Problem: p, Submission: sub, OutDir: b.TempDir(),
				Runtime: local.New(local.Options{BaseDir: b.TempDir()}), Loader: BuiltinLoader})
			if err != nil || !res.Passed {
				b.Fatalf("the large case did not pass: %v", err)
			}
		}))
	}
	b.ReportMetric(float64(validatePeak)/(1<<20), "validate-peak-MiB")
	b.ReportMetric(float64(validatePeak)/largeCaseSize, "validate-peak/expected")
	b.ReportMetric(float64(runPeak)/(1<<20), "run-peak-MiB")
	b.ReportMetric(float64(runPeak)/largeCaseSize, "run-peak/expected")
}
