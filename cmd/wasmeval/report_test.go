package main

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/manifest"
	"github.com/wasmeval/wasmeval/engine/report"
)

var (
	exampleOnce              sync.Once
	exampleRef, exampleBroke string
	exampleErr               string
)

// Both example submissions, run once per test binary, are the inputs of
// the report tests.
func exampleRuns(t *testing.T) (reference, broken string) {
	t.Helper()
	exampleOnce.Do(func() {
		base, err := os.MkdirTemp("", "wasmeval-report-test-")
		if err != nil {
			exampleErr = err.Error()
			return
		}
		exampleRef, exampleBroke = filepath.Join(base, "reference"), filepath.Join(base, "broken")
		// Exit codes are TestRunExampleExitCodes' business; here a case
		// timing out on a loaded machine must not matter, since the
		// expectations below come from the journals.
		if r := wasmeval(t, "run", example, "--submission", example+"/submissions/reference", "--out", exampleRef, "--jobs", "3"); r.code > 1 {
			exampleErr = fmt.Sprintf("reference: exit %d\n%s", r.code, r.stderr)
		}
		if r := wasmeval(t, "run", example, "--submission", example+"/submissions/broken", "--out", exampleBroke, "--jobs", "3"); r.code > 1 {
			exampleErr = fmt.Sprintf("broken: exit %d\n%s", r.code, r.stderr)
		}
	})
	if exampleErr != "" {
		t.Fatal(exampleErr)
	}
	return exampleRef, exampleBroke
}

// journalCounts counts a run's cases the way JUnit does.
func journalCounts(t *testing.T, dir string) (cases, passed, failures, errs int) {
	for _, r := range readJournal(t, dir) {
		cases++
		switch {
		case r.Passed:
			passed++
		case r.Result.TimedOut || r.Result.AdapterError || r.Result.PluginError != "":
			errs++
		default:
			failures++
		}
	}
	return
}

