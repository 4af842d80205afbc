package html

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/wasmeval/wasmeval/engine/report"
)

// chromium finds the browser the rendered-page tests drive: $CHROMIUM, or
// chromium on the PATH (.ci/run installs it). Under CI a missing browser
// fails the test.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is required to check the rendered HTML report (apt-get install chromium)")
	}
	t.Skip("chromium not found: skipping the rendered HTML report test")
	return ""
}

// browser starts a headless Chromium with no network chatter and a fresh
// profile, and returns a context for chromedp actions.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := chromium(t)
	// The profile is removed after the browser is stopped, with a few
	// retries: Chromium's helper processes can still be writing to it for a
	// moment after the browser exits, which t.TempDir's cleanup reports as
	// a test failure.
	profile, err := os.MkdirTemp("", "wasmeval-html-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 1024),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() {
		cancelTimeout()
		cancelCtx()
		cancelAlloc()
		for i := 0; i < 20 && os.RemoveAll(profile) != nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	})
	if err := chromedp.Run(ctx); err != nil { // starts the browser
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// An agent case's transcript, as a browser renders it: its messages in
// order with their roles, a tool call with its arguments and the result
// that answers it, thinking collapsed — and the agent's markup inert:
// no script it wrote runs, no element it wrote exists.
func TestAgentTranscriptRenderedInChromium(t *testing.T) {
	dir, sums := agentRun(t)
	if err := WriteFile(dir, Options{Run: report.RunInfo{RunID: "run-agents", Problem: "agents"}}, sums); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, FileName)
	ctx := browser(t)
	var (
		pwned                 string
		injected              int
		opened, thinkingOpen  bool
		roles                 []string
		userText              string
		call                  map[string]any
		parseError, rawText   string
		moreMessages          string
		stray, answer, budget string
	)
	q1 := `document.querySelector('details[data-key="c1/g/q1"]')`
	err := chromedp.Run(ctx,
		chromedp.Navigate("file://"+page),
		chromedp.WaitVisible("#cases", chromedp.ByQuery),
		chromedp.Click(`tr[data-key="c1/g/q1"] a.transcript-link`, chromedp.ByQuery),
		// Opened by the page's hashchange handler, after the click: a
		// closed details' content already counts as visible.
		chromedp.Poll(q1+`.open`, nil),
		chromedp.WaitVisible(`details[data-key="c1/g/q1"] .conversation`, chromedp.ByQuery),
		chromedp.Evaluate(q1+`.open`, &opened),
		chromedp.Evaluate(`typeof window.__pwned`, &pwned),
		// Elements the agent's text would have made, had it been markup.
		chromedp.Evaluate(`document.querySelectorAll('#transcripts script, #transcripts img, #transcripts b, #transcripts i').length`, &injected),
		chromedp.Evaluate(`Array.from(`+q1+`.querySelectorAll('.msg')).map(m => m.dataset.role)`, &roles),
		chromedp.Evaluate(q1+`.querySelector('.msg[data-role="user"] pre.text').innerText`, &userText),
		chromedp.Evaluate(q1+`.querySelector('details.thinking').open`, &thinkingOpen),
		chromedp.Evaluate(`(() => {
			const c = Array.from(`+q1+`.querySelectorAll('.call')).find(c => c.dataset.tool === 'bash<i>');
			const r = c.querySelector('.tool-result');
			return {id: c.dataset.callId, name: c.querySelector('.tool-name').innerText, args: c.querySelector('.args').innerText,
				result: r.querySelector('.content').innerText, error: r.classList.contains('is-error'), visible: r.offsetParent !== null,
				ref: `+q1+`.querySelector('.msg[data-index="3"] .result-ref a').getAttribute('href') === '#' + c.id};
		})()`, &call),
		chromedp.Evaluate(q1+`.querySelector('.msg[data-index="6"] .tool-result').innerText`, &stray),
		chromedp.Evaluate(q1+`.querySelector('pre.answer').innerText + ' | ' + `+q1+`.querySelector('.summary').innerText`, &answer),
		chromedp.Evaluate(`document.querySelector('details[data-key="c1/g/q2"] .parse-error').textContent`, &parseError),
		chromedp.Evaluate(`document.querySelector('details[data-key="c1/g/q2"] pre.raw').textContent`, &rawText),
		chromedp.Evaluate(`document.querySelector('details[data-key="c1/g/q3"] .more-messages').textContent`, &moreMessages),
		chromedp.Evaluate(`String(document.querySelectorAll('details[data-key="c1/g/q3"] .msg').length)`, &budget),
	)
	if err != nil {
		t.Fatal(err)
	}
	if pwned != "undefined" || injected != 0 {
		t.Errorf("the agent's markup took effect: window.__pwned is %s, %d elements injected", pwned, injected)
	}
	if !opened || thinkingOpen {
		t.Errorf("transcript open %v (want true: the row links to it), thinking open %v (want collapsed)", opened, thinkingOpen)
	}
	if got := strings.Join(roles, ","); got != "system,user,assistant,user,assistant,tool,tool,assistant" {
		t.Errorf("message roles: %s", got)
	}
	if userText != "List files <script>window.__pwned = 1</script>" {
		t.Errorf("user message shown as %q", userText)
	}
	if call["id"] != `toolu_"1` || call["name"] != "bash<i>" || !strings.Contains(fmt.Sprint(call["args"]), `"command": "ls <dir>"`) ||
		call["result"] != `<img src=x onerror="window.__pwned = 2">permission denied` || call["error"] != true || call["visible"] != true || call["ref"] != true {
		t.Errorf("tool call and its result: %v", call)
	}
	if !strings.Contains(stray, "answers no call") || !strings.Contains(stray, "stray") {
		t.Errorf("a result answering no call: %q", stray)
	}
	if !strings.HasPrefix(answer, "42 <b>files</b> | ") || !strings.Contains(answer, "answer_tag") || !strings.Contains(answer, "$0.0021") {
		t.Errorf("answer and usage: %q", answer)
	}
	if !strings.Contains(parseError, "not JSON") || !strings.HasPrefix(rawText, "<script>window.__pwned = 3</script>Traceback") {
		t.Errorf("unreadable output: %q, begins %q", parseError, rawText)
	}
	if !strings.Contains(moreMessages, "more messages not shown") || budget == "0" || budget == "2000" {
		t.Errorf("huge conversation: %s messages shown, note %q", budget, moreMessages)
	}
}
