package main

import (
	"os"
	"path/filepath"
	"testing"
)

// Binary output is compared as bytes: output identical to a binary
// expected file passes, and output that differs only in bytes that are not
// UTF-8 (which both read as U+FFFD once written as JSON) fails.
func TestBinaryExpectedOutputIsComparedByteForByte(t *testing.T) {
	script := `case "$1" in
same) printf 'A\377\376\000B\303\050\n' ;;
other) printf 'A\376\377\000B\303\050\n' ;;
esac
`
	prob, sub := shProblem(t, script, map[string]string{
		"same":  "arguments: [same]\n",
		"other": "arguments: [other]\n",
	}, "")
	for _, c := range []string{"same", "other"} {
		if err := os.WriteFile(filepath.Join(prob, "c1", "g", c, "expected_output"), []byte("A\xff\xfe\x00B\xc3\x28\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	r := wasmeval(t, "run", prob, "--submission", sub, "--out", out)
	if r.code != 1 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	got := map[string]bool{}
	for _, rec := range readJournal(t, out) {
		got[rec.ID] = rec.Passed
	}
	if !got["same"] || got["other"] || len(got) != 2 {
		t.Errorf("passed: %v, want same=true other=false", got)
	}
}
