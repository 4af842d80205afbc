package html

import (
	"bytes"
	"fmt"
	stdhtml "html"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/report/reporttest"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
	"github.com/wasmeval/wasmeval/plugins/abi"
)

func mockPage(t *testing.T, more ...func(add func(*result.CaseRecord))) string {
	t.Helper()
	run := reporttest.BrowserRun(t, nil, append([]func(func(*result.CaseRecord)){reporttest.MockCases}, more...)...)
	var buf bytes.Buffer
	if err := Write(&buf, run.Dir, Options{Run: report.RunInfo{RunID: "run-1", Problem: "checkout"}}, run.Sums); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// A case's mock calls are listed under "Mock calls", one row per call with
// its mock, method, path and query, status and flags, linked from the
// case's row and its failure details; a mock's fault is why its case is
// an error; calls not kept are counted.
func TestHTMLMockCalls(t *testing.T) {
	page := mockPage(t)
	plain := stdhtml.UnescapeString(page)
	for _, want := range []string{
		`refund <a class="mock-link warn" href="#mk-case-checkpoint_1.2f.pay.2f.refund">2 mock calls, 1 unmatched</a>`,
		`charged <a class="mock-link" href="#mk-case-checkpoint_1.2f.pay.2f.charged">2 mock calls</a>`,
		`<span class="problem">error (mock, not judged): mock rates: ` + reporttest.MockFault + `</span>`,
		`<span class="problem">error (mock, not judged): ` + reporttest.MockStartError + `</span>`,
		`<p class="mock-summary warn"><a href="#mk-case-checkpoint_1.2f.pay.2f.rates">2 mock calls, 1 faulted</a></p>`,
		`title="status_code (exact): expected 200, got 502; unmatched mock call: payments DELETE /v1/charges/ch_1"`,
		`<h2>Mock calls</h2>`,
		`<tr class="call unmatched" data-index="2"><td>2</td><td class="mock">payments</td><td class="method">DELETE</td><td class="path"><code>/v1/charges/ch_1</code></td><td class="status">501</td>`,
		`<tr class="call fault" data-index="1"><td>1</td><td class="mock">rates</td><td class="method">GET</td><td class="path"><code>/v1/rates?base=EUR</code></td><td class="status">500</td><td class="flags"><span class="flag fault">fault</span> <span class="fault-text">` + reporttest.MockFault + `</span>`,
		`<code>/v1/charges?currency=EUR&q=a%26b</code>`,
		`<pre class="headers">content-type: application/json` + "\n",
		`<p class="body-note">body (66 bytes, JSON indented)</p><pre class="body">{` + "\n" + `  "amount": 1200,`,
		`<p class="body-note">body (100 KB; its first 4 KB shown)</p>`,
		`<p class="body-note">body (not text: 6 bytes as base64)</p><pre class="body">AAEC/w==</pre>`,
		`<span class="cut">no headers, no body</span>`,
		`<p class="cut more-calls">… and 940 more calls: 940 received but not kept (a case keeps its first calls)</p>`,
	} {
		if !strings.Contains(plain, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// A passing case without calls has no link; the fixture's other
	// groups have no section entries.
	if strings.Contains(page, `mk-case-checkpoint_1.2f.api`) || strings.Count(page, `<details class="mock-calls"`) != 4 {
		t.Errorf("mock call sections: %d", strings.Count(page, `<details class="mock-calls"`))
	}
	if n := strings.Count(page, `<tr class="call unmatched"`); n != 1+reporttest.FloodKept {
		t.Errorf("%d unmatched rows, want %d", n, 1+reporttest.FloodKept)
	}
}

// What a page holds of calls is bounded: a body up to 4 KiB, a case's
// calls up to 64 KiB of text and 100 rows, a call's headers up to 50
// lines, the first 500 cases with calls; each cut says what it left out.
func TestHTMLMockCallsBounded(t *testing.T) {
	body := strings.Repeat("x", 8<<10)
	right := []verify.AttributeResult{{Attribute: "status_code", Weight: 1, IsCorrect: true, Expected: 200, Actual: 200}}
	page := mockPage(t, func(add func(*result.CaseRecord)) {
		var big, many []abi.MockCall
		empty := map[string][]string{}
		for i := range 60 {
			empty[fmt.Sprintf("x-%02d", i)] = []string{""}
		}
		for i := range 150 {
			big = append(big, abi.MockCall{Mock: "payments", Method: "POST", Path: fmt.Sprintf("/big/%d", i), Body: body, Status: 200,
				Headers: map[string][]string{"x-big": {strings.Repeat("h", 4<<10)}}})
			many = append(many, abi.MockCall{Mock: "payments", Method: "GET", Path: fmt.Sprintf("/small/%d", i), Status: 200, Headers: empty})
		}
		add(&result.CaseRecord{Group: "many", ID: "big", Result: result.Execution{MockCalls: big}, Attributes: right})
		add(&result.CaseRecord{Group: "many", ID: "many", Result: result.Execution{MockCalls: many}, Attributes: right})
		for i := range MaxMockCases {
			add(&result.CaseRecord{Group: "many", ID: fmt.Sprintf("c%03d", i), Result: result.Execution{MockCalls: big[:1]}, Attributes: right})
		}
	})
	section := func(id string) string {
		i := strings.Index(page, `data-key="checkpoint_1/many/`+id+`"><summary>`)
		if i < 0 {
			t.Fatalf("%s's calls are not on the page", id)
		}
		j := strings.Index(page[i:], "</details>\n<details class=\"mock-calls\"")
		return page[i : i+j]
	}
	big := section("big")
	shown := strings.Count(big, `<tr class="call"`)
	if shown < 5 || shown > 20 || len(big) > maxMockCaseBytes+8<<10 {
		t.Errorf("the big case: %d calls listed in %d bytes, want what 64 KiB holds", shown, len(big))
	}
	for _, want := range []string{
		fmt.Sprintf("… and %d more calls: %d not listed here (results.jsonl has them)", 150-shown, 150-shown),
		"body (8 KB; its first 4 KB shown)",
	} {
		if !strings.Contains(big, want) {
			t.Errorf("the big case's calls lack %q", want)
		}
	}
	many := section("many")
	if n := strings.Count(many, `<tr class="call"`); n != maxMockCallsShown {
		t.Errorf("%d calls listed, want %d", n, maxMockCallsShown)
	}
	for _, want := range []string{
		"… and 50 more calls: 50 not listed here (results.jsonl has them)",
		"<summary>50+ headers, no body</summary>",
		"10 more header lines not shown",
	} {
		if !strings.Contains(many, want) {
			t.Errorf("the many case's calls lack %q", want)
		}
	}
	// 4 fixture cases, two large ones and 500 more: the last 6 are counted.
	if n := strings.Count(page, `<details class="mock-calls"`); n != MaxMockCases {
		t.Errorf("%d cases' calls on the page, want %d", n, MaxMockCases)
	}
	if !strings.Contains(page, `<p id="more-mock-cases">6 more cases' mock calls are not shown here;`) {
		t.Error("the page does not say how many cases' calls it leaves out")
	}
	if strings.Contains(page, `href="#mk-case-checkpoint_1.2f.many.2f.c499"`) || !strings.Contains(page, `href="#mk-case-checkpoint_1.2f.many.2f.c493"`) {
		t.Error("a row links to calls the page does not list, or not to calls it lists")
	}
}
