package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/wasmeval/wasmeval/engine/batch"
	"github.com/wasmeval/wasmeval/engine/result"
)

// leaderboardChromium starts a headless Chromium (no network chatter, a
// fresh profile) for the leaderboard page: $CHROMIUM, or chromium on the
// PATH. Under CI a missing browser fails the test.
func leaderboardChromium(t *testing.T) context.Context {
	t.Helper()
	path := os.Getenv("CHROMIUM")
	for _, name := range []string{"chromium", "chromium-browser"} {
		if path != "" {
			break
		}
		if p, err := exec.LookPath(name); err == nil {
			path = p
		}
	}
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium is required to check the rendered leaderboard (apt-get install chromium)")
		}
		t.Skip("chromium not found: skipping the rendered leaderboard test")
	}
	// Removed after the browser stops, with retries: its helper processes
	// may still write to it for a moment.
	profile, err := os.MkdirTemp("", "wasmeval-leaderboard-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 1024),
	)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() {
		cancelTimeout()
		cancelCtx()
		cancelAlloc()
		for i := 0; i < 20 && os.RemoveAll(profile) != nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	})
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// Submission names a browser must show as text: markup, quotes, and the
// characters a URL gives meaning to.
const (
	hostileScript = `<script>window.__pwned=1`
	hostileImg    = `<img src=x onerror="window.__pwned=2"> q"u'o&te #1?a=b%20`
)

