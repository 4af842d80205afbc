package html

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/report/reporttest"
)

// A case's mock calls as Chromium renders the page: the row's link opens
// the case's calls, each call a row with its mock, method, path, status;
// the unmatched and the faulted ones look different from the others; a
// call's headers and body open on a click, and the markup the submission
// sent stays text — no script of it runs, no element of it exists.
func TestMockCallsRenderedInChromium(t *testing.T) {
	run := reporttest.BrowserRun(t, nil, reporttest.MockCases)
	if err := WriteFile(run.Dir, Options{Run: report.RunInfo{RunID: "run-1", Problem: "checkout"}}, run.Sums); err != nil {
		t.Fatal(err)
	}
	ctx := browser(t)
	refund := `details.mock-calls[data-key="checkpoint_1/pay/refund"]`
	charged := `details.mock-calls[data-key="checkpoint_1/pay/charged"]`
	var (
		opened, requestOpenBefore, requestOpenAfter bool
		rows                                        []string
		colours                                     map[string]string
		headers, body                               string
		bodyVisible                                 bool
		pwned                                       string
		injected                                    int
		faultText, more, problem                    string
	)
	err := chromedp.Run(ctx,
		chromedp.Navigate("file://"+filepath.Join(run.Dir, FileName)),
		chromedp.WaitVisible("#cases", chromedp.ByQuery),
		chromedp.Click(`tr[data-key="checkpoint_1/pay/refund"] a.mock-link`, chromedp.ByQuery),
		chromedp.WaitVisible(refund+` table.calls`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('`+refund+`').open`, &opened),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('`+refund+` tr.call')).map(r =>
			Array.from(r.querySelectorAll('td')).slice(0, 6).map(td => td.innerText.trim()).join('|'))`, &rows),
		// Marked: the rows' rendered backgrounds, and the flags' text.
		chromedp.Evaluate(`(() => { const bg = s => getComputedStyle(document.querySelector(s)).backgroundColor;
			return {plain: bg('`+refund+` tr.call[data-index="1"]'), unmatched: bg('`+refund+` tr.call.unmatched'),
				fault: bg('details.mock-calls[data-key="checkpoint_1/pay/rates"] tr.call.fault'),
				flag: getComputedStyle(document.querySelector('`+refund+` tr.unmatched .flag')).backgroundColor}; })()`, &colours),
		chromedp.Evaluate(`document.querySelector('details.mock-calls[data-key="checkpoint_1/pay/rates"] .fault-text').textContent`, &faultText),
		chromedp.Evaluate(`document.querySelector('details.mock-calls[data-key="checkpoint_1/pay/flood"] .more-calls').textContent`, &more),
		chromedp.Evaluate(`document.querySelector('details.failure[data-key="checkpoint_1/pay/rates"] .problem').innerText`, &problem),
		// The charged case's first request: folded, then opened.
		chromedp.Click(`tr[data-key="checkpoint_1/pay/charged"] a.mock-link`, chromedp.ByQuery),
		chromedp.WaitVisible(charged+` table.calls`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('`+charged+` tr[data-index="1"] details.request').open`, &requestOpenBefore),
		chromedp.Click(charged+` tr[data-index="1"] details.request summary`, chromedp.ByQuery),
		chromedp.WaitVisible(charged+` tr[data-index="1"] pre.body`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('`+charged+` tr[data-index="1"] details.request').open`, &requestOpenAfter),
		chromedp.Evaluate(`document.querySelector('`+charged+` tr[data-index="1"] pre.body').offsetParent !== null`, &bodyVisible),
		chromedp.Evaluate(`document.querySelector('`+charged+` tr[data-index="1"] pre.headers').innerText`, &headers),
		chromedp.Evaluate(`document.querySelector('`+charged+` tr[data-index="1"] pre.body').innerText`, &body),
		chromedp.Evaluate(`typeof window.__pwned`, &pwned),
		chromedp.Evaluate(`document.querySelectorAll('#mock-calls script, #mock-calls pre pre').length`, &injected),
	)
	if err != nil {
		t.Fatal(err)
	}
	if !opened {
		t.Error("the row's link did not open the case's calls")
	}
	if got := strings.Join(rows, "\n"); got != "1|payments|POST|/v1/charges?currency=EUR&q=a%26b|201|\n2|payments|DELETE|/v1/charges/ch_1|501|UNMATCHED" {
		t.Errorf("refund's calls as rendered:\n%s", got)
	}
	if colours["plain"] == colours["unmatched"] || colours["plain"] == colours["fault"] || colours["unmatched"] == colours["fault"] ||
		colours["flag"] == "rgba(0, 0, 0, 0)" {
		t.Errorf("unmatched and faulted calls are not marked apart: %v", colours)
	}
	if faultText != reporttest.MockFault || !strings.HasPrefix(more, "… and 940 more calls") ||
		problem != "error (mock, not judged): mock rates: "+reporttest.MockFault {
		t.Errorf("fault %q, more %q, failure details %q", faultText, more, problem)
	}
	if requestOpenBefore || !requestOpenAfter || !bodyVisible {
		t.Errorf("the request: open before the click %v, after %v, body visible %v", requestOpenBefore, requestOpenAfter, bodyVisible)
	}
	if !strings.Contains(headers, "x-evil: </pre><script>window.__pwned = 1</script> ]]>") || !strings.HasPrefix(headers, "content-type: application/json") {
		t.Errorf("headers as rendered: %q", headers)
	}
	if body != "{\n  \"amount\": 1200,\n  \"note\": \"</pre><script>window.__pwned = 2</script>\"\n}" {
		t.Errorf("body as rendered: %q", body)
	}
	if pwned != "undefined" || injected != 0 {
		t.Errorf("the submission's markup took effect: window.__pwned is %s, %d elements injected", pwned, injected)
	}
}
