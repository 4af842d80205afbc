package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/batch"
)

// The leaderboard page links every pair that ran to its report, and
// `report --compare` of two batches lists the pairs whose results changed.
func TestBatchLeaderboardPageAndCompare(t *testing.T) {
	root := t.TempDir()
	base := filepath.Join(root, "base")
	r := wasmeval(t, "batch", batchExample+"/problems/*", "--submissions", batchExample+"/submissions", "--out", base, "--jobs", "2")
	if r.code != 0 {
		t.Fatalf("batch: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	page, err := os.ReadFile(filepath.Join(base, batch.LeaderboardName))
	if err != nil {
		t.Fatal(err)
	}
	links := regexp.MustCompile(`href="(runs/[^"]+/report\.html)"`).FindAllStringSubmatch(string(page), -1)
	if len(links) != 6 {
		t.Errorf("leaderboard.html links %d pair reports, want 6", len(links))
	}
	for _, l := range links {
		if _, err := os.Stat(filepath.Join(base, l[1])); err != nil {
			t.Errorf("leaderboard.html links %s: %v", l[1], err)
		}
	}
	if !strings.Contains(string(page), `<a href="runs/reference/wordcount/report.html">100% 1.00 P</a>`) {
		t.Errorf("reference/wordcount cell missing from leaderboard.html")
	}

	// Next: broken's wordcount is fixed, crasher's add broken, and the
	// reference has no add any more.
	subs := copyTree(t, batchExample+"/submissions")
	copyFile(t, filepath.Join(subs, "reference", "wordcount", "wordcount.py"), filepath.Join(subs, "broken", "wordcount", "wordcount.py"))
	copyFile(t, filepath.Join(subs, "broken", "add", "add.py"), filepath.Join(subs, "crasher", "add", "add.py"))
	os.RemoveAll(filepath.Join(subs, "reference", "add"))
	next := filepath.Join(root, "next")
	if r := wasmeval(t, "batch", batchExample+"/problems/*", "--submissions", subs, "--out", next, "--jobs", "2"); r.code != 0 {
		t.Fatalf("batch: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	c := wasmeval(t, "report", next, "--compare", base)
	if c.code != exitFail {
		t.Errorf("compare with a regression: exit %d, want %d\n%s%s", c.code, exitFail, c.stdout, c.stderr)
	}
	for _, want := range []string{"REGRESSED  crasher/add: verdict passed → failed", "FIXED      broken/wordcount: verdict failed → passed", "REMOVED    reference/add: missing now"} {
		if !strings.Contains(c.stdout, want) {
			t.Errorf("compare output lacks %q:\n%s", want, c.stdout)
		}
	}
	if strings.Contains(c.stdout, "reference/wordcount") || strings.Contains(c.stdout, "broken/add") {
		t.Errorf("compare lists pairs that did not change:\n%s", c.stdout)
	}
	j := wasmeval(t, "report", next, "--compare", base, "--format", "json")
	var out struct {
		Changes []batch.PairChange `json:"changes"`
	}
	if err := json.Unmarshal([]byte(j.stdout), &out); err != nil || len(out.Changes) != 3 {
		t.Errorf("compare json: %v, %d changes, want 3\n%s", err, len(out.Changes), j.stdout)
	}
	same := wasmeval(t, "report", base, "--compare", base)
	if same.code != 0 || !strings.Contains(same.stdout, "no pair's results changed") {
		t.Errorf("a batch against itself: exit %d\n%s", same.code, same.stdout)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
