package run

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
)

// layoutsProblem is a problem written in the case layouts of ported
// SlopCodeBench problems (docs/cases.md): a JSON group file with case:
// blocks and stdin given as JSON, case files in a group directory, and
// ARGS/EXPECTED directories with EXPECTED.json, EXPECTED.jsonl, a
// META.yaml holding a status code and a stderr pattern, and expected/.
var layoutsProblem = map[string]string{
	"config.yaml": "name: layouts\ncommand: \"sh main.sh\"\ncheckpoints:\n  c1:\n    groups:\n" +
		"      core: {type: Core}\n      search: {type: Functionality}\n      metrics: {type: Functionality}\n",
	"c1/core.json": `{
  "echo_object": {
    "case": {"arguments": ["echo"], "stdin": {"b": 2, "a": [1, "x"]}},
    "expected": {"status_code": 0, "output": {"a": [1, "x"], "b": 2}}
  },
  "read_input": {
    "case": {"arguments": "cat data/in.txt", "input_files": [{"path": "data/in.txt", "content": "hello\n"}]},
    "expected": {"output": "hello\n", "stderr": ""}
  }
}`,
	"c1/search/count.json":   `{"arguments": "count rules.json", "input_files": {"rules.json": [{"id": 1}, {"id": 2}]}, "expected": {"output": "2\n"}}`,
	"c1/search/nothing.yaml": "case: {arguments: [count, none.json]}\nexpected: {status_code: 1}\n",
	"c1/search/README.md":    "not a case\n",

	"c1/metrics/total/ARGS":               "total data.csv",
	"c1/metrics/total/data.csv":           "3\n4\n",
	"c1/metrics/total/EXPECTED.json":      `{"total": 7}`,
	"c1/metrics/rows/ARGS":                "rows data.csv",
	"c1/metrics/rows/data.csv":            "3\n4\n",
	"c1/metrics/rows/EXPECTED.jsonl":      "{\"v\": 3}\n{\"v\": 4}\n",
	"c1/metrics/bad/META.yaml":            "arguments: [bogus]\nexpected:\n  status_code: 2\n  stderr: '^error: unknown command \"\\w+\"'\ncompare: {stderr: regex}\n",
	"c1/metrics/export/ARGS":              "export",
	"c1/metrics/export/META.yaml":         "tracked_files: [out.json]\n",
	"c1/metrics/export/EXPECTED":          "",
	"c1/metrics/export/expected/out.json": "{\"done\": true}\n",
}

// layoutsSubmission answers every case of layoutsProblem right; it also
// fails if expected/ was copied into its workspace.
const layoutsSubmission = `set -e
test ! -e expected || { echo "expected/ was copied" >&2; exit 9; }
case "$1" in
echo) cat ;;
cat) cat "$2" ;;
count) test -f "$2" || exit 1; grep -o '"id"' "$2" | wc -l | tr -d ' ' ;;
total) awk '{s+=$1} END {printf "{\"total\": %d}\n", s}' "$2" ;;
rows) awk '{printf "{\"v\":%d}\n", $1}' "$2" ;;
export) printf '{"done": true}\n' > out.json ;;
*) echo "error: unknown command \"$1\" (try total)" >&2; exit 2 ;;
esac
`

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runLayouts runs layoutsProblem against a submission and returns each
// case's record by key.
func runLayouts(t *testing.T, script string) (*Outcome, map[string]*result.CaseRecord) {
	t.Helper()
	return runFiles(t, layoutsProblem, script)
}

