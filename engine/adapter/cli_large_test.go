package adapter_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/adapter"
	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/cases/casetest"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// liveHeap is the heap found live at the end of the last collection.
func liveHeap() uint64 {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

// livePeak returns the live heap before fn runs and the most found live
// while it runs: the collector runs at 10 % growth meanwhile and the live
// heap it measured at the end of each cycle is sampled every millisecond.
// Live bytes, not bytes in use: garbage not yet collected is left out, so
// the figure is what the code holds, whatever the collector's pacing (and
// the race detector's extra garbage).
func livePeak(fn func()) (base, peak uint64) {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	goruntime.GC()
	base = liveHeap()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			peak = max(peak, liveHeap())
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	fn()
	close(stop)
	wg.Wait()
	return base, max(peak, base) - base
}

// One case with a 50 MB input file and a 50 MB expected output, taken the
// way a run takes it: loaded by the built-in loader, its input written
// into the workspace, `cat data.txt` run through the CLI adapter, the
// output checked by the default checks.
//
// Once the case has run, the engine holds the expected value and the
// output, once each (2×); the input was copied file to file and is not
// held (it was, from loading on: 3×). Meanwhile the live heap peaks
// while the runtime's output buffer grows, within 4× the expected value
// (2.9× here; 4.0× with the input held). Both are measured from the live
// heap, so garbage the collector has not reached yet does not count.
func TestCLILargeCaseHoldsTheExpectedValueOnce(t *testing.T) {
	const size = 50 << 20
	dir, sub := t.TempDir(), t.TempDir()
	caseDir := filepath.Join(dir, "c1", "g", "big")
	casetest.WriteLargeText(t, filepath.Join(caseDir, "data.txt"), size)
	casetest.WriteLargeText(t, filepath.Join(caseDir, "expected_output"), size)
	os.WriteFile(filepath.Join(caseDir, "case.yaml"), []byte("expected: {status_code: 0}\n"), 0o644)
	os.WriteFile(filepath.Join(sub, "main.sh"), []byte("cat data.txt\n"), 0o644)

	rt := local.New(local.Options{BaseDir: t.TempDir()})
	sess, err := rt.Open(context.Background(), runtime.SessionSpec{Submission: sub, Label: "large"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	cli := &adapter.CLI{Command: []string{"sh", "main.sh"}, OutputCap: 64 << 20}
	loader, _ := cases.Builtin(cases.LoaderCaseDirs)
	var attrs []verify.AttributeResult
	var runErr error
	var c *cases.Case
	var out result.Execution
	base, peak := livePeak(func() {
		s, err := loader.Open(context.Background(), cases.GroupInput{Checkpoint: "c1", Group: "g", GroupType: problem.Core,
			ProblemDir: dir, CheckpointDir: filepath.Join(dir, "c1"), CaseGroup: "g", Timeout: time.Minute})
		if err != nil {
			runErr = err
			return
		}
		if c, err = s.Next(context.Background(), nil); err != nil {
			runErr = err
			return
		}
		out, err = cli.Run(context.Background(), sess, c)
		if err != nil || out.AdapterError {
			runErr = fmt.Errorf("run: %v %s", err, out.Error)
			return
		}
		actual := verify.Actual{StatusCode: out.StatusCode, Output: out.Output, Stderr: out.Stderr}
		for _, spec := range verify.DefaultChecks(c.Expected) {
			attrs = append(attrs, verify.Run(spec, actual, c.Expected, verify.Env{RawJSON: true}))
		}
	})
	if runErr != nil {
		t.Fatal(runErr)
	}
	goruntime.GC()
	held := liveHeap() - base
	goruntime.KeepAlive(c)
	goruntime.KeepAlive(out)
	for _, a := range attrs {
		if !a.IsCorrect {
			t.Errorf("%s: not correct: %+v", a.Attribute, a.Diff)
		}
	}
	if len(attrs) != 2 {
		t.Errorf("checks run: %d, want status_code and output", len(attrs))
	}
	t.Logf("held after the case %.1f MiB (%.2f× the expected output), live heap peak %.1f MiB (%.2f×)",
		float64(held)/(1<<20), float64(held)/size, float64(peak)/(1<<20), float64(peak)/size)
	if ratio := float64(held) / size; ratio > 2.2 {
		t.Errorf("after the case the engine holds %.2f× the 50 MB expected output, want at most 2.2× (the expected value and the output, once each)", ratio)
	}
	bound := 4.0
	if raceBuild {
		bound += 1.25 // see raceBuild
	}
	if ratio := float64(peak) / size; ratio > bound {
		t.Errorf("live heap peak %.2f× the 50 MB expected output, want at most %.2f×", ratio, bound)
	}
}
