package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/manifest"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/plugins/pin"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// copyRunDir copies a run directory, to change it without touching the
// shared example runs.
func copyRunDir(t *testing.T, dir string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "run")
	if out, err := exec.Command("cp", "-r", dir, dst).CombinedOutput(); err != nil {
		t.Fatalf("copy %s: %v\n%s", dir, err, out)
	}
	return dst
}

func verdicts(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, r := range readJournal(t, dir) {
		var attrs []string
		for _, a := range r.Attributes {
			if !a.IsCorrect {
				attrs = append(attrs, a.Attribute)
			}
		}
		out[r.Key()] = strings.Join(append([]string{fmt.Sprint(r.Passed)}, attrs...), " ")
	}
	return out
}

func jsonOf(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

func TestRescore(t *testing.T) {
	_, broken := exampleRuns(t)
	orig, err := manifest.Read(broken)
	if err != nil {
		t.Fatal(err)
	}
	absBroken, _ := filepath.Abs(broken)

	// With the problem's own verifier: every verdict stays.
	same := filepath.Join(t.TempDir(), "same")
	r := wasmeval(t, "rescore", broken, "--out", same)
	if r.code != 1 {
		t.Fatalf("rescore of the broken run: exit %d, want 1 (it fails its policy)\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "rescored 20 case(s) of "+broken+": 0 verdict(s) changed") || !strings.Contains(r.stdout, "checkpoint_1  (all)") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	if r.stderr != "" && strings.Contains(r.stderr, "warning") {
		t.Errorf("warnings for a whole run:\n%s", r.stderr)
	}
	m, err := manifest.Read(same)
	if err != nil {
		t.Fatal(err)
	}
	if m.RescoredFrom == nil || m.RescoredFrom.Path != absBroken || m.RescoredFrom.RunID != orig.RunID || m.RescoredFrom.Verifier != nil ||
		m.RunID == orig.RunID || m.Status != manifest.StatusComplete || m.Submission != orig.Submission || m.Problem.Digest != orig.Problem.Digest {
		t.Errorf("manifest: %+v\nrescored_from: %+v", m, m.RescoredFrom)
	}
	for _, f := range []string{"results.parquet", "report.html", "checkpoint_1/evaluation.json", "checkpoint_2/evaluation.json"} {
		if st, err := os.Stat(filepath.Join(same, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	want, got := verdicts(t, broken), verdicts(t, same)
	if len(got) != 20 || jsonOf(want) != jsonOf(got) {
		t.Errorf("verdicts changed:\n%v\n%v", want, got)
	}
	r = wasmeval(t, "report", same, "--compare", broken)
	if r.code != 0 || !strings.Contains(r.stdout, "0 regressions, 0 fixes, 0 not judged in one run, 20 unchanged") {
		t.Errorf("compare: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = wasmeval(t, "report", same, "--format", "junit")
	if r.code != 0 || !strings.Contains(r.stdout, "<testsuites") {
		t.Errorf("junit of the rescore: exit %d\n%s", r.code, r.stderr)
	}
	// Never over a run, and a rescore is not resumed as a run.
	if r = wasmeval(t, "rescore", broken, "--out", same); r.code != 2 || !strings.Contains(r.stderr, "is not empty") {
		t.Errorf("rescore into a used directory: exit %d\n%s", r.code, r.stderr)
	}
	if r = wasmeval(t, "run", "--resume", same); r.code != 2 || !strings.Contains(r.stderr, "holds a rescore of "+absBroken) {
		t.Errorf("resume of a rescore: exit %d\n%s", r.code, r.stderr)
	}

	// With another verifier: the cases the inventory verifier alone
	// failed pass, and the comparison lists them.
	wasm := filepath.Join(t.TempDir(), "minimal.wasm")
	if err := pluginbuild.Build("../../plugins/host/testdata/minimal", wasm); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(wasm)
	other := filepath.Join(t.TempDir(), "other")
	r = wasmeval(t, "rescore", broken, "--verifier", wasm, "--out", other)
	if r.code > 1 || !strings.Contains(r.stdout, "rescored 20 case(s)") || strings.Contains(r.stdout, " 0 verdict(s) changed") {
		t.Fatalf("rescore with another verifier: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	m, err = manifest.Read(other)
	if err != nil {
		t.Fatal(err)
	}
	if v := m.RescoredFrom.Verifier; v == nil || v.Path != wasm || v.SHA256 != pin.Digest(data) || m.Plugins["plugins/inventory-verifier.wasm"] != "" || m.Plugins[wasm] != pin.Digest(data) {
		t.Errorf("manifest verifier: %+v, plugins %v", v, m.Plugins)
	}
	r = wasmeval(t, "report", other, "--compare", broken)
	if r.code != 0 || !strings.Contains(r.stdout, "FIXES (failed in baseline, pass now)") ||
		!strings.Contains(r.stdout, "checkpoint_1/summary/basic") || strings.Contains(r.stdout, "checkpoint_1/top/top_all") {
		t.Errorf("compare with the other verifier: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = wasmeval(t, "report", broken, "--compare", other)
	if r.code != 1 || !strings.Contains(r.stdout, "REGRESSIONS") || !strings.Contains(r.stdout, "checkpoint_1/summary/basic") {
		t.Errorf("compare the other way: exit %d\n%s", r.code, r.stdout)
	}
}

func TestRescoreRefusesBadInput(t *testing.T) {
	_, broken := exampleRuns(t)

	out := filepath.Join(t.TempDir(), "out")
	for ref, hint := range map[string]string{
		"no-such-verifier.wasm":                 "give the path of a verifier plugin file (.wasm) or a registry reference (oci://HOST/REPO:TAG)",
		"registry.example/inventory-verifier:2": "for a registry reference write oci://registry.example/inventory-verifier:2",
	} {
		r := wasmeval(t, "rescore", broken, "--verifier", ref, "--out", out)
		if r.code != 2 || !strings.Contains(r.stderr, "--verifier "+ref+": no such file or directory: "+hint) {
			t.Errorf("--verifier %s: exit %d\n%s", ref, r.code, r.stderr)
		}
	}
	if r := wasmeval(t, "rescore", broken, "--verifier", t.TempDir(), "--out", out); r.code != 2 || !strings.Contains(r.stderr, "not a file") {
		t.Errorf("--verifier DIR: exit %d\n%s", r.code, r.stderr)
	}
	notWasm := filepath.Join(t.TempDir(), "verifier.wasm")
	os.WriteFile(notWasm, []byte("not a module"), 0o644)
	if r := wasmeval(t, "rescore", broken, "--verifier", notWasm, "--out", out); r.code != 2 || !strings.Contains(r.stderr, "verifier.wasm") {
		t.Errorf("--verifier that is not a module: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused rescore created %s", out)
	}

	// A manifest whose problem is gone: named, with the way out.
	moved := copyRunDir(t, broken)
	var raw map[string]any
	data, _ := os.ReadFile(filepath.Join(moved, manifest.FileName))
	json.Unmarshal(data, &raw)
	raw["problem"].(map[string]any)["path"] = "/nonexistent/inventory"
	data, _ = json.Marshal(raw)
	os.WriteFile(filepath.Join(moved, manifest.FileName), data, 0o644)
	r := wasmeval(t, "rescore", moved)
	if r.code != 2 || !strings.Contains(r.stderr, filepath.Join(moved, manifest.FileName)+": problem.path /nonexistent/inventory: no such file or directory") ||
		!strings.Contains(r.stderr, "--problem DIR") {
		t.Errorf("problem gone: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(moved + "-rescore-1"); !os.IsNotExist(err) {
		t.Error("a refused rescore created its directory")
	}
	// Given with --problem, and written beside the run by default,
	// numbered.
	for _, n := range []string{"1", "2"} {
		if r := wasmeval(t, "rescore", moved, "--problem", example); r.code != 1 || !strings.Contains(r.stdout, moved+"-rescore-"+n) {
			t.Fatalf("rescore %s with --problem: exit %d\n%s\n%s", n, r.code, r.stdout, r.stderr)
		}
		if len(readJournal(t, moved+"-rescore-"+n)) != 20 {
			t.Errorf("rescore %s: journal", n)
		}
	}
	// Not the same problem.
	other := writeTree(t, map[string]string{"config.yaml": "name: other\ncommand: sh x.sh\ncheckpoints:\n  c1:\n    groups:\n      g: {type: Core}\n",
		"c1/g.yaml": "a: {expected: {output: \"x\"}}\n"})
	if r := wasmeval(t, "rescore", moved, "--problem", other, "--out", out); r.code != 2 || !strings.Contains(r.stderr, `is a run of problem "inventory"`) {
		t.Errorf("another problem: exit %d\n%s", r.code, r.stderr)
	}
	// A manifest that is not one.
	os.WriteFile(filepath.Join(moved, manifest.FileName), []byte(`{"schema": 1, "problem": {"path": 7}}`), 0o644)
	if r := wasmeval(t, "rescore", moved, "--out", out); r.code != 2 || !strings.Contains(r.stderr, "manifest.json: not a run manifest") {
		t.Errorf("bad manifest: exit %d\n%s", r.code, r.stderr)
	}

	// A corrupt journal line is named, with the way to set it aside.
	corrupt := copyRunDir(t, broken)
	jpath := filepath.Join(corrupt, journal.FileName)
	data, _ = os.ReadFile(jpath)
	lines := strings.SplitAfter(string(data), "\n")
	os.WriteFile(jpath, []byte(lines[0]+"{\"checkpoint\": 5}\n"+strings.Join(lines[1:], "")), 0o644)
	r = wasmeval(t, "rescore", corrupt, "--out", out)
	if r.code != 2 || !strings.Contains(r.stderr, jpath+":2: corrupt journal line: checkpoint: expected string") ||
		!strings.Contains(r.stderr, "wasmeval report --salvage "+corrupt) {
		t.Errorf("corrupt journal: exit %d\n%s", r.code, r.stderr)
	}
	if r := wasmeval(t, "report", "--salvage", corrupt); r.code > 1 {
		t.Fatalf("salvage: exit %d\n%s", r.code, r.stderr)
	}
	salvaged := filepath.Join(t.TempDir(), "salvaged")
	if r := wasmeval(t, "rescore", corrupt, "--out", salvaged); r.code != 1 || len(readJournal(t, salvaged)) != 20 {
		t.Errorf("rescore of the salvaged run: exit %d\n%s", r.code, r.stderr)
	}

	// Not a run directory.
	if r := wasmeval(t, "rescore", t.TempDir()); r.code != 2 || !strings.Contains(r.stderr, "is not a run directory") {
		t.Errorf("not a run: exit %d\n%s", r.code, r.stderr)
	}
}

// An interrupted run's missing cases are reported as not run, and the
// rescore cannot pass.
func TestRescoreOfAnInterruptedRunSaysWhatIsMissing(t *testing.T) {
	reference, _ := exampleRuns(t)
	cut := copyRunDir(t, reference)
	var kept []*result.CaseRecord
	for _, r := range readJournal(t, reference) {
		if r.Group != "export" {
			kept = append(kept, r)
		}
	}
	jpath := filepath.Join(cut, journal.FileName)
	os.Remove(jpath)
	w, err := journal.Create(jpath)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range kept {
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	out := filepath.Join(t.TempDir(), "out")
	r := wasmeval(t, "rescore", cut, "--out", out)
	if r.code != 1 || !strings.Contains(r.stderr, "2 case(s) of the problem have no result in "+cut) || !strings.Contains(r.stdout, "rescored 18 case(s)") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var sum struct {
		Complete      bool `json:"complete"`
		GroupOutcomes map[string]struct {
			Error string `json:"error"`
		} `json:"group_outcomes"`
	}
	data, _ := os.ReadFile(filepath.Join(out, "checkpoint_2", "evaluation.json"))
	if err := json.Unmarshal(data, &sum); err != nil || sum.Complete || !strings.Contains(sum.GroupOutcomes["export"].Error, "2 case(s) have no result in the rescored run") {
		t.Errorf("checkpoint_2 summary: %+v (%v)", sum, err)
	}
	r = wasmeval(t, "report", out)
	if r.code != 0 || !strings.Contains(r.stdout, "checkpoint_2  (all)                 core-cases     10/10") || !strings.Contains(r.stdout, "INCOMPLETE") {
		t.Errorf("report of the rescore:\n%s", r.stdout)
	}
}
