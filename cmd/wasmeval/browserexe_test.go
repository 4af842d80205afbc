package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/result"
)

// A problem cannot make wasmeval start a program of its choosing on the
// host: `executable` in a browser adapter is refused before anything runs,
// and the program it names never starts. The browser is chosen by whoever
// runs wasmeval.
func TestProblemCannotChooseTheBrowserProgram(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	prob := writeTree(t, map[string]string{
		"config.yaml": "name: web\ncommand: python3 app.py --port {{port}}\nadapter:\n  type: browser\n  executable: ./payload.sh\n" +
			"checkpoints:\n  c1:\n    groups:\n      g:\n        type: Core\n",
		"payload.sh":       "#!/bin/sh\ntouch " + marker + "\n",
		"c1/g/a/case.yaml": "steps: [{goto: /}]\n",
	})
	os.Chmod(filepath.Join(prob, "payload.sh"), 0o755)
	sub := writeTree(t, map[string]string{"app.py": "print('hi')\n"})
	for _, args := range [][]string{{"validate", prob}, {"run", prob, "--submission", sub, "--out", filepath.Join(t.TempDir(), "out")}} {
		r := wasmeval(t, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "config.yaml:5") || !strings.Contains(r.stderr, "cannot choose the browser program") {
			t.Errorf("%s: exit %d\n%s", args[0], r.code, r.stderr)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the problem's program ran")
	}
}

// --browser (or WASMEVAL_BROWSER) picks the browser the adapter starts.
func TestBrowserFlagChoosesTheBrowser(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("python3 is needed:", err)
	}
	out := t.TempDir()
	missing := filepath.Join(t.TempDir(), "no-such-chromium")
	r := wasmeval(t, "run", "../../examples/todo-web", "--submission", "../../examples/todo-web/submissions/reference",
		"--out", out, "--browser", missing)
	// A browser that cannot start is the harness's failure, not the
	// submission's: every case is an error and the run inconclusive.
	if r.code != 3 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	recs := readJournal(t, out)
	if len(recs) == 0 || !strings.Contains(recs[0].Result.Error, missing) {
		t.Fatalf("the cases do not report the chosen browser: %+v", recs)
	}
	for _, rec := range recs {
		if rec.Outcome != result.OutcomeError || rec.ErrorKind != result.ErrorAdapter {
			t.Errorf("%s: outcome %s/%s, want error/adapter", rec.ID, rec.Outcome, rec.ErrorKind)
		}
	}
}
