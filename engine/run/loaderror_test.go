package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
)

// A case file that cannot be read is an error of kind load, for that case
// alone: the group's other cases run, the summary counts it apart, and
// retries do not run it again (loading it again reads the same file).
func TestUnreadableCaseIsALoadError(t *testing.T) {
	files := map[string]string{
		"config.yaml":      "name: loaderror\ncommand: sh main.sh\ncheckpoints:\n  c1:\n    groups:\n      g: {type: Core}\n",
		"c1/g/a/case.yaml": "arguments: [x]\nexpected: {output: \"ok\\n\"}\n",
		"c1/g/b/case.yaml": "arguments: [x\n",
	}
	prob := writeFiles(t, files)
	sub := t.TempDir()
	os.WriteFile(filepath.Join(sub, "main.sh"), []byte("echo ok\n"), 0o644)
	p, err := LoadProblem(prob)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	res, err := Run(context.Background(), Options{Problem: p, Submission: sub, OutDir: out, Loader: BuiltinLoader,
		Runtime: local.New(local.Options{BaseDir: t.TempDir()}), RetryErrors: 2, RetryBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	journal.Read(filepath.Join(out, journal.FileName), func(r *result.CaseRecord) error {
		got = append(got, r.ID+":"+string(r.Outcome)+":"+string(r.ErrorKind))
		if r.ID == "b" && !strings.Contains(r.Result.Error, "c1/g/b/case.yaml:1: malformed YAML") {
			t.Errorf("b's error does not name the file and line: %q", r.Result.Error)
		}
		return nil
	})
	if strings.Join(got, " ") != "a:passed: b:error:load" {
		t.Errorf("journal: %v", got)
	}
	if s := res.Summaries[0]; s.CasesErrored != 1 || s.ErrorKinds[result.ErrorLoad] != 1 || s.CasesPassed != 1 || s.Verdict != result.VerdictInconclusive {
		t.Errorf("summary: %d errors %v, %d passed, %s", s.CasesErrored, s.ErrorKinds, s.CasesPassed, s.Verdict)
	}
}
