package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// recordedRun writes a problem of n cases in groups of groupSize (built-in
// checks only) and the journal of a run of it, each case's output about
// outBytes long; one case in four recorded a wrong output, wrongBytes
// long.
func recordedRun(tb testing.TB, n, groupSize, outBytes, wrongBytes int) (problemDir, runDir string) {
	tb.Helper()
	problemDir, runDir = tb.TempDir(), tb.TempDir()
	groups := (n + groupSize - 1) / groupSize
	var cfg strings.Builder
	cfg.WriteString("name: recorded\ncommand: \"true\"\ncheckpoints:\n  c1:\n    groups:\n")
	for g := 0; g < groups; g++ {
		fmt.Fprintf(&cfg, "      g%03d: {type: Core}\n", g)
	}
	if err := os.WriteFile(filepath.Join(problemDir, "config.yaml"), []byte(cfg.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	os.MkdirAll(filepath.Join(problemDir, "c1"), 0o755)
	w, err := journal.Create(filepath.Join(runDir, journal.FileName))
	if err != nil {
		tb.Fatal(err)
	}
	defer w.Close()
	line := strings.Repeat("x", max(outBytes-20, 1))
	for g := 0; g < groups; g++ {
		var cases strings.Builder
		for i := g * groupSize; i < min(n, (g+1)*groupSize); i++ {
			want := fmt.Sprintf("%d %s\n", i, line)
			fmt.Fprintf(&cases, "case_%06d: {order: %d, expected: {output: %s}}\n", i, i, strconv.Quote(want))
			got := want
			if i%4 == 3 {
				got = fmt.Sprintf("%d wrong %s\n", i, strings.Repeat("y", wrongBytes))
			}
			rec := &result.CaseRecord{Problem: "recorded", Checkpoint: "c1", Group: fmt.Sprintf("g%03d", g), GroupType: "Core",
				ID: fmt.Sprintf("case_%06d", i), Index: i - g*groupSize, StartedAt: time.Unix(0, 0).UTC(),
				Case:       &result.CaseInfo{Arguments: []string{}, TimeoutS: 30},
				Result:     result.Outcome{Output: got},
				Attributes: []verify.AttributeResult{{Attribute: "output", Actual: got, Expected: want, IsCorrect: got == want, Weight: 1}}}
			rec.Score, rec.Passed = result.Score(rec.Attributes)
			if err := w.Append(rec); err != nil {
				tb.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(problemDir, "c1", fmt.Sprintf("g%03d.yaml", g)), []byte(cases.String()), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return problemDir, runDir
}

// BenchmarkRescore rescores a recorded run of 20,000 cases (groups of
// 1,000; WASMEVAL_RESCORE_CASES sets another count) with built-in checks,
// reporting the time per case and the peak heap: the index of the old
// journal grows with the cases (tens of bytes each), the records held do
// not.
func BenchmarkRescore(b *testing.B) {
	n := 20000
	if s := os.Getenv("WASMEVAL_RESCORE_CASES"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	prob, from := recordedRun(b, n, 1000, 400, 10)
	p, err := LoadProblem(prob)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var res *RescoreOutcome
		start := time.Now()
		peak := peakHeap(func() {
			res, err = Rescore(context.Background(), RescoreOptions{Problem: p, From: from, Loader: BuiltinLoader, Jobs: 2},
				RescoreTarget{OutDir: filepath.Join(b.TempDir(), "out")})
		})
		if err != nil {
			b.Fatal(err)
		}
		if res.Rescored != n || res.VerdictsChanged != 0 {
			b.Fatalf("rescored %d of %d, %d verdicts changed", res.Rescored, n, res.VerdictsChanged)
		}
		b.ReportMetric(float64(time.Since(start).Microseconds())/float64(n), "µs/case")
		b.ReportMetric(float64(peak)/(1<<20), "MiB-peak-heap")
	}
}

// A rescore holds the records of a batch, not of the journal: rescoring
// 2,000 cases of which 500 recorded a wrong output of 256 KiB (a journal
// of 125 MiB) keeps the heap far below the journal's size.
func TestRescoreHeapDoesNotHoldTheJournal(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 125 MiB journal")
	}
	prob, from := recordedRun(t, 2000, 500, 100, 256<<10)
	st, err := os.Stat(filepath.Join(from, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	p, err := LoadProblem(prob)
	if err != nil {
		t.Fatal(err)
	}
	var res *RescoreOutcome
	peak := peakHeap(func() {
		res, err = Rescore(context.Background(), RescoreOptions{Problem: p, From: from, Loader: BuiltinLoader},
			RescoreTarget{OutDir: filepath.Join(t.TempDir(), "out")})
	})
	if err != nil || res.Rescored != 2000 || res.VerdictsChanged != 0 {
		t.Fatalf("%+v %v", res, err)
	}
	if limit := uint64(st.Size() / 3); peak > limit {
		t.Errorf("peak heap %d MiB for a %d MiB journal", peak>>20, st.Size()>>20)
	}
	t.Logf("peak heap %d MiB for a %d MiB journal", peak>>20, st.Size()>>20)
}
