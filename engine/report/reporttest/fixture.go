// Package reporttest writes run directories for the reports' tests: a
// journal shaped like the one the browser and API adapters leave, with
// their artifacts (server logs, a failure screenshot) beside it.
package reporttest

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// The messages the adapters record on timeouts, which every report must
// show.
const (
	StepTimeout = `step 3 (wait css="#echo"): step timed out: css="#echo" did not become visible within 3s`
	APITimeout  = "no response within 4s"
	// ServerDown is a multi-line adapter error: its first line is what
	// one-line reports show.
	ServerDown = "server exited with status 1 before the case\nserver.stderr.log ends:\nTraceback (most recent call last)"
)

// UIStartup is the seconds the ui group's server took to come up; the
// api group's never answered.
const UIStartup = 0.42

// Artifact paths of the fixture, relative to the run directory.
const (
	Screenshot = "artifacts/checkpoint_1/ui/echo.failure.png"
	StdoutLog  = "artifacts/checkpoint_1/ui/server.stdout.log"
	StderrLog  = "artifacts/checkpoint_1/ui/server.stderr.log"
)

// Hostile is text a log may hold that must stay text in every report.
const Hostile = "</pre><script>window.__pwned = 1</script> ]]> <![CDATA[ \x1b[31mred\x07"

// Run is a fixture run directory.
type Run struct {
	Dir  string
	Sums []*report.CheckpointSummary
}

// BrowserRun writes a run of checkpoint_1 with a browser group "ui" —
// heading (a wrong answer), echo (a step timed out, with a screenshot),
// ok (passed) — and an API group "api" — slow (no response in time), down
// (the server never came up: an adapter error), fine (passed). png is the
// screenshot's content (nil: none is written, though the record names
// it). more adds records before the journal is closed.
func BrowserRun(t testing.TB, png []byte, more ...func(add func(*result.CaseRecord))) Run {
	t.Helper()
	dir := t.TempDir()
	w, err := journal.Create(filepath.Join(dir, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	index := 0
	add := func(r *result.CaseRecord) {
		if r.Problem == "" {
			r.Problem = "todo-web"
		}
		if r.Checkpoint == "" {
			r.Checkpoint = "checkpoint_1"
		}
		if r.GroupType == "" {
			r.GroupType = problem.Core
		}
		r.Index, r.StartedAt, r.Duration = index, time.Date(2026, 5, 1, 8, 0, index, 0, time.UTC), 0.25
		if r.Case == nil {
			r.Case = &result.CaseInfo{Arguments: []string{}}
		}
		index++
		r.Score, _ = result.Score(r.Attributes)
		result.Classification{}.Classify(r)
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	logs := []string{StdoutLog, StderrLog}
	wrong := func(summary string) []verify.AttributeResult {
		return []verify.AttributeResult{{Attribute: "output", Check: "json", Weight: 1, Expected: map[string]any{"heading": "Todos"},
			Actual: map[string]any{"heading": "Todo"}, Diff: &verify.Diff{Summary: summary}}}
	}
	right := []verify.AttributeResult{{Attribute: "output", Check: "json", Weight: 1, IsCorrect: true, Expected: "x", Actual: "x"}}
	add(&result.CaseRecord{Group: "ui", ID: "heading", Result: result.Execution{Artifacts: logs, ServerStartup: UIStartup}, Attributes: wrong(`$.heading: expected "Todos", got "Todo"`)})
	add(&result.CaseRecord{Group: "ui", ID: "echo", Result: result.Execution{StatusCode: 1, TimedOut: true, Error: StepTimeout, ServerStartup: UIStartup,
		Artifacts: append(logs[:2:2], Screenshot)}, Attributes: wrong("$.echo: missing")})
	add(&result.CaseRecord{Group: "ui", ID: "ok", Result: result.Execution{Artifacts: logs, ServerStartup: UIStartup}, Attributes: right})
	add(&result.CaseRecord{Group: "api", ID: "slow", Result: result.Execution{StatusCode: -1, TimedOut: true, Error: APITimeout},
		Attributes: wrong("status -1, expected 200")})
	add(&result.CaseRecord{Group: "api", ID: "down", Result: result.Execution{StatusCode: -1, AdapterError: true, Error: ServerDown},
		Attributes: wrong("status -1, expected 200")})
	add(&result.CaseRecord{Group: "api", ID: "fine", Attributes: right})
	for _, m := range more {
		m(add)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	WriteFile(t, dir, StdoutLog, []byte("GET /\nGET /api/todos\nPOST /api/todos\n"))
	WriteFile(t, dir, StderrLog, []byte("starting on 127.0.0.1\n"+Hostile+"\nlast stderr line\n"))
	if png != nil {
		WriteFile(t, dir, Screenshot, png)
	}
	sums, err := report.FromRun(dir, nil, report.Judging{Policy: result.PolicyAllCases}, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	return Run{Dir: dir, Sums: sums}
}

// WriteFile writes a file of the run directory, making its folders.
func WriteFile(t testing.TB, dir, rel string, data []byte) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// PNG is a real w×h PNG image (a gradient), for tests that need one
// without a browser.
func PNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 0x80, 0xff})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
