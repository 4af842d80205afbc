package html

import (
	"bytes"
	"image"
	_ "image/png"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/report/reporttest"
)

// A failing browser case's screenshot, as Chromium renders the report: a
// thumbnail that really loaded (its naturalWidth is the screenshot's),
// that opens full size when clicked, whose link opens the file; and the
// group's server log lines shown as text, its link opening the log.
func TestScreenshotAndLogsRenderedInChromium(t *testing.T) {
	ctx := browser(t)
	// The screenshot is one Chromium takes of a page, as the browser
	// adapter does on a failed step.
	var shot []byte
	if err := chromedp.Run(ctx,
		chromedp.Navigate(`data:text/html,<h1 style="font-size:80px;color:%23c62828">Todo</h1><p>the echo never came</p>`),
		chromedp.CaptureScreenshot(&shot),
	); err != nil {
		t.Fatal(err)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(shot))
	if err != nil || format != "png" || cfg.Width < 400 {
		t.Fatalf("Chromium's screenshot: %v, %s %dx%d", err, format, cfg.Width, cfg.Height)
	}
	run := reporttest.BrowserRun(t, shot)
	if err := WriteFile(run.Dir, Options{Run: report.RunInfo{RunID: "run-1", Problem: "todo-web", ManifestLink: "manifest.json"}}, run.Sums); err != nil {
		t.Fatal(err)
	}
	page := "file://" + filepath.Join(run.Dir, FileName)
	echo := `details[data-key="checkpoint_1/ui/echo"]`
	var (
		thumb                 map[string]any
		boxHidden, boxClosed  bool
		full                  map[string]any
		logText, logsHref     string
		logsVisible           bool
		pwned                 string
		shotHref, logHref     string
		openedW               int
		openedLog, pageStatus string
	)
	err = chromedp.Run(ctx,
		chromedp.Navigate(page),
		chromedp.WaitVisible("#cases", chromedp.ByQuery),
		chromedp.Click(`tr[data-key="checkpoint_1/ui/echo"] td.status a`, chromedp.ByQuery),
		chromedp.WaitVisible(echo+` img.thumb`, chromedp.ByQuery),
		chromedp.Poll(`(() => { const i = document.querySelector('`+echo+` img.thumb'); return i.complete && i.naturalWidth > 0; })()`, nil),
		chromedp.Evaluate(`(() => { const i = document.querySelector('`+echo+` img.thumb'); const r = i.getBoundingClientRect();
			return {natural: i.naturalWidth, naturalH: i.naturalHeight, shown: r.width, visible: i.offsetParent !== null && r.height > 0,
				embedded: i.src.startsWith('data:image/png;base64,')}; })()`, &thumb),
		chromedp.Evaluate(`document.querySelector('`+echo+` .problem').textContent`, &pageStatus),
		chromedp.Evaluate(`document.getElementById('lightbox').hidden`, &boxHidden),
		chromedp.Click(echo+` img.thumb`, chromedp.ByQuery),
		chromedp.WaitVisible(`#lightbox-img`, chromedp.ByQuery),
		chromedp.Poll(`document.getElementById('lightbox-img').complete && document.getElementById('lightbox-img').naturalWidth > 0`, nil),
		chromedp.Evaluate(`(() => { const i = document.getElementById('lightbox-img'); return {natural: i.naturalWidth, shown: i.getBoundingClientRect().width}; })()`, &full),
		chromedp.KeyEvent(kb.Escape),
		chromedp.Evaluate(`document.getElementById('lightbox').hidden`, &boxClosed),
		chromedp.Evaluate(`document.querySelector('`+echo+` p.logs-link a').getAttribute('href')`, &logsHref),
		chromedp.Click(echo+` p.logs-link a`, chromedp.ByQuery),
		chromedp.Evaluate(`(() => { const s = document.querySelector('section.server-logs[data-group="checkpoint_1/ui"]');
			return s.offsetParent !== null && '#' + s.id === location.hash; })()`, &logsVisible),
		chromedp.Evaluate(`document.querySelector('section.server-logs[data-group="checkpoint_1/ui"] .log[data-log="server.stderr.log"] pre.log-tail').innerText`, &logText),
		chromedp.Evaluate(`typeof window.__pwned`, &pwned),
		chromedp.Evaluate(`document.querySelector('`+echo+` a.shot').href`, &shotHref),
		chromedp.Evaluate(`document.querySelector('section.server-logs[data-group="checkpoint_1/ui"] .log[data-log="server.stdout.log"] a.log-link').href`, &logHref),
	)
	if err != nil {
		t.Fatal(err)
	}
	if pageStatus != "timed out: "+reporttest.StepTimeout {
		t.Errorf("the timed-out case's details say %q", pageStatus)
	}
	if thumb["natural"] != float64(cfg.Width) || thumb["naturalH"] != float64(cfg.Height) || thumb["visible"] != true || thumb["embedded"] != true ||
		thumb["shown"].(float64) >= float64(cfg.Width) {
		t.Errorf("thumbnail: %v (the screenshot is %dx%d)", thumb, cfg.Width, cfg.Height)
	}
	if !boxHidden || !boxClosed {
		t.Errorf("the full-size view: hidden before the click %v, after Escape %v", boxHidden, boxClosed)
	}
	if full["natural"] != float64(cfg.Width) || full["shown"] != float64(cfg.Width) {
		t.Errorf("full-size view: %v, want the screenshot's %d pixels wide", full, cfg.Width)
	}
	if !strings.HasPrefix(logsHref, "#logs-") || !logsVisible {
		t.Errorf("the case's link to its group's logs: %q, section shown %v", logsHref, logsVisible)
	}
	if !strings.Contains(logText, "starting on 127.0.0.1\n</pre><script>window.__pwned = 1</script> ]]>") || !strings.HasSuffix(logText, "last stderr line") {
		t.Errorf("server stderr lines shown: %q", logText)
	}
	if pwned != "undefined" {
		t.Error("a script from the server log ran")
	}
	// The links open the files themselves.
	err = chromedp.Run(ctx,
		chromedp.Navigate(shotHref),
		chromedp.Poll(`document.images.length === 1 && document.images[0].complete && document.images[0].naturalWidth > 0`, nil),
		chromedp.Evaluate(`document.images[0].naturalWidth`, &openedW),
		chromedp.Navigate(logHref),
		chromedp.Evaluate(`document.body.innerText`, &openedLog),
	)
	if err != nil {
		t.Fatal(err)
	}
	if openedW != cfg.Width || !strings.HasSuffix(shotHref, "/"+reporttest.Screenshot) {
		t.Errorf("the screenshot's link %s opened an image %d wide, want %d", shotHref, openedW, cfg.Width)
	}
	if !strings.Contains(openedLog, "POST /api/todos") {
		t.Errorf("the log's link opened %q", openedLog)
	}
}
