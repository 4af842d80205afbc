package compare

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

func runDir(t *testing.T, cases map[string]bool) string {
	t.Helper()
	dir := t.TempDir()
	w, err := journal.Create(filepath.Join(dir, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for id, pass := range cases {
		r := &result.CaseRecord{Checkpoint: "c1", Group: "g", ID: id, Passed: pass,
			Attributes: []verify.AttributeResult{{Attribute: "output", IsCorrect: pass, Weight: 1}}}
		if pass {
			r.Score = 1
		}
		w.Append(r)
	}
	w.Close()
	return dir
}

func TestRegressionsFixesAndMissingCases(t *testing.T) {
	base := runDir(t, map[string]bool{"same_pass": true, "same_fail": false, "broke": true, "fixed": false, "dropped": true})
	cur := runDir(t, map[string]bool{"same_pass": true, "same_fail": false, "broke": false, "fixed": true, "added": false})
	res, err := Runs(base, cur)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Regressions) != 1 || res.Regressions[0].Key != "c1/g/broke" || res.Regressions[0].BaseScore != 1 || res.Regressions[0].Score != 0 ||
		strings.Join(res.Regressions[0].Incorrect, ",") != "output" {
		t.Errorf("regressions: %+v", res.Regressions)
	}
	if len(res.Fixes) != 1 || res.Fixes[0].Key != "c1/g/fixed" {
		t.Errorf("fixes: %+v", res.Fixes)
	}
	if res.Unchanged != 2 || strings.Join(res.OnlyBase, ",") != "c1/g/dropped" || strings.Join(res.OnlyRun, ",") != "c1/g/added" {
		t.Errorf("unchanged %d, only base %v, only run %v", res.Unchanged, res.OnlyBase, res.OnlyRun)
	}
	var buf bytes.Buffer
	res.Print(&buf)
	if !strings.Contains(buf.String(), "1 regressions, 1 fixes, 2 unchanged, 1 only in baseline, 1 only in this run") {
		t.Errorf("printed:\n%s", buf.String())
	}
	if _, err := Runs(t.TempDir(), cur); err == nil || !strings.Contains(err.Error(), "baseline") {
		t.Errorf("missing baseline: %v", err)
	}
}
