package rundir

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/report/html"
	"github.com/wasmeval/wasmeval/engine/report/junit"
	"github.com/wasmeval/wasmeval/engine/report/reporttest"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// artifactRun writes a run of groups×perGroup failing browser cases; with
// artifacts, each case's record names a screenshot of its own (the same
// PNG) and its group's two server logs (each logBytes of request lines).
func artifactRun(b *testing.B, groups, perGroup int, shot []byte, logBytes int, artifacts bool) (*Run, int64) {
	b.Helper()
	dir := b.TempDir()
	w, err := journal.Create(filepath.Join(dir, journal.FileName))
	if err != nil {
		b.Fatal(err)
	}
	line := "GET /api/todos HTTP/1.1 200 17 0.002\n"
	logData := []byte(strings.Repeat(line, logBytes/len(line)))
	var written int64
	for g := range groups {
		group := fmt.Sprintf("ui%02d", g)
		base := "artifacts/checkpoint_1/" + group + "/"
		if artifacts {
			reporttest.WriteFile(b, dir, base+"server.stdout.log", logData)
			reporttest.WriteFile(b, dir, base+"server.stderr.log", logData)
			written += 2 * int64(len(logData))
		}
		for i := range perGroup {
			id := fmt.Sprintf("case%04d", i)
			r := &result.CaseRecord{Problem: "todo-web", Checkpoint: "checkpoint_1", Group: group, GroupType: problem.Core, ID: id, Index: i,
				StartedAt: time.Unix(1, 0), Duration: 0.3, Case: &result.CaseInfo{Arguments: []string{}},
				Result: result.Execution{StatusCode: 1, TimedOut: true, ServerStartup: 0.4,
					Error: `step 3 (wait css="#echo"): step timed out: css="#echo" did not become visible within 3s`},
				Attributes: []verify.AttributeResult{{Attribute: "output", Check: "json", Weight: 1, Expected: map[string]any{"items": 3},
					Actual: map[string]any{}, Diff: &verify.Diff{Summary: "$.items missing (expected 3)"}}}}
			if artifacts {
				shotRel := base + id + ".failure.png"
				reporttest.WriteFile(b, dir, shotRel, shot)
				written += int64(len(shot))
				r.Result.Artifacts = []string{base + "server.stdout.log", base + "server.stderr.log", shotRel}
			}
			result.Classification{}.Classify(r)
			if err := w.Append(r); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	run, err := Open(dir, "", "")
	if err != nil {
		b.Fatal(err)
	}
	return run, written
}

// countingDiscard counts what a report writes.
type countingDiscard struct{ n int64 }

func (c *countingDiscard) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// BenchmarkReportArtifacts writes the HTML and JUnit reports of a run of
// 2,000 failing browser cases (20 groups of 100) whose records name a
// failure screenshot each (a 1280×720 PNG of about 50 KB, what Chromium's
// screenshots of small pages weigh) and their group's two server logs
// (1 MiB each), and, in the same iteration, of the same run without
// artifacts. Reported: each report's least time over the iterations with
// and without, their ratios, and the reports' sizes.
func BenchmarkReportArtifacts(b *testing.B) {
	shot := screenshotPNG(b)
	with, artifactBytes := artifactRun(b, 20, 100, shot, 1<<20, true)
	without, _ := artifactRun(b, 20, 100, shot, 1<<20, false)
	var htmlWith, htmlWithout, junitWith, junitWithout time.Duration
	var sizes [4]int64
	timed := func(d *time.Duration, size *int64, f func(io.Writer) error) {
		c := &countingDiscard{}
		start := time.Now()
		if err := f(c); err != nil {
			b.Fatal(err)
		}
		// The fastest of the iterations: on a shared machine the load
		// comes in bursts, and the least time is the report's own cost.
		if t := time.Since(start); *d == 0 || t < *d {
			*d = t
		}
		*size = c.n
	}
	for range b.N {
		timed(&htmlWithout, &sizes[0], func(w io.Writer) error { return html.Write(w, without.Dir, without.HTMLOptions(), without.Summaries) })
		timed(&htmlWith, &sizes[1], func(w io.Writer) error { return html.Write(w, with.Dir, with.HTMLOptions(), with.Summaries) })
		timed(&junitWithout, &sizes[2], func(w io.Writer) error { return junit.Write(w, without.Dir, without.Info, without.Summaries) })
		timed(&junitWith, &sizes[3], func(w io.Writer) error { return junit.Write(w, with.Dir, with.Info, with.Summaries) })
	}
	if report.Sum(with.Summaries).Cases != 2000 {
		b.Fatal("the run does not have its 2,000 cases")
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(htmlWithout), "html-without-ms")
	b.ReportMetric(ms(htmlWith), "html-with-ms")
	b.ReportMetric(float64(htmlWith)/float64(htmlWithout), "html-ratio")
	b.ReportMetric(ms(junitWithout), "junit-without-ms")
	b.ReportMetric(ms(junitWith), "junit-with-ms")
	b.ReportMetric(float64(junitWith)/float64(junitWithout), "junit-ratio")
	b.ReportMetric(float64(sizes[0])/(1<<20), "html-without-MiB")
	b.ReportMetric(float64(sizes[1])/(1<<20), "html-with-MiB")
	b.ReportMetric(float64(sizes[2])/(1<<20), "junit-without-MiB")
	b.ReportMetric(float64(sizes[3])/(1<<20), "junit-with-MiB")
	b.ReportMetric(float64(artifactBytes)/(1<<20), "artifacts-MiB")
	b.ReportMetric(float64(len(shot))/(1<<10), "screenshot-KiB")
	b.ReportMetric(0, "ns/op")
}

// screenshotPNG is a 1280×720 PNG of a flat page with a noisy block, so
// that it weighs what a browser's screenshot of a small page does.
func screenshotPNG(b *testing.B) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 1280, 720))
	rng := rand.New(rand.NewPCG(1, 2))
	for y := range 720 {
		for x := range 1280 {
			c := color.RGBA{0xfa, 0xfa, 0xfa, 0xff}
			if x < 120 && y < 100 {
				c = color.RGBA{uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(rng.IntN(256)), 0xff}
			}
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}
