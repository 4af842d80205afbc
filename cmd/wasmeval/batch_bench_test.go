package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// BenchmarkBatchVsRuns runs 50 pairs of a trivial problem (one group of two
// cases) as one `wasmeval batch` and, as the baseline in the same run, as 50
// `wasmeval run` one after the other, both at the same --jobs; it reports
// each wall time and batch/runs (the target: at most 1.10).
//
//	go test ./cmd/wasmeval -run '^$' -bench BatchVsRuns -benchtime 1x
func BenchmarkBatchVsRuns(b *testing.B) {
	const pairs = 50
	files := map[string]string{
		"problems/trivial/config.yaml": "name: trivial\nversion: 1\nentry_file: echo\ncommand: python3 {entry_file}\nadapter: {type: cli}\ntimeout: 30\n" +
			"checkpoints:\n  c1:\n    groups:\n      g1: {type: Core}\n",
		"problems/trivial/c1/g1.yaml": "a:\n  arguments: [a]\n  expected: {output: \"a\\n\"}\nb:\n  arguments: [b]\n  expected: {output: \"b\\n\"}\n",
	}
	for i := range pairs {
		files[fmt.Sprintf("subs/s%02d/trivial/echo.py", i)] = "import sys\nprint(sys.argv[1])\n"
	}
	root := writeTreeB(b, files)
	problem := filepath.Join(root, "problems", "trivial")
	for _, jobs := range []int{1, 2} {
		b.Run("jobs="+strconv.Itoa(jobs), func(b *testing.B) {
			var batchWall, runsWall time.Duration
			for n := range b.N {
				out := filepath.Join(b.TempDir(), fmt.Sprint("batch", n))
				start := time.Now()
				if o, err := exec.Command(binary, "batch", problem, "--submissions", filepath.Join(root, "subs"), "--out", out,
					"--jobs", strconv.Itoa(jobs), "--progress-every", "0").CombinedOutput(); err != nil {
					b.Fatalf("batch: %v\n%s", err, o)
				}
				batchWall += time.Since(start)
				start = time.Now()
				for i := range pairs {
					o, err := exec.Command(binary, "run", problem, "--submission", filepath.Join(root, "subs", fmt.Sprintf("s%02d", i), "trivial"),
						"--out", filepath.Join(b.TempDir(), fmt.Sprint("run", i)), "--jobs", strconv.Itoa(jobs), "--progress", "none", "--no-history").CombinedOutput()
					if err != nil {
						b.Fatalf("run: %v\n%s", err, o)
					}
				}
				runsWall += time.Since(start)
			}
			b.ReportMetric(batchWall.Seconds()/float64(b.N), "batch-s")
			b.ReportMetric(runsWall.Seconds()/float64(b.N), "runs-s")
			b.ReportMetric(batchWall.Seconds()/runsWall.Seconds(), "batch/runs")
		})
	}
}

func writeTreeB(b *testing.B, files map[string]string) string {
	b.Helper()
	dir := b.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := mkdirWrite(p, body); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

func mkdirWrite(p, body string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(body), 0o644)
}
