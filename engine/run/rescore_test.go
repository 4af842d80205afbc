package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/compare"
	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/run/runtest"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pin"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// brokenInventoryRun runs the example problem with the broken submission.
func brokenInventoryRun(t *testing.T) string {
	t.Helper()
	runtest.RequirePython(t)
	p, err := LoadProblem(exampleDir)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if _, err := Run(context.Background(), Options{
		Problem: p, Submission: filepath.Join(exampleDir, "submissions", "broken"),
		OutDir: out, Jobs: 2, Runtime: local.New(local.Options{BaseDir: t.TempDir()}),
		Loader: BuiltinLoader, Plugins: runtest.Host(t, host.Options{}),
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func recordsByKey(t *testing.T, dir string) map[string]*result.CaseRecord {
	t.Helper()
	recs := map[string]*result.CaseRecord{}
	if err := journal.Read(filepath.Join(dir, journal.FileName), func(r *result.CaseRecord) error {
		if _, dup := recs[r.Key()]; dup {
			t.Errorf("%s: two records", r.Key())
		}
		recs[r.Key()] = r
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return recs
}

// verdictOf is what a rescore must keep when nothing changed: each
// attribute's verdict, the score, the verdict, and what ran.
func verdictOf(r *result.CaseRecord) string {
	var attrs []string
	for _, a := range r.Attributes {
		attrs = append(attrs, fmt.Sprintf("%s=%v(%s)", a.Attribute, a.IsCorrect, strings.Split(a.Check, "@")[0]))
	}
	return fmt.Sprintf("passed=%v score=%.4f %v out=%q status=%d", r.Passed, r.Score, attrs, r.Result.Output, r.Result.StatusCode)
}

func rescoreInventory(t *testing.T, from string, p *problem.Problem, verifier *problem.PluginRef, jobs int) (*RescoreOutcome, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "rescored")
	res, err := Rescore(context.Background(), RescoreOptions{Problem: p, From: from, Jobs: jobs, Loader: BuiltinLoader,
		Plugins: runtest.Host(t, host.Options{}), Verifier: verifier}, RescoreTarget{OutDir: out, RunID: "rescore-test"})
	if err != nil {
		t.Fatal(err)
	}
	return res, out
}

// Rescored with the problem's own checks and plugins, a run keeps every
// verdict, and the new run directory holds a journal and summaries of its
// own; the old one is left as it was.
func TestRescoreWithTheSameVerifierKeepsEveryVerdict(t *testing.T) {
	from := brokenInventoryRun(t)
	before, err := os.ReadFile(filepath.Join(from, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	p, err := LoadProblem(exampleDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, jobs := range []int{1, 3} {
		res, out := rescoreInventory(t, from, p, nil, jobs)
		old, now := recordsByKey(t, from), recordsByKey(t, out)
		if len(now) != len(expectedOrder) || len(old) != len(now) {
			t.Fatalf("jobs=%d: %d records rescored of %d", jobs, len(now), len(old))
		}
		for k, o := range old {
			n := now[k]
			if n == nil {
				t.Errorf("jobs=%d: %s not rescored", jobs, k)
				continue
			}
			if a, b := verdictOf(o), verdictOf(n); a != b {
				t.Errorf("jobs=%d: %s changed:\n  was %s\n  now %s", jobs, k, a, b)
			}
			if n.Index != o.Index || !n.StartedAt.Equal(o.StartedAt) || n.Duration != o.Duration {
				t.Errorf("jobs=%d: %s: index/start/duration not kept", jobs, k)
			}
		}
		if res.Rescored != 20 || res.VerdictsChanged != 0 || res.ScoresChanged != 0 || res.NotRun != 0 || res.LeftOut != 0 || res.InputsDiffer != 0 {
			t.Errorf("jobs=%d: outcome %+v", jobs, res)
		}
		if res.Passed || len(res.Summaries) != 2 {
			t.Fatalf("jobs=%d: the broken submission's rescore must fail its policy: %+v", jobs, res.Summaries)
		}
		cp1 := res.Summaries[0]
		if !cp1.Complete || cp1.Cases != 8 || cp1.CasesPassed != 3 || cp1.RunID != "rescore-test" || cp1.GroupOutcomes["summary"].Failed != nil {
			t.Errorf("jobs=%d: checkpoint_1 summary %+v", jobs, cp1)
		}
		// The per-case entries are in the summary written, not in memory.
		if written, err := report.ReadSummary(out, "checkpoint_1"); err != nil || strings.Join(written.GroupOutcomes["summary"].Failed, ",") != "basic,static_catalog" ||
			len(written.GroupOutcomes["summary"].Results) != written.GroupOutcomes["summary"].Total {
			t.Errorf("jobs=%d: checkpoint_1 summary written: %+v %v", jobs, written, err)
		}
		if _, err := os.Stat(filepath.Join(out, "checkpoint_2", "evaluation.json")); err != nil {
			t.Errorf("jobs=%d: summary not written: %v", jobs, err)
		}
		cmp, err := compare.Runs(from, out)
		if err != nil || len(cmp.Regressions)+len(cmp.Fixes)+len(cmp.OnlyBase)+len(cmp.OnlyRun) != 0 || cmp.Unchanged != 20 {
			t.Errorf("jobs=%d: compare %+v %v", jobs, cmp, err)
		}
	}
	after, _ := os.ReadFile(filepath.Join(from, journal.FileName))
	if !bytes.Equal(before, after) {
		t.Error("the rescored run's journal changed")
	}
}

// Another verifier in place of the groups' own changes exactly the cases
// that verifier decides: the minimal verifier passes every output, so the
// cases the broken submission failed only by the inventory verifier's
// attributes pass, and those failed by a built-in check or an evaluator
// still fail. A comparison with the old run lists them as fixes.
func TestRescoreWithAnotherVerifier(t *testing.T) {
	from := brokenInventoryRun(t)
	wasm := filepath.Join(t.TempDir(), "minimal.wasm")
	if err := pluginbuild.Build("../../plugins/host/testdata/minimal", wasm); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	p, err := LoadProblem(exampleDir)
	if err != nil {
		t.Fatal(err)
	}
	ref := &problem.PluginRef{Path: wasm, SHA256: pin.Digest(data)}
	pv, err := WithVerifier(p, ref)
	if err != nil {
		t.Fatal(err)
	}
	if p.Checkpoints[0].Groups[0].Verifier.Path == wasm || pv.Checkpoints[0].Groups[0].Verifier.Path != wasm ||
		pv.Checkpoints[0].Groups[0].Verifier.Config["output"] != p.Checkpoints[0].Groups[0].Verifier.Config["output"] {
		t.Fatal("WithVerifier must replace the verifier in a copy, keeping the group's config")
	}
	res, out := rescoreInventory(t, from, p, ref, 2)

	var wantFixed []string
	for k, r := range recordsByKey(t, from) {
		if r.Passed {
			continue
		}
		onlyVerifier := true
		for _, a := range r.Attributes {
			if !a.IsCorrect && !strings.HasPrefix(a.Check, "inventory-verifier@") {
				onlyVerifier = false
			}
		}
		if onlyVerifier {
			wantFixed = append(wantFixed, k)
		}
	}
	slices.Sort(wantFixed)
	if len(wantFixed) < 5 {
		t.Fatalf("the broken run should fail several cases by its verifier alone: %v", wantFixed)
	}
	cmp, err := compare.Runs(from, out)
	if err != nil {
		t.Fatal(err)
	}
	var fixed []string
	for _, c := range cmp.Fixes {
		fixed = append(fixed, c.Key)
	}
	if strings.Join(fixed, " ") != strings.Join(wantFixed, " ") || len(cmp.Regressions) != 0 {
		t.Errorf("fixes %v, want %v; regressions %+v", fixed, wantFixed, cmp.Regressions)
	}
	if res.VerdictsChanged != len(wantFixed) {
		t.Errorf("verdicts changed: %d, want %d", res.VerdictsChanged, len(wantFixed))
	}
	for k, r := range recordsByKey(t, out) {
		for _, a := range r.Attributes {
			if strings.HasPrefix(a.Check, "inventory-verifier") {
				t.Errorf("%s: attribute %s still checked by the replaced verifier", k, a.Attribute)
			}
		}
		if r.Key() == "checkpoint_1/top/top_all" && r.Passed {
			t.Errorf("%s: its evaluator's verdict must stay: %s", k, verdictOf(r))
		}
	}
	if _, err := WithVerifier(&problem.Problem{Name: "none", Checkpoints: []*problem.Checkpoint{{Name: "c", Groups: []*problem.Group{{Name: "g"}}}}},
		&problem.PluginRef{Path: wasm, SHA256: pin.Digest(data)}); err == nil || !strings.Contains(err.Error(), "binds a verifier plugin") {
		t.Errorf("a problem without a verifier plugin: %v", err)
	}
}

// A verifier that faults on some cases fails exactly those cases, naming
// the fault; the rescore goes on and the others get their verdicts.
func TestRescoreWithAFaultingVerifier(t *testing.T) {
	dir := t.TempDir()
	wasm := filepath.Join(dir, "misbehave.wasm")
	if err := pluginbuild.Build("../../plugins/host/testdata/misbehave", wasm); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(fmt.Sprintf(`name: faults
command: sh echo.sh
verifier: {type: plugin, path: misbehave.wasm, sha256: %s}
checkpoints:
  c1:
    groups:
      g: {type: Core}
`, pin.Digest(data))), 0o644)
	// The run verifies with the cases' "ok" modes, the rescore with the
	// mode each case names now.
	writeCases := func(modes ...string) {
		var b strings.Builder
		for i, m := range modes {
			fmt.Fprintf(&b, "case%d: {order: %d, expected: {output: \"hi\\n\"}, extra: {mode: %s}}\n", i, i, m)
		}
		os.MkdirAll(filepath.Join(dir, "c1"), 0o755)
		os.WriteFile(filepath.Join(dir, "c1", "g.yaml"), []byte(b.String()), 0o644)
	}
	writeCases("ok", "ok", "ok", "ok")
	sub := t.TempDir()
	os.WriteFile(filepath.Join(sub, "echo.sh"), []byte("echo hi\n"), 0o644)
	p, err := LoadProblem(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := runtest.Host(t, host.Options{Timeout: 4e9, MemoryBytes: 32 << 20})
	from := t.TempDir()
	if _, err := Run(context.Background(), Options{Problem: p, Submission: sub, OutDir: from,
		Runtime: local.New(local.Options{BaseDir: t.TempDir()}), Loader: BuiltinLoader, Plugins: h}); err != nil {
		t.Fatal(err)
	}
	writeCases("ok", "trap", "ok", "badjson")
	if p, err = LoadProblem(dir); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "rescored")
	res, err := Rescore(context.Background(), RescoreOptions{Problem: p, From: from, Loader: BuiltinLoader, Plugins: h},
		RescoreTarget{OutDir: out})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"case1": "export verify: trapped", "case3": "export verify: returned invalid JSON"}
	recs := recordsByKey(t, out)
	if len(recs) != 4 || res.VerdictsChanged != 2 {
		t.Fatalf("%d records, %d verdicts changed", len(recs), res.VerdictsChanged)
	}
	for _, r := range recs {
		fault, faulty := want[r.ID]
		switch {
		case faulty && (r.Passed || !strings.Contains(r.Result.PluginError, fault)):
			t.Errorf("%s: passed=%v plugin_error=%q, want a fault with %q", r.ID, r.Passed, r.Result.PluginError, fault)
		case !faulty && (!r.Passed || r.Result.PluginError != ""):
			t.Errorf("%s: passed=%v plugin_error=%q", r.ID, r.Passed, r.Result.PluginError)
		}
	}
	if s := res.Summaries[0]; s.PluginErrors != 2 || s.CasesPassed != 2 {
		t.Errorf("summary: %+v", s)
	}
}

// copyRun copies a run directory's journal and summaries.
func copyRun(t *testing.T, from string, edit func(lines []string) []string) string {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join(from, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	lines = lines[:len(lines)-1] // after the last newline
	if edit != nil {
		lines = edit(lines)
	}
	if err := os.WriteFile(filepath.Join(dir, journal.FileName), []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cp := range []string{"checkpoint_1", "checkpoint_2"} {
		if data, err := os.ReadFile(filepath.Join(from, cp, "evaluation.json")); err == nil {
			os.MkdirAll(filepath.Join(dir, cp), 0o755)
			os.WriteFile(filepath.Join(dir, cp, "evaluation.json"), data, 0o644)
		}
	}
	return dir
}

// Cases an interrupted run did not finish are not rescored and not
// invented: they are counted and named, and their checkpoints are
// incomplete; records of cases the problem no longer has are counted.
func TestRescoreOfAnInterruptedRun(t *testing.T) {
	from := brokenInventoryRun(t)
	var dropped []string
	run := copyRun(t, from, func(lines []string) []string {
		var kept []string
		for _, l := range lines {
			if strings.Contains(l, `"checkpoint":"checkpoint_2"`) && strings.Contains(l, `"group":"export"`) {
				dropped = append(dropped, l)
				continue
			}
			kept = append(kept, l)
		}
		// A record of a case the problem does not have, and a second
		// record of a case (the first counts).
		gone := strings.Replace(kept[0], `"id":"`, `"id":"gone-`, 1)
		return append(kept, gone, kept[1])
	})
	if len(dropped) != 2 {
		t.Fatalf("dropped %d records", len(dropped))
	}
	p, err := LoadProblem(exampleDir)
	if err != nil {
		t.Fatal(err)
	}
	res, out := rescoreInventory(t, run, p, nil, 2)
	recs := recordsByKey(t, out)
	if len(recs) != 18 || res.Rescored != 18 || res.NotRun != 2 {
		t.Fatalf("%d records, outcome %+v", len(recs), res)
	}
	for k := range recs {
		if strings.Contains(k, "/export/") {
			t.Errorf("%s was not run and must not be in the rescore", k)
		}
	}
	if res.Duplicates != 1 {
		t.Errorf("duplicates: %d", res.Duplicates)
	}
	if res.LeftOut != 1 || len(res.LeftOutKeys) != 1 || !strings.Contains(res.LeftOutKeys[0], "/gone-") {
		t.Errorf("left out: %d %v", res.LeftOut, res.LeftOutKeys)
	}
	cp1, cp2 := res.Summaries[0], res.Summaries[1]
	if !cp1.Complete || cp2.Complete || cp2.Passed {
		t.Errorf("checkpoint_1 complete=%v, checkpoint_2 complete=%v passed=%v", cp1.Complete, cp2.Complete, cp2.Passed)
	}
	if e := cp2.GroupOutcomes["export"].Error; !strings.Contains(e, "2 case(s) have no result") || !strings.Contains(e, "sorted") {
		t.Errorf("export group error: %q", e)
	}
}

// A loader that makes cases from earlier results is fed the recorded
// results; at the first case without one it stops, since what it would
// make next depends on a result that does not exist.
func TestRescoreOfAStatefulGroupStopsAtTheFirstMissingCase(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("name: chain\ncommand: sh echo.sh\ncheckpoints:\n  c1:\n    groups:\n      g: {type: Core}\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "c1", "g"), 0o755)
	sub := t.TempDir()
	os.WriteFile(filepath.Join(sub, "echo.sh"), []byte("echo \"$1\"\n"), 0o644)
	p, err := LoadProblem(dir)
	if err != nil {
		t.Fatal(err)
	}
	loader := func(string) (cases.Loader, bool) { return chainLoader{n: 5}, true }
	from := t.TempDir()
	if _, err := Run(context.Background(), Options{Problem: p, Submission: sub, OutDir: from,
		Runtime: local.New(local.Options{BaseDir: t.TempDir()}), Loader: loader}); err != nil {
		t.Fatal(err)
	}
	res, err := Rescore(context.Background(), RescoreOptions{Problem: p, From: from, Loader: loader},
		RescoreTarget{OutDir: filepath.Join(t.TempDir(), "all")})
	if err != nil || res.Rescored != 5 || !res.Passed {
		t.Fatalf("whole chain: %+v %v", res, err)
	}
	cut := copyRun(t, from, func(lines []string) []string { return append(lines[:2], lines[3:]...) })
	out := filepath.Join(t.TempDir(), "cut")
	res, err = Rescore(context.Background(), RescoreOptions{Problem: p, From: cut, Loader: loader}, RescoreTarget{OutDir: out})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(runtest.JournalIDs(t, filepath.Join(out, journal.FileName)), ","); got != "step1=true,step2=true" {
		t.Errorf("journal: %s", got)
	}
	if res.NotRun != 1 || res.LeftOut != 2 || res.Passed || res.Summaries[0].Complete ||
		!strings.Contains(res.Summaries[0].GroupOutcomes["g"].Error, "stops at the first") {
		t.Errorf("outcome %+v, summary %+v", res, res.Summaries[0])
	}
}

// A journal with a corrupt line (or a record with a field of the wrong
// type) is refused before anything is written, naming every such line;
// a rescore never writes over a journal.
func TestRescoreRefusesACorruptJournal(t *testing.T) {
	from := brokenInventoryRun(t)
	run := copyRun(t, from, func(lines []string) []string {
		bad := strings.Replace(lines[4], `"passed":false`, `"passed":"no"`, 1)
		bad = strings.Replace(bad, `"passed":true`, `"passed":"yes"`, 1)
		return append(append(append([]string{}, lines[:2]...), "{not a record\n"), append([]string{bad}, lines[5:]...)...)
	})
	p, err := LoadProblem(exampleDir)
	if err != nil {
		t.Fatal(err)
	}
	h := runtest.Host(t, host.Options{})
	out := filepath.Join(t.TempDir(), "rescored")
	_, err = Rescore(context.Background(), RescoreOptions{Problem: p, From: run, Loader: BuiltinLoader, Plugins: h}, RescoreTarget{OutDir: out})
	var c *journal.Corruption
	if !errors.As(err, &c) || len(c.Lines) != 2 {
		t.Fatalf("error: %v", err)
	}
	msg := err.Error()
	for _, want := range []string{journal.FileName + ":3: corrupt journal line", journal.FileName + ":4: corrupt journal line: passed: expected bool"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not say %q:\n%s", want, msg)
		}
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused rescore wrote %s: %v", out, err)
	}
	// An output directory holding results is refused.
	_, err = Rescore(context.Background(), RescoreOptions{Problem: p, From: from, Loader: BuiltinLoader, Plugins: h}, RescoreTarget{OutDir: from})
	if err == nil || !strings.Contains(err.Error(), "already holds results") {
		t.Errorf("rescoring into a run directory: %v", err)
	}
	// A verifier that is not a module is named once, as the file given.
	bad := filepath.Join(t.TempDir(), "bad.wasm")
	os.WriteFile(bad, []byte("not a module"), 0o644)
	_, err = Rescore(context.Background(), RescoreOptions{Problem: p, From: from, Loader: BuiltinLoader, Plugins: h,
		Verifier: &problem.PluginRef{Path: bad, SHA256: pin.Digest([]byte("not a module"))}}, RescoreTarget{OutDir: out})
	if err == nil || !strings.HasPrefix(err.Error(), "verifier "+bad+": ") || strings.Count(err.Error(), "not a Wasm module") != 1 {
		t.Errorf("a verifier that is not a module: %v", err)
	}
	// So is a directory that is not a run.
	_, err = Rescore(context.Background(), RescoreOptions{Problem: p, From: t.TempDir(), Loader: BuiltinLoader, Plugins: h}, RescoreTarget{OutDir: out})
	if err == nil || !strings.Contains(err.Error(), "not a run directory") {
		t.Errorf("rescoring an empty directory: %v", err)
	}
}

func TestResolvesTo(t *testing.T) {
	for _, c := range []struct {
		text, got string
		want      bool
	}{
		{"a", "a", true},
		{"a", "b", false},
		{"{{static:x}}", "/tmp/w/static/x", true},
		{"top 10 {{static:x}}", "top 10 /tmp/x", true},
		{"top 10 {{static:x}}", "top 11 /tmp/x", false},
		{"--url=http://{{host}}:{{port}}/", "--url=http://127.0.0.1:8080/", true},
		{"--url=http://{{host}}:{{port}}/", "--url=http://127.0.0.1/", false},
		{"x{{a}}x", "x", false},
		{"x{{a}}x", "xx", true},
	} {
		if got := resolvesTo(c.text, c.got); got != c.want {
			t.Errorf("resolvesTo(%q, %q) = %v", c.text, c.got, got)
		}
	}
}

// An interrupted rescore keeps what it verified and says it is incomplete.
func TestInterruptedRescoreKeepsWhatItVerified(t *testing.T) {
	from := brokenInventoryRun(t)
	p, err := LoadProblem(exampleDir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := filepath.Join(t.TempDir(), "rescored")
	res, err := Rescore(ctx, RescoreOptions{Problem: p, From: from, Loader: BuiltinLoader, Plugins: runtest.Host(t, host.Options{})},
		RescoreTarget{OutDir: out, Progress: &runtest.CancelAfter{N: 5, Cancel: cancel}})
	if err != nil {
		t.Fatal(err)
	}
	n := len(runtest.JournalIDs(t, filepath.Join(out, journal.FileName)))
	if !res.Interrupted || res.Passed || n < 5 || n >= 20 || res.Rescored != n {
		t.Fatalf("interrupted=%v passed=%v, %d records, %d rescored", res.Interrupted, res.Passed, n, res.Rescored)
	}
	for _, s := range res.Summaries {
		if s.Complete {
			t.Errorf("%s: complete after an interrupt", s.Name)
		}
	}
}

// A journal written in another order than the problem's (groups
// interleaved as concurrent groups write them, cases out of order, a
// group's records far apart) is rescored as one written in order: each
// case gets its first record, a second one is a duplicate, a case without
// one is not run, and records no case claims are left out.
func TestRescoreOfAJournalInAnotherOrder(t *testing.T) {
	prob, from := recordedRun(t, 90, 30, 50, 10)
	jpath := filepath.Join(from, journal.FileName)
	data, err := os.ReadFile(jpath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	lines = lines[:len(lines)-1]
	byGroup := [3][]string{lines[:30], lines[30:60], lines[60:]}
	other := func(id string) string {
		return strings.Replace(strings.Replace(byGroup[0][0], `"id":"case_000000"`, `"id":"`+id+`"`, 1), `"group":"g000"`, `"group":"gone"`, 1)
	}
	// g001's cases 10 to 14 came in reverse order; g002's case 75 has no
	// record.
	slices.Reverse(byGroup[1][10:15])
	byGroup[2] = slices.Delete(byGroup[2], 15, 16)
	var edited []string
	for i := 0; i < 30; i++ {
		for g := range byGroup {
			if i < len(byGroup[g]) {
				edited = append(edited, byGroup[g][i])
			}
			if g == 1 && i == 3 {
				edited = append(edited, byGroup[1][3]) // a duplicate at once
			}
			if g == 2 && i == 20 {
				// More than a span's gap between two records of g002.
				big := other("big")
				big = strings.Replace(big, `"output":"`, `"output":"`+strings.Repeat("x", spanGap+1), 1)
				edited = append(edited, big)
			}
		}
	}
	unclaimed := strings.Replace(byGroup[0][5], `"id":"case_000005"`, `"id":"case_unknown"`, 1)
	edited = append(edited, other("left"), byGroup[0][7], unclaimed, other("left"))
	if err := os.WriteFile(jpath, []byte(strings.Join(edited, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := LoadProblem(prob)
	if err != nil {
		t.Fatal(err)
	}
	for _, jobs := range []int{1, 3} {
		out := filepath.Join(t.TempDir(), "out")
		res, err := Rescore(context.Background(), RescoreOptions{Problem: p, From: from, Loader: BuiltinLoader, Jobs: jobs}, RescoreTarget{OutDir: out})
		if err != nil {
			t.Fatal(err)
		}
		if res.Rescored != 89 || res.NotRun != 1 || res.Duplicates != 3 || res.VerdictsChanged != 0 || res.ScoresChanged != 0 || res.LeftOut != 3 {
			t.Errorf("jobs=%d: outcome %+v", jobs, res)
		}
		if got := strings.Join(res.LeftOutKeys, " "); got != "c1/gone/big c1/gone/left c1/g000/case_unknown" {
			t.Errorf("jobs=%d: left out %s", jobs, got)
		}
		recs := recordsByKey(t, out)
		for i := 0; i < 90; i++ {
			key := fmt.Sprintf("c1/g%03d/case_%06d", i/30, i)
			r := recs[key]
			switch {
			case i == 75 && r != nil:
				t.Errorf("jobs=%d: %s was not run but is rescored", jobs, key)
			case i != 75 && (r == nil || r.Passed != (i%4 != 3) || r.Index != i%30):
				t.Errorf("jobs=%d: %s: %+v", jobs, key, r)
			}
		}
		if e := res.Summaries[0].GroupOutcomes["g002"].Error; !strings.Contains(e, "1 case(s) have no result") {
			t.Errorf("jobs=%d: g002's error: %q", jobs, e)
		}
	}
}
