package html

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/report/reporttest"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// hostileRun is the browser fixture plus failing cases whose records name
// hostile artifacts: a path out of the run directory, a symlink to a file
// outside, a file that is not an image, a huge image and a huge log — and
// the mock fixture, whose calls carry markup in a header and a body.
func hostileRun(t *testing.T) reporttest.Run {
	t.Helper()
	outside := filepath.Join(t.TempDir(), "secret.png")
	os.WriteFile(outside, append([]byte("\x89PNG\r\n\x1a\n"), "root:x:0:0 SECRET"...), 0o644)
	wrong := []verify.AttributeResult{{Attribute: "output", Weight: 1, Expected: "a", Actual: "b"}}
	run := reporttest.BrowserRun(t, reporttest.PNG(t, 64, 48), func(add func(*result.CaseRecord)) {
		add(&result.CaseRecord{Group: "evil", ID: "paths", Attributes: wrong, Result: result.Execution{Artifacts: []string{
			"../../etc/passwd", "../../etc/passwd.png", "/etc/passwd", "artifacts/checkpoint_1/evil/link.png", "artifacts/checkpoint_1/evil/text.png",
			"artifacts/checkpoint_1/evil/huge.png", "artifacts/checkpoint_1/evil/huge.log", "artifacts/checkpoint_1/evil/passwd.log",
			"../../etc/passwd.log"}}})
		// Mock calls whose header and body hold markup.
		reporttest.MockCases(add)
	})
	evil := filepath.Join(run.Dir, "artifacts/checkpoint_1/evil")
	reporttest.WriteFile(t, run.Dir, "artifacts/checkpoint_1/evil/text.png", []byte("<script>window.__pwned = 9</script>"))
	if err := os.Symlink(outside, filepath.Join(evil, "link.png")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(evil, "passwd.log")); err != nil {
		t.Fatal(err)
	}
	reporttest.WriteFile(t, run.Dir, "artifacts/checkpoint_1/evil/huge.png", reporttest.PNG(t, 8, 8))
	os.Truncate(filepath.Join(evil, "huge.png"), 40<<20)
	// 50 MB of log lines, the hostile one near the end.
	f, err := os.Create(filepath.Join(evil, "huge.log"))
	if err != nil {
		t.Fatal(err)
	}
	chunk := []byte(strings.Repeat("GET /api/todos 200\n", 1<<14))
	for written := 0; written < 50<<20; written += len(chunk) {
		f.Write(chunk)
	}
	f.WriteString(reporttest.Hostile + "\nthe end\n")
	f.Close()
	return run
}

// Hostile artifacts are contained: nothing outside the run directory is
// read into the page, markup from a log stays text, huge files are not
// embedded, and each refusal is a note where the artifact would be.
func TestHTMLContainsHostileArtifacts(t *testing.T) {
	run := hostileRun(t)
	var buf bytes.Buffer
	if err := Write(&buf, run.Dir, Options{Run: report.RunInfo{RunID: "run-1", Problem: "todo-web"}}, run.Sums); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if strings.Contains(page, "root:x") || strings.Contains(page, "SECRET") {
		t.Error("a file outside the run directory was read into the page")
	}
	if strings.Contains(page, "<script>window.__pwned") || strings.Contains(page, "</pre><script>") {
		t.Error("markup from an artifact is in the page unescaped")
	}
	if n := strings.Count(page, "&lt;/pre&gt;&lt;script&gt;window.__pwned = 1&lt;/script&gt;"); n != 4 {
		t.Errorf("the hostile lines are shown escaped %d times, want 4 (server.stderr.log, huge.log and a mock call's header, twice)", n)
	}
	if n := strings.Count(page, "&lt;/pre&gt;&lt;script&gt;window.__pwned = 2&lt;/script&gt;"); n != 2 {
		t.Errorf("the hostile mock call body is shown escaped %d times, want 2 (two cases sent it)", n)
	}
	for _, want := range []string{
		`screenshot passwd.png: artifact not shown: &#34;../../etc/passwd.png&#34; is not a path under the run directory&#39;s artifacts/`,
		`screenshot link.png: artifact not shown: artifacts/checkpoint_1/evil/link.png is not a regular file (a symlink)`,
		`screenshot text.png: artifact not shown: artifacts/checkpoint_1/evil/text.png is not a PNG or JPEG image`,
		`<img class="thumb" src="artifacts/checkpoint_1/evil/huge.png"`,
		`40 MB: too large to embed`,
		`artifact not shown: artifacts/checkpoint_1/evil/passwd.log is not a regular file (a symlink)`,
		`<a class="log-link" href="artifacts/checkpoint_1/evil/huge.log">huge.log</a> · 50 MB · its last 40 lines`,
		`<img class="thumb" src="data:image/png;base64,`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if len(page) > 1<<20 {
		t.Errorf("the page is %d bytes: a huge artifact was read into it", len(page))
	}
}
