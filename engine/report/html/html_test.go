package html

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// fixtureRun writes a run directory: checkpoint_1 has groups a (3/4 pass)
// and b (1/2 pass); checkpoint_2 has group c (0/2 pass, one timed out).
func fixtureRun(t *testing.T) (string, []*report.CheckpointSummary) {
	t.Helper()
	dir := t.TempDir()
	w, err := journal.Create(filepath.Join(dir, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	add := func(cp, g string, gt problem.GroupType, id string, pass bool, mutate func(*result.CaseRecord)) {
		r := &result.CaseRecord{Problem: "inv", Checkpoint: cp, Group: g, GroupType: gt, ID: id, StartedAt: time.Now(), Duration: 0.1}
		out := verify.AttributeResult{Attribute: "output", Actual: "got " + id + "\n", Expected: "got " + id + "\n", IsCorrect: true, Weight: 1}
		if !pass {
			out.Expected = "want " + id + "\n"
			out.IsCorrect = false
			out.Diff = &verify.Diff{Summary: "line 1 differs", Unified: "@@ -1 +1 @@\n-want " + id + "\n+got " + id + "\n"}
		}
		r.Attributes = []verify.AttributeResult{out}
		if mutate != nil {
			mutate(r)
		}
		r.Score, _ = result.Score(r.Attributes)
		result.Classification{}.Classify(r)
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	add("checkpoint_1", "a", problem.Core, "a1", true, nil)
	add("checkpoint_1", "a", problem.Core, "a2", false, nil)
	add("checkpoint_1", "b", problem.Functionality, "b1", true, nil)
	add("checkpoint_1", "a", problem.Core, "a3", true, nil)
	add("checkpoint_1", "a", problem.Core, "a4", true, nil)
	add("checkpoint_1", "b", problem.Functionality, "b2", false, func(r *result.CaseRecord) {
		r.Attributes = append(r.Attributes, verify.AttributeResult{Attribute: "files", Weight: 1,
			Expected: map[string]any{"out.json": map[string]any{"n": 1}}, Actual: map[string]any{"out.json": map[string]any{"n": 2}},
			Diff: &verify.Diff{Summary: "1 difference", Entries: []verify.DiffEntry{{Path: "$.n", Op: "changed", Expected: 1, Actual: 2}}}})
	})
	add("checkpoint_2", "c", problem.Error, "c1", false, func(r *result.CaseRecord) { r.Result.TimedOut = true })
	add("checkpoint_2", "c", problem.Error, "c2<x>", false, nil)
	add("checkpoint_2", "c", problem.Error, "c3", true, func(r *result.CaseRecord) { r.Result.PluginError = "verifier trapped" })
	add("checkpoint_2", "c", problem.Error, "c4", true, func(r *result.CaseRecord) { r.Unscored = "no reference" })
	w.Close()
	sums, err := report.FromRun(dir, nil, report.Judging{Policy: result.PolicyAllCases}, "run-42")
	if err != nil {
		t.Fatal(err)
	}
	return dir, sums
}

func TestHTMLRenderedInChromium(t *testing.T) {
	dir, sums := fixtureRun(t)
	if err := WriteFile(dir, Options{Run: report.RunInfo{RunID: "run-42", Problem: "inv", ManifestLink: "manifest.json"}}, sums); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, FileName)
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, banned := range []string{"http://", "https://", "src=\"//"} {
		if strings.Contains(strings.ReplaceAll(string(data), `xmlns="http://www.w3.org/2000/svg"`, ""), banned) {
			t.Errorf("report references the network (%q): it must be self-contained", banned)
		}
	}
	ctx := browser(t)
	var (
		cpRates, groupRates []string
		fillWidths          []float64
		visibleAll          int
		visibleFiltered     int
		visibleFailing      int
		shownText           string
		diffText, entryText string
		timeoutText         string
		manifestHref        string
		resources           int
		escapedID           string
		errorStatus         string
		unscoredStatus      string
		erroredText         string
		errorSummary        string
	)
	visible := `Array.from(document.querySelectorAll('#cases tbody tr')).filter(r => r.offsetParent !== null).length`
	err = chromedp.Run(ctx,
		chromedp.Navigate("file://"+page),
		chromedp.WaitVisible("#cases", chromedp.ByQuery),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#chart-checkpoints .bar')).map(b => b.dataset.label+'='+b.dataset.rate)`, &cpRates),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('.group-chart .bar')).map(b => b.dataset.label+'='+b.dataset.rate)`, &groupRates),
		// The rendered bar lengths, from layout rather than attributes.
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#chart-checkpoints .bar rect.fill')).map(r => r.getBoundingClientRect().width)`, &fillWidths),
		chromedp.Evaluate(visible, &visibleAll),
		chromedp.SendKeys("#filter", "checkpoint_2", chromedp.ByQuery),
		chromedp.Evaluate(visible, &visibleFiltered),
		chromedp.Evaluate(`document.getElementById('shown').textContent`, &shownText),
		chromedp.Evaluate(`(() => { const f = document.getElementById('filter'); f.value = ''; f.dispatchEvent(new Event('input')); return true })()`, nil),
		chromedp.Click("#failing-only", chromedp.ByQuery),
		chromedp.Evaluate(visible, &visibleFailing),
		chromedp.Click(`tr[data-key="checkpoint_1/a/a2"] a`, chromedp.ByQuery),
		// The link opens the details from the page's hashchange handler,
		// which runs after the click returns; a closed details' content
		// counts as visible, and its innerText is empty.
		chromedp.Poll(`document.querySelector('details[data-key="checkpoint_1/a/a2"]').open`, nil),
		chromedp.WaitVisible(`details[data-key="checkpoint_1/a/a2"] .diff`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('details[data-key="checkpoint_1/a/a2"] .diff').innerText`, &diffText),
		chromedp.Click(`tr[data-key="checkpoint_1/b/b2"] a`, chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('details[data-key="checkpoint_1/b/b2"]').open`, nil),
		chromedp.WaitVisible(`details[data-key="checkpoint_1/b/b2"] table.entries`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('details[data-key="checkpoint_1/b/b2"] table.entries').innerText`, &entryText),
		chromedp.Evaluate(`document.querySelector('details[data-key="checkpoint_2/c/c1"] summary').innerText`, &timeoutText),
		chromedp.Evaluate(`document.getElementById('manifest-link').getAttribute('href')`, &manifestHref),
		chromedp.Evaluate(`performance.getEntriesByType('resource').length`, &resources),
		chromedp.Evaluate(`document.querySelector('tr[data-key="checkpoint_2/c/c2<x>"] td:nth-child(4)').textContent`, &escapedID),
		chromedp.Evaluate(`document.querySelector('tr[data-key="checkpoint_2/c/c3"] td.status').textContent`, &errorStatus),
		chromedp.Evaluate(`document.querySelector('tr[data-key="checkpoint_2/c/c4"] td.status').textContent`, &unscoredStatus),
		chromedp.Evaluate(`document.getElementById('errored').textContent`, &erroredText),
		chromedp.Evaluate(`document.querySelector('details[data-key="checkpoint_2/c/c3"] summary').innerText`, &errorSummary),
	)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cpRates, " "); got != "checkpoint_1=66.7 checkpoint_2=0.0" {
		t.Errorf("checkpoint chart: %s", got)
	}
	if got := strings.Join(groupRates, " "); got != "a=75.0 b=50.0 c=0.0" {
		t.Errorf("group charts: %s", got)
	}
	if len(fillWidths) != 2 || fillWidths[0] < 230 || fillWidths[0] > 250 || fillWidths[1] != 0 {
		t.Errorf("rendered bar widths %v: want 66.7%% of 360px and 0", fillWidths)
	}
	if visibleAll != 10 || visibleFiltered != 4 || visibleFailing != 5 {
		t.Errorf("visible rows: all %d (want 10), filtered %d (want 4), failing only %d (want 5)", visibleAll, visibleFiltered, visibleFailing)
	}
	// An error is told apart from a wrong answer, and an unscored case
	// from both.
	if errorStatus != "error: plugin" || unscoredStatus != "unscored" || erroredText != "1 errors (not judged)" ||
		!strings.Contains(errorSummary, "error (plugin, not judged): verifier trapped") {
		t.Errorf("error row %q, unscored row %q, header %q, error details %q", errorStatus, unscoredStatus, erroredText, errorSummary)
	}
	if shownText != "4 of 10 cases shown" {
		t.Errorf("shown counter: %q", shownText)
	}
	if !strings.Contains(diffText, "-want a2") || !strings.Contains(diffText, "+got a2") {
		t.Errorf("diff of a2: %q", diffText)
	}
	if !strings.Contains(entryText, "$.n") || !strings.Contains(entryText, "changed") {
		t.Errorf("diff entries of b2: %q", entryText)
	}
	if !strings.Contains(timeoutText, "timed out") {
		t.Errorf("timed-out case summary: %q", timeoutText)
	}
	if manifestHref != "manifest.json" {
		t.Errorf("manifest link: %q", manifestHref)
	}
	if resources != 0 {
		t.Errorf("the page loaded %d resources; it must be self-contained", resources)
	}
	if escapedID != "c2<x>" {
		t.Errorf("case id with markup rendered as %q", escapedID)
	}
}