func TestRunWritesManifestAndReports(t *testing.T) {
	reference, broken := exampleRuns(t)
	for _, f := range []string{"manifest.json", "results.parquet", "report.html", "results.jsonl"} {
		if st, err := os.Stat(filepath.Join(broken, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	m, err := manifest.Read(broken)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := manifest.Read(reference)
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != manifest.StatusComplete || m.EndedAt.Before(m.StartedAt) || m.RunID == "" || m.RunID == ref.RunID {
		t.Errorf("manifest status/times/id: %s %v %v %q", m.Status, m.StartedAt, m.EndedAt, m.RunID)
	}
	if m.Problem.Name != "inventory" || len(m.Problem.Digest) != 64 || len(m.Problem.ConfigDigest) != 64 || m.Problem.Digest != ref.Problem.Digest {
		t.Errorf("problem digests: %+v vs %+v", m.Problem, ref.Problem)
	}
	if len(m.Submission.Digest) != 64 || m.Submission.Digest == ref.Submission.Digest || !filepath.IsAbs(m.Submission.Path) {
		t.Errorf("submission: %+v (reference %+v)", m.Submission, ref.Submission)
	}
	if len(m.Plugins) != 4 || m.Plugins["plugins/inventory-verifier.wasm"] == "" || m.Plugins["plugins/inventory-ranking.wasm"] == "" {
		t.Errorf("plugins: %v", m.Plugins)
	}
	if m.Engine.Version == "" || m.Engine.GoVersion == "" || m.Host.CPUs < 1 || m.Host.OS == "" || m.Flags.Jobs != 3 {
		t.Errorf("engine/host/flags: %+v %+v %+v", m.Engine, m.Host, m.Flags)
	}
	var sum report.CheckpointSummary
	data, _ := os.ReadFile(filepath.Join(broken, "checkpoint_1", "evaluation.json"))
	if err := json.Unmarshal(data, &sum); err != nil || sum.RunID != m.RunID || sum.Manifest != "../manifest.json" {
		t.Errorf("summary does not link the manifest: %q %q (%v)", sum.RunID, sum.Manifest, err)
	}
	html, _ := os.ReadFile(filepath.Join(broken, "report.html"))
	if !strings.Contains(string(html), `href="manifest.json"`) || !strings.Contains(string(html), m.RunID) {
		t.Error("report.html does not link the manifest")
	}
}

func TestReportFormats(t *testing.T) {
	reference, broken := exampleRuns(t)

	nCases, nPassed, nFailures, nErrors := journalCounts(t, broken)
	if nCases != 20 || nPassed+nFailures+nErrors != 20 {
		t.Fatalf("broken run: %d cases", nCases)
	}
	r := wasmeval(t, "report", broken)
	if r.code != 0 {
		t.Fatalf("report: exit %d\n%s", r.code, r.stderr)
	}
	perCP := map[string][2]int{}
	for _, rec := range readJournal(t, broken) {
		c := perCP[rec.Checkpoint]
		c[1]++
		if rec.Passed {
			c[0]++
		}
		perCP[rec.Checkpoint] = c
	}
	lines := strings.Split(r.stdout, "\n")
	for cp, c := range perCP {
		want := fmt.Sprintf("%d/%d", c[0], c[1])
		found := false
		for _, l := range lines {
			f := strings.Fields(l)
			if len(f) >= 4 && f[0] == cp && f[1] == "(all)" && f[3] == want {
				found = true
			}
		}
		if !found {
			t.Errorf("text report: no %s (all) line with %s:\n%s", cp, want, r.stdout)
		}
	}
	for _, want := range []string{"checkpoint_1  [Core]", "checkpoint_1  [Error]", "checkpoint_2  [Regression]", "checkpoint_2  by_category"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("text report lacks %q:\n%s", want, r.stdout)
		}
	}

	r = wasmeval(t, "report", broken, "--format", "json")
	var rep report.JSONReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("json: %v\n%s", err, r.stdout)
	}
	byCategory := 0
	for _, rec := range readJournal(t, broken) {
		if rec.Group == "by_category" && rec.Passed {
			byCategory++
		}
	}
	if rep.Cases != 20 || rep.CasesPassed != nPassed || rep.Passed || len(rep.Checkpoints) != 2 || rep.ManifestLink != "manifest.json" ||
		rep.Checkpoints[1].GroupOutcomes["by_category"].Passed != byCategory {
		t.Errorf("json report: %+v", rep)
	}

	junitFile := filepath.Join(t.TempDir(), "junit.xml")
	if r = wasmeval(t, "report", broken, "--format", "junit", "--output", junitFile); r.code != 0 {
		t.Fatalf("junit: exit %d %s", r.code, r.stderr)
	}
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Tests int    `xml:"tests,attr"`
			Cases []struct {
				Class   string `xml:"classname,attr"`
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	data, _ := os.ReadFile(junitFile)
	if err := xml.Unmarshal(data, &suites); err != nil {
		t.Fatalf("junit XML: %v", err)
	}
	if suites.Tests != 20 || suites.Failures != nFailures || suites.Errors != nErrors || len(suites.Suites) != 2 || suites.Suites[0].Tests != 8 || len(suites.Suites[1].Cases) != 12 {
		t.Fatalf("junit counts: %d tests %d failures, suites %d", suites.Tests, suites.Failures, len(suites.Suites))
	}
	found := false
	for _, c := range suites.Suites[0].Cases {
		if c.Class == "inventory.checkpoint_1.summary" && c.Name == "basic" {
			found = c.Failure != nil && strings.Contains(c.Failure.Message, "incorrect: output") && strings.Contains(c.Failure.Text, "$.total_value")
		}
	}
	if !found {
		t.Error("junit: summary/basic is not a failure with its diff")
	}

	r = wasmeval(t, "report", broken, "--format", "markdown")
	if !strings.Contains(r.stdout, "## Failing cases") || !strings.Contains(r.stdout, "<code>checkpoint_1/summary/basic</code>") ||
		!strings.Contains(r.stdout, "| summary | Core | ") || !strings.Contains(r.stdout, "(manifest.json)") {
		t.Errorf("markdown:\n%s", r.stdout)
	}

	// Compared with the reference, the broken run regresses exactly the
	// cases that pass in one journal and fail in the other (read here
	// independently of the compare code).
	refPassed := map[string]bool{}
	for _, rec := range readJournal(t, reference) {
		refPassed[rec.Key()] = rec.Passed
	}
	var wantReg, wantFix []string
	unchanged := 0
	for _, rec := range readJournal(t, broken) {
		switch {
		case refPassed[rec.Key()] && !rec.Passed:
			wantReg = append(wantReg, rec.Key())
		case !refPassed[rec.Key()] && rec.Passed:
			wantFix = append(wantFix, rec.Key())
		default:
			unchanged++
		}
	}
	slices.Sort(wantReg)
	slices.Sort(wantFix)
	r = wasmeval(t, "report", broken, "--compare", reference, "--format", "json")
	if r.code != 1 {
		t.Fatalf("compare with regressions: exit %d, want 1\n%s", r.code, r.stderr)
	}
	var cmp struct {
		Regressions []struct {
			Key       string   `json:"key"`
			Incorrect []string `json:"incorrect"`
		} `json:"regressions"`
		Fixes []struct {
			Key string `json:"key"`
		} `json:"fixes"`
		Unchanged int `json:"unchanged"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &cmp); err != nil {
		t.Fatal(err)
	}
	var gotReg, gotFix []string
	basic := ""
	for _, c := range cmp.Regressions {
		gotReg = append(gotReg, c.Key)
		if c.Key == "checkpoint_1/summary/basic" {
			basic = strings.Join(c.Incorrect, ",")
		}
	}
	for _, c := range cmp.Fixes {
		gotFix = append(gotFix, c.Key)
	}
	if !slices.Equal(gotReg, wantReg) || !slices.Equal(gotFix, wantFix) || cmp.Unchanged != unchanged {
		t.Errorf("compare: regressions %v fixes %v unchanged %d; want %v %v %d", gotReg, gotFix, cmp.Unchanged, wantReg, wantFix, unchanged)
	}
	// The broken submission's wrong total is an output mismatch (unless
	// the case could not finish on a loaded machine).
	if slices.Contains(wantReg, "checkpoint_1/summary/basic") && !strings.Contains(basic, "output") {
		t.Errorf("summary/basic regression: incorrect %q, want output", basic)
	}
	r = wasmeval(t, "report", reference, "--compare", broken)
	if !strings.Contains(r.stdout, fmt.Sprintf("%d regressions, %d fixes", len(wantFix), len(wantReg))) ||
		len(wantReg) > 0 && !strings.Contains(r.stdout, wantReg[0]) {
		t.Errorf("reverse compare: exit %d\n%s", r.code, r.stdout)
	}

	if r = wasmeval(t, "report", t.TempDir()); r.code != 2 || !strings.Contains(r.stderr, "not a run directory") {
		t.Errorf("report of an empty directory: exit %d %s", r.code, r.stderr)
	}
	if r = wasmeval(t, "report", broken, "--format", "pdf"); r.code != 2 || !strings.Contains(r.stderr, "--format") {
		t.Errorf("bad format: exit %d %s", r.code, r.stderr)
	}
}

// A run interrupted for real (SIGINT) is resumed: only unfinished cases
// are recorded, a shared workspace is rebuilt by re-running its finished
// cases, and a changed submission is refused.
func TestResumeInterruptedRun(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "gate")
	log := filepath.Join(t.TempDir(), "log")
	// iso cases are independent; in the shared group, d counts what c left
	// in the workspace, so skipping c on resume would fail d.
	script := `echo "$1" >> ` + log + `
case "$1" in
count) echo x >> state; wc -l < state ;;
slow) [ -e ` + gate + ` ] || sleep 30; echo x >> state; wc -l < state ;;
*) echo ok ;;
esac
`
	prob := writeTree(t, map[string]string{
		"config.yaml": "name: resumable\nentry_file: main.sh\ncommand: sh {entry_file}\ncheckpoints:\n  c1:\n    groups:\n" +
			"      iso: {type: Core}\n      shared: {type: Functionality, isolated: false}\n",
		"c1/iso/a/case.yaml":    "order: 1\narguments: [a]\nexpected: {output: \"ok\\n\"}\n",
		"c1/iso/b/case.yaml":    "order: 2\narguments: [b]\nexpected: {output: \"ok\\n\"}\n",
		"c1/shared/c/case.yaml": "order: 1\narguments: [count]\nexpected: {output: \"1\\n\"}\n",
		"c1/shared/d/case.yaml": "order: 2\narguments: [slow]\nexpected: {output: \"2\\n\"}\n",
	})
	sub := writeTree(t, map[string]string{"main.sh": script})
	out := t.TempDir()
	cmd := exec.Command(binary, "run", prob, "--submission", sub, "--out", out, "--progress", "lines")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	for passed := 0; passed < 3 && sc.Scan(); {
		if strings.HasPrefix(sc.Text(), "PASS") {
			passed++
		}
	}
	time.Sleep(300 * time.Millisecond) // d is sleeping now
	cmd.Process.Signal(os.Interrupt)
	go func() {
		for sc.Scan() {
		}
	}()
	var ee *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v, want 130", err)
	}
	m, err := manifest.Read(out)
	if err != nil || m.Status != manifest.StatusInterrupted {
		t.Fatalf("manifest after interrupt: %+v %v", m, err)
	}
	if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
		t.Errorf("no HTML report of the finished cases: %v", err)
	}
	first := readJournal(t, out)
	if len(first) != 3 {
		t.Fatalf("journal after interrupt: %d records", len(first))
	}

	// A changed submission is refused, naming what changed.
	extra := filepath.Join(sub, "notes.txt")
	os.WriteFile(extra, []byte("changed"), 0o644)
	r := wasmeval(t, "run", "--resume", out)
	if r.code != 2 || !strings.Contains(r.stderr, "refusing to resume") || !strings.Contains(r.stderr, "submission digest changed") {
		t.Fatalf("resume with a changed submission: exit %d\n%s", r.code, r.stderr)
	}
	os.Remove(extra)
	// So is a changed case.
	caseFile := filepath.Join(prob, "c1", "shared", "c", "case.yaml")
	orig, _ := os.ReadFile(caseFile)
	os.WriteFile(caseFile, []byte(strings.Replace(string(orig), "1\\n", "one\\n", 1)), 0o644)
	r = wasmeval(t, "run", "--resume", out)
	if r.code != 2 || !strings.Contains(r.stderr, "problem digest") {
		t.Fatalf("resume with a changed case: exit %d\n%s", r.code, r.stderr)
	}
	os.WriteFile(caseFile, orig, 0o644)

	os.WriteFile(gate, nil, 0o644)
	os.WriteFile(log, nil, 0o644)
	r = wasmeval(t, "run", "--resume", out, "--progress", "none")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	recs := readJournal(t, out)
	var keys []string
	for _, rec := range recs {
		keys = append(keys, rec.Key())
	}
	if strings.Join(keys, " ") != "c1/iso/a c1/iso/b c1/shared/c c1/shared/d" || !recs[3].Passed {
		t.Fatalf("journal after resume: %v (d passed: %v)", keys, recs[len(recs)-1].Passed)
	}
	for i := range first {
		if !recs[i].StartedAt.Equal(first[i].StartedAt) {
			t.Errorf("%s was recorded again", recs[i].Key())
		}
	}
	// iso cases were skipped; the shared group's c ran again to rebuild
	// the workspace d depends on.
	if got, _ := os.ReadFile(log); strings.Join(strings.Fields(string(got)), " ") != "count slow" {
		t.Errorf("cases run on resume: %q", got)
	}
	m2, _ := manifest.Read(out)
	if m2.Status != manifest.StatusComplete || m2.RunID != m.RunID || len(m2.Resumes) != 1 || !m2.StartedAt.Equal(m.StartedAt) {
		t.Errorf("manifest after resume: %+v", m2)
	}
	var sum report.CheckpointSummary
	data, _ := os.ReadFile(filepath.Join(out, "c1", "evaluation.json"))
	if err := json.Unmarshal(data, &sum); err != nil || sum.Cases != 4 || !sum.Complete || sum.CasesPassed != 4 {
		t.Errorf("summary after resume: %+v", sum)
	}
	if r := wasmeval(t, "report", out, "--format", "json"); !strings.Contains(r.stdout, `"cases": 4`) || !strings.Contains(r.stdout, `"status": "complete"`) {
		t.Errorf("report after resume:\n%s", r.stdout)
	}
	// A new run into the same directory would mix two runs: refused.
	if r := wasmeval(t, "run", prob, "--submission", sub, "--out", out); r.code != 2 || !strings.Contains(r.stderr, "already holds the results of a run") {
		t.Errorf("new run into a used directory: exit %d\n%s", r.code, r.stderr)
	}
	if n := len(readJournal(t, out)); n != 4 {
		t.Errorf("journal has %d records after the refused run", n)
	}
}