// The leaderboard page as a browser shows it, from a real batch: every
// number in it is batch.json's, each cell's link opens that pair's own
// report (its run id), a missing pair has no link, and submissions named
// with markup and quotes are shown as their names, running nothing.
func TestBatchLeaderboardRenderedInChromium(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("python3 is needed:", err)
	}
	files := map[string]string{}
	example := func(sub, prob, as string) {
		dir := filepath.Join(batchExample, "submissions", sub, prob)
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			files[filepath.Join("subs", as, prob, e.Name())] = string(data)
		}
	}
	for _, prob := range []string{"add", "wordcount"} {
		example("reference", prob, "reference")
		example("broken", prob, hostileScript)
	}
	example("crasher", "wordcount", hostileImg) // missing for add
	subs := filepath.Join(writeTree(t, files), "subs")
	out := filepath.Join(t.TempDir(), "batch")
	r := wasmeval(t, "batch", batchExample+"/problems/*", "--submissions", subs, "--out", out, "--jobs", "2", "--progress-every", "0")
	if r.code != 0 {
		t.Fatalf("batch: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	f := readBatch(t, out)

	type cell struct {
		Problem, Class, Text, Href string
		Links                      int
	}
	type row struct {
		Submission, Name, Total string
		Cells                   []cell
	}
	var (
		rows     []row
		cps      [][]string
		pwned    string
		injected int
		title    string
	)
	ctx := leaderboardChromium(t)
	page := (&url.URL{Scheme: "file", Path: filepath.Join(out, batch.LeaderboardName)}).String()
	err := chromedp.Run(ctx,
		chromedp.Navigate(page),
		chromedp.WaitVisible("#leaderboard", chromedp.ByQuery),
		chromedp.Title(&title),
		chromedp.Evaluate(`typeof window.__pwned`, &pwned),
		chromedp.Evaluate(`document.querySelectorAll('body script, body img').length`, &injected),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#leaderboard tbody tr')).map(tr => ({
			Submission: tr.dataset.submission,
			Name: tr.cells[0].innerText,
			Total: tr.querySelector('td.total').innerText,
			Cells: Array.from(tr.querySelectorAll('td[data-problem]')).map(td => ({
				Problem: td.dataset.problem, Class: td.className, Text: td.innerText,
				Href: td.querySelector('a') ? td.querySelector('a').href : '', Links: td.querySelectorAll('a').length,
			})),
		}))`, &rows),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#checkpoints tbody tr')).map(tr => Array.from(tr.cells).map(c => c.innerText))`, &cps),
	)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(title, "Leaderboard") {
		t.Errorf("page title %q", title)
	}
	if pwned != "undefined" || injected != 0 {
		t.Errorf("a submission's name took effect as markup: window.__pwned is %s, %d script or img elements in the page", pwned, injected)
	}

	// The leaderboard table: one row per submission, in batch.json's order,
	// each showing its name as text and batch.json's numbers.
	if len(rows) != len(f.Plan.Submissions) {
		t.Fatalf("%d rows, want %d (one per submission)", len(rows), len(f.Plan.Submissions))
	}
	type link struct{ sub, prob, href, runID string }
	var links []link
	for i, rw := range rows {
		sub := f.Plan.Submissions[i].Name
		if rw.Submission != sub || rw.Name != sub {
			t.Errorf("row %d shows submission %q (data %q), want %q", i, rw.Name, rw.Submission, sub)
		}
		tot := f.Totals[i]
		want := fmt.Sprintf("%.0f%% %.2f · %d/%d checkpoints", 100*tot.PassRate, tot.MeanScore, tot.CheckpointsPassed, tot.Checkpoints)
		if !strings.HasPrefix(rw.Total, want) || (tot.Errored > 0) != strings.Contains(rw.Total, fmt.Sprintf("E%d", tot.Errored)) ||
			(tot.Missing > 0) != strings.Contains(rw.Total, fmt.Sprintf("%d missing", tot.Missing)) {
			t.Errorf("total of %q shown as %q; batch.json says %+v", sub, rw.Total, tot)
		}
		if len(rw.Cells) != len(f.Plan.Problems) {
			t.Fatalf("row of %q has %d problem cells, want %d", sub, len(rw.Cells), len(f.Plan.Problems))
		}
		for j, c := range rw.Cells {
			p := pairOf(t, f, sub, f.Plan.Problems[j].Name)
			if c.Problem != p.Problem {
				t.Errorf("%q: cell %d is problem %q, want %q", sub, j, c.Problem, p.Problem)
			}
			if p.Status == batch.PairMissing {
				if c.Text != batch.PairMissing || c.Links != 0 {
					t.Errorf("%q/%s is missing: shown %q with %d links", sub, p.Problem, c.Text, c.Links)
				}
				continue
			}
			letters := ""
			for _, cp := range p.Checkpoints {
				letters += map[result.Verdict]string{result.VerdictPassed: "P", result.VerdictFailed: "F", result.VerdictInconclusive: "I"}[cp.Verdict]
			}
			want := fmt.Sprintf("%.0f%% %.2f %s", 100*p.PassRate, p.MeanScore, letters)
			if p.Errored > 0 {
				want += fmt.Sprintf(" E%d", p.Errored)
			}
			if strings.TrimSpace(c.Text) != want || c.Links != 1 {
				t.Errorf("%q/%s shown as %q (%d links); batch.json says %s", sub, p.Problem, c.Text, c.Links, want)
			}
			links = append(links, link{sub, p.Problem, c.Href, p.RunID})
		}
	}

	// The checkpoints table: a row per pair and checkpoint, its counts
	// batch.json's.
	var wantCps [][]string
	for _, p := range f.Pairs {
		for _, c := range p.Checkpoints {
			wantCps = append(wantCps, []string{p.Submission, p.Problem, c.Name, string(c.Verdict),
				fmt.Sprint(c.Cases), fmt.Sprint(c.Passed), fmt.Sprint(c.Failed), fmt.Sprint(c.Errored),
				fmt.Sprintf("%.0f%%", 100*c.PassRate), fmt.Sprintf("%.2f", c.MeanScore)})
		}
	}
	if fmt.Sprintf("%q", cps) != fmt.Sprintf("%q", wantCps) {
		t.Errorf("checkpoints table:\n%q\nbatch.json:\n%q", cps, wantCps)
	}

	// Each link, followed as a user clicks it, opens its pair's report.
	if len(links) != 5 {
		t.Fatalf("%d pair links, want 5 (6 pairs, one missing)", len(links))
	}
	for _, l := range links {
		var loc, body string
		err := chromedp.Run(ctx,
			chromedp.Navigate(page),
			chromedp.WaitVisible("#leaderboard", chromedp.ByQuery),
			chromedp.Evaluate(fmt.Sprintf(`Array.from(document.querySelectorAll('#leaderboard tbody tr')).find(tr => tr.dataset.submission === %q).querySelector('td[data-problem=%q] a').click()`, l.sub, l.prob), nil),
			chromedp.WaitVisible("#cases", chromedp.ByQuery),
			chromedp.Location(&loc),
			chromedp.Evaluate(`document.body.innerText`, &body),
		)
		if err != nil {
			t.Fatalf("%q/%s: following its link: %v", l.sub, l.prob, err)
		}
		u, err := url.Parse(loc)
		if err != nil {
			t.Fatal(err)
		}
		want := filepath.Join(out, batch.RunsDir, l.sub, l.prob, "report.html")
		if loc != l.href || u.Path != want {
			t.Errorf("%q/%s: the link opened %s (path %q), want %q", l.sub, l.prob, loc, u.Path, want)
		}
		if l.runID == "" || !strings.Contains(body, l.runID) {
			t.Errorf("%q/%s: the page opened does not show the pair's run id %q", l.sub, l.prob, l.runID)
		}
	}
}