// runFiles writes a problem's files and a submission of one script
// (main.sh), validates the problem, runs it on the local runtime and
// returns the outcome and each case's record as the journal reads it
// back, by checkpoint/group/id.
func runFiles(t *testing.T, files map[string]string, script string) (*Outcome, map[string]*result.CaseRecord) {
	t.Helper()
	prob := writeFiles(t, files)
	sub := writeFiles(t, map[string]string{"main.sh": script})
	p, err := LoadProblem(prob)
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(context.Background(), p, BuiltinLoader, nil); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	res, err := Run(context.Background(), Options{Problem: p, Submission: sub, OutDir: out,
		Runtime: local.New(local.Options{BaseDir: t.TempDir()}), Loader: BuiltinLoader})
	if err != nil {
		t.Fatal(err)
	}
	recs := map[string]*result.CaseRecord{}
	if err := journal.Read(filepath.Join(out, journal.FileName), func(r *result.CaseRecord) error {
		recs[r.Checkpoint+"/"+r.Group+"/"+r.ID] = r
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return res, recs
}

// byID is records keyed by case id alone (problems whose ids are unique).
func byID(recs map[string]*result.CaseRecord) map[string]*result.CaseRecord {
	out := make(map[string]*result.CaseRecord, len(recs))
	for _, r := range recs {
		out[r.ID] = r
	}
	return out
}

func TestRunPortedLayouts(t *testing.T) {
	res, recs := runLayouts(t, layoutsSubmission)
	var keys []string
	for k, r := range recs {
		keys = append(keys, k)
		if !r.Passed {
			t.Errorf("%s failed: %+v", k, r.Attributes)
		}
	}
	sort.Strings(keys)
	want := "c1/core/echo_object,c1/core/read_input,c1/metrics/bad,c1/metrics/export,c1/metrics/rows,c1/metrics/total,c1/search/count,c1/search/nothing"
	if got := strings.Join(keys, ","); got != want {
		t.Errorf("cases %s\nwant %s", got, want)
	}
	if !res.Passed {
		t.Error("the run did not pass")
	}
	checks := map[string]string{}
	for _, a := range recs["c1/metrics/bad"].Attributes {
		checks[a.Attribute] = a.Check
	}
	for _, a := range recs["c1/metrics/rows"].Attributes {
		checks["rows:"+a.Attribute] = a.Check
	}
	if checks["stderr"] != "regex" || checks["status_code"] != "status" || checks["rows:output"] != "jsonl" {
		t.Errorf("checks %v", checks)
	}

	// A wrong answer fails where it is wrong: the stderr pattern, the
	// records, the expected file.
	wrong := strings.NewReplacer(`error: unknown command`, `oops`, `%d}\n", $1}`, `%d}\n", $1+1}`, `{"done": true}`, `{"done": false}`).Replace(layoutsSubmission)
	_, recs = runLayouts(t, wrong)
	for key, attr := range map[string]string{"c1/metrics/bad": "stderr", "c1/metrics/rows": "output", "c1/metrics/export": "files-out.json"} {
		r := recs[key]
		if r == nil || r.Passed {
			t.Errorf("%s passed the wrong answer", key)
			continue
		}
		for _, a := range r.Attributes {
			if a.Attribute != attr && !a.IsCorrect {
				t.Errorf("%s: %s is wrong too: %+v", key, a.Attribute, a)
			}
			if a.Attribute == attr && a.IsCorrect {
				t.Errorf("%s: %s is right", key, attr)
			}
		}
	}
}

// An expected file given as a structure is the JSON document the file
// must hold, compared by value: an indented file matches, a wrong value
// fails at its path. A YAML file's expected content must be its text.
func TestStructuredExpectedFileIsComparedAsJSON(t *testing.T) {
	files := map[string]string{
		"config.yaml": "name: files\ncommand: \"sh main.sh\"\ncheckpoints:\n  c1:\n    groups:\n      core: {type: Core}\n",
		"c1/core.yaml": "right:\n  case: {arguments: [right], tracked_files: [out.json]}\n  expected: {files: {out.json: {total: 3, items: [a, b]}}}\n" +
			"wrong:\n  case: {arguments: [wrong], tracked_files: [out.json]}\n  expected: {files: {out.json: {total: 3, items: [a, b]}}}\n",
	}
	script := `case "$1" in
right) printf '{\n  "items": [\n    "a",\n    "b"\n  ],\n  "total": 3\n}\n' > out.json ;;
wrong) printf '{\n  "items": ["a", "b"],\n  "total": 4\n}\n' > out.json ;;
esac
`
	_, recs := runFiles(t, files, script)
	if r := recs["c1/core/right"]; r == nil || !r.Passed {
		t.Errorf("right: %+v, want passed: the indented file holds the expected document", r)
	}
	r := recs["c1/core/wrong"]
	if r == nil || r.Passed || len(r.Attributes) != 1 || r.Attributes[0].Diff == nil ||
		!strings.Contains(r.Attributes[0].Diff.Summary, "file out.json: $.total: expected 3, got 4") {
		t.Fatalf("wrong: %+v, want failed at $.total", r)
	}

	files["c1/core.yaml"] = "cfg:\n  case: {arguments: [right], tracked_files: [out.yaml]}\n  expected: {files: {out.yaml: {total: 3}}}\n"
	p, err := LoadProblem(writeFiles(t, files))
	if err == nil {
		err = Validate(context.Background(), p, BuiltinLoader, nil)
	}
	if want := "core.yaml:3: cfg.expected.files.out.yaml: expected the YAML file's text (a block scalar, |), got a mapping"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("validate: %v, want %q", err, want)
	}
}
