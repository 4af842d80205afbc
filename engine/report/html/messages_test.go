package html

import (
	"bytes"
	stdhtml "html"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/report/reporttest"
)

// A timed-out case's details say which step or request timed out, and
// its status in the table carries the reason as a tooltip.
func TestHTMLTimeoutCarriesItsMessage(t *testing.T) {
	run := reporttest.BrowserRun(t, nil)
	var buf bytes.Buffer
	if err := Write(&buf, run.Dir, Options{Run: report.RunInfo{RunID: "run-1", Problem: "todo-web"}}, run.Sums); err != nil {
		t.Fatal(err)
	}
	page := stdhtml.UnescapeString(buf.String())
	for _, want := range []string{
		`<span class="problem">timed out: ` + reporttest.StepTimeout + `</span>`,
		`<span class="problem">timed out: ` + reporttest.APITimeout + `</span>`,
		`title="timed out: ` + reporttest.StepTimeout + `"`,
		// A multi-line message: its first line in the summary, the whole
		// under it.
		`<span class="problem">error (adapter, not judged): server exited with status 1 before the case …</span>`,
		`<pre class="problem-text">error (adapter, not judged): ` + reporttest.ServerDown + `</pre>`,
		// The ui group's server start-up time, with its logs.
		`<h3>checkpoint_1/ui</h3><p class="startup">the server answered its health check 0.42s after it started</p>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("HTML report lacks %q", want)
		}
	}
}
