package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/manifest"
)

// A local submission that goes looking for the problem — through the
// command lines of the processes it can see, the engine's included — and
// for the run directory finds neither: it cannot read the expected
// output, forge a record in the journal, or kill wasmeval. What it tries
// is what a submission did before the local runtime ran cases in
// namespaces (it read /proc/$PPID/cmdline, then the problem's files).
func TestLocalSubmissionCannotReachTheProblemTheJournalOrTheEngine(t *testing.T) {
	out := t.TempDir()
	forged := `{"checkpoint":"c1","group":"g","id":"forged","passed":true,"score":1}`
	script := fmt.Sprintf(`case "$1" in
peek)
  for p in /proc/[0-9]*; do tr '\0' '\n' < $p/cmdline 2>/dev/null; echo; done > cmdlines.txt
  grep -q wasmeval cmdlines.txt && grep -q -- --submission cmdlines.txt && echo saw-engine >&2
  for d in $(cat cmdlines.txt); do
    [ -d "$d/c1/g" ] && cat "$d"/c1/g/*/expected_output 2>/dev/null
  done
  echo '%s' >> %q/results.jsonl
  true ;;
kill)
  kill -9 $PPID
  for p in /proc/[0-9]*; do
    grep -q wasmeval $p/cmdline 2>/dev/null && kill -9 ${p#/proc/}
  done
  echo ok ;;
*) echo ok ;;
esac
`, forged, out)
	prob, sub := shProblem(t, script, map[string]string{
		"a_peek": "order: 1\narguments: [peek]\n",
		"b_kill": "order: 2\narguments: [kill]\nexpected: {output: \"ok\\n\"}\n",
		"c_next": "order: 3\narguments: [next]\nexpected: {output: \"ok\\n\"}\n",
	}, "")
	if err := os.WriteFile(filepath.Join(prob, "c1", "g", "a_peek", "expected_output"), []byte("secret-42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := wasmeval(t, "run", prob, "--submission", sub, "--out", out)
	if r.code != 1 {
		t.Fatalf("exit %d: wasmeval did not finish the run\n%s", r.code, r.stderr)
	}
	recs := readJournal(t, out)
	if len(recs) != 3 {
		t.Fatalf("journal holds %d records: %+v", len(recs), recs)
	}
	for _, rec := range recs {
		if rec.ID == "forged" {
			t.Errorf("the submission wrote a record into the journal")
		}
	}
	peek := recs[0]
	if peek.ID != "a_peek" || peek.Passed || strings.Contains(peek.Result.Output, "secret-42") {
		t.Errorf("the submission read the expected output: %+v", peek.Result)
	}
	if strings.Contains(peek.Result.Stderr, "saw-engine") {
		t.Errorf("the engine's command line is visible to the submission")
	}
	if !recs[2].Passed {
		t.Errorf("the case after the kill attempt: %+v", recs[2])
	}
	data, err := os.ReadFile(filepath.Join(out, manifest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	var m manifest.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if m.Status != manifest.StatusComplete || m.Runtime.Isolation != "namespaces" {
		t.Errorf("manifest: status %q, isolation %q", m.Status, m.Runtime.Isolation)
	}
}
