package compare

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/manifest"
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
	if !strings.Contains(buf.String(), "1 regressions, 1 fixes, 0 not judged in one run, 2 unchanged, 1 only in baseline, 1 only in this run") {
		t.Errorf("printed:\n%s", buf.String())
	}
	if _, err := Runs(t.TempDir(), cur); err == nil || !strings.Contains(err.Error(), "baseline") {
		t.Errorf("missing baseline: %v", err)
	}
}

// outcomeRun writes a run whose cases end as given: pass, fail, error (a
// plugin fault) or unscored.
func outcomeRun(t *testing.T, cases map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	w, err := journal.Create(filepath.Join(dir, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for id, o := range cases {
		r := &result.CaseRecord{Checkpoint: "c1", Group: "g", ID: id, Case: &result.CaseInfo{},
			Attributes: []verify.AttributeResult{{Attribute: "output", IsCorrect: o != "fail", Weight: 1}}}
		switch o {
		case "error":
			r.Result.PluginError = "verifier trapped"
		case "unscored":
			r.Unscored = "no reference"
		}
		r.Score, _ = result.Score(r.Attributes)
		result.Classification{}.Classify(r)
		w.Append(r)
	}
	w.Close()
	return dir
}

// A case that became an error is no regression of the submission, nor one
// that stopped being an error a fix: they are listed apart.
func TestErrorsAreNeitherRegressionsNorFixes(t *testing.T) {
	base := outcomeRun(t, map[string]string{"p2e": "pass", "e2p": "error", "f2e": "fail", "e2f": "error", "p2u": "pass", "p2f": "pass", "e2e": "error"})
	cur := outcomeRun(t, map[string]string{"p2e": "error", "e2p": "pass", "f2e": "error", "e2f": "fail", "p2u": "unscored", "p2f": "fail", "e2e": "error"})
	res, err := Runs(base, cur)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Regressions) != 1 || res.Regressions[0].Key != "c1/g/p2f" || len(res.Fixes) != 0 || res.Unchanged != 1 {
		t.Fatalf("regressions %+v, fixes %+v, unchanged %d", res.Regressions, res.Fixes, res.Unchanged)
	}
	var got []string
	for _, c := range res.NotJudged {
		got = append(got, c.ID+":"+string(c.From)+">"+string(c.To))
	}
	want := "e2f:error>failed e2p:error>passed f2e:failed>error p2e:passed>error p2u:passed>unscored"
	if strings.Join(got, " ") != want {
		t.Errorf("not judged: %s, want %s", strings.Join(got, " "), want)
	}
	if c := res.NotJudged[3]; strings.Join(c.Incorrect, ",") != "(plugin error)" {
		t.Errorf("passed>error names %v", c.Incorrect)
	}
	var buf bytes.Buffer
	res.Print(&buf)
	if !strings.Contains(buf.String(), "NOT JUDGED IN ONE RUN") || !strings.Contains(buf.String(), "c1/g/p2e  passed -> error") {
		t.Errorf("printed:\n%s", buf.String())
	}
}

// epochRun writes a run with --epochs: each case's epochs end as given,
// reduced by the manifest's reducer.
func epochRun(t *testing.T, reducer string, cases map[string][]bool) string {
	t.Helper()
	dir := t.TempDir()
	w, err := journal.Create(filepath.Join(dir, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for id, epochs := range cases {
		for e, pass := range epochs {
			r := &result.CaseRecord{Checkpoint: "c1", Group: "g", ID: id, Case: &result.CaseInfo{}, Epoch: e + 1,
				Attributes: []verify.AttributeResult{{Attribute: "output", IsCorrect: pass, Weight: 1}}}
			r.Score, _ = result.Score(r.Attributes)
			result.Classification{}.Classify(r)
			w.Append(r)
		}
	}
	w.Close()
	m := &manifest.Manifest{Schema: manifest.SchemaVersion, RunID: "r", Flags: manifest.Flags{Epochs: 4, Reducer: reducer}}
	if err := manifest.Write(dir, m); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Runs with epochs are compared case by case, by each case's reduced
// outcome: the order in which a flaky case's epochs passed is no change,
// and a reducer that lets it pass turns it into one fix, not one per
// epoch.
func TestEpochRunsCompareReducedCases(t *testing.T) {
	flakyA := map[string][]bool{"flaky": {true, false, true, false}, "steady": {true, true, true, true}}
	flakyB := map[string][]bool{"flaky": {false, true, false, true}, "steady": {true, true, true, true}}
	res, err := Runs(epochRun(t, "mean", flakyA), epochRun(t, "mean", flakyB))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Regressions) != 0 || len(res.Fixes) != 0 || res.Unchanged != 2 {
		t.Errorf("same epochs in another order: %+v", res)
	}
	res, err = Runs(epochRun(t, "mean", flakyA), epochRun(t, "max", flakyB))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Fixes) != 1 || res.Fixes[0].Key != "c1/g/flaky" || len(res.Regressions) != 0 || res.Unchanged != 1 {
		t.Errorf("under max: fixes %+v, regressions %+v, unchanged %d", res.Fixes, res.Regressions, res.Unchanged)
	}
}

// Runs of different problems are compared all the same, with a warning.
func TestCompareWarnsAboutDifferentProblems(t *testing.T) {
	base, cur := runDir(t, map[string]bool{"a": true}), runDir(t, map[string]bool{"a": true})
	for dir, name := range map[string]string{base: "calc", cur: "echo"} {
		if err := manifest.Write(dir, &manifest.Manifest{Schema: manifest.SchemaVersion, RunID: "r", Problem: manifest.Problem{Name: name}}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Runs(base, cur)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	res.Print(&buf)
	if len(res.Warnings) != 1 || !strings.Contains(buf.String(), `warning: the runs are of different problems ("calc" in the baseline, "echo" here)`) {
		t.Errorf("warnings %v:\n%s", res.Warnings, buf.String())
	}
}
