package cases

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/verify"
	"github.com/wasmeval/wasmeval/engine/workspace/confine"
)

// Layouts people porting SlopCodeBench problems use, each mapped onto the
// same groups and cases.

// inputsOf is a case's input files, path → content.
func inputsOf(t *testing.T, c *Case) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range c.InputFiles {
		out[f.Path] = inputContent(t, f)
	}
	return out
}

// verdicts runs a case's checks (its defaults when it declares none)
// against an actual result: attribute → correct.
func verdicts(c *Case, actual verify.Actual) map[string]bool {
	checks := c.Checks
	if len(checks) == 0 {
		checks = verify.DefaultChecks(c.Expected)
	}
	out := map[string]bool{}
	for _, spec := range checks {
		r := verify.Run(spec, actual, c.Expected, verify.Env{})
		out[r.Attribute+":"+r.Check] = r.IsCorrect
	}
	return out
}

// errText is an error's text with the test directory taken out.
func errText(err error, dir string) string {
	if err == nil {
		return "<nil>"
	}
	return strings.ReplaceAll(err.Error(), dir+"/", "")
}

// loadErrors loads every case of a group and returns each case's error
// text by id (the group's own error under "").
func loadErrors(t *testing.T, loader string, g GroupInput) map[string]string {
	t.Helper()
	out := map[string]string{}
	l, _ := Builtin(loader)
	s, err := l.Open(t.Context(), g)
	if err != nil {
		out[""] = errText(err, g.ProblemDir)
		return out
	}
	for {
		_, err := s.Next(t.Context(), nil)
		if err == nil {
			continue
		}
		var ce *CaseError
		if !asCaseError(err, &ce) {
			break
		}
		out[ce.ID] = errText(ce.Err, g.ProblemDir)
	}
	return out
}

func mustTree(t *testing.T, dir string) *confine.Tree {
	t.Helper()
	tree, err := confine.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

func asCaseError(err error, ce **CaseError) bool {
	c, ok := err.(*CaseError)
	if ok {
		*ce = c
	}
	return ok
}

func TestGroupFileCaseBlocks(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"core.json": `{
  "spec_example": {
    "case": {
      "arguments": ["run", "--format", "json"],
      "input_files": [{"path": "data/in.csv", "content": "a,b\n1,2\n"}],
      "stdin": "hello\n"
    },
    "expected": {"status_code": 0, "output": {"rows": 1}, "stderr": ""}
  },
  "bad_flag": {
    "order": 0,
    "case": {"arguments": "run --nope", "input_files": {"x.txt": "x"}},
    "expected": {"status_code": 2, "stderr": "unknown flag\n"}
  }
}`,
	})
	cs, err := loadAll(t, LoaderAuto, groupIn(dir, "core"))
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(cs); got != "bad_flag,spec_example" {
		t.Fatalf("ids %s", got)
	}
	bad, spec := cs[0], cs[1]
	if !reflect.DeepEqual(spec.Arguments, []string{"run", "--format", "json"}) || spec.Stdin == nil || *spec.Stdin != "hello\n" {
		t.Errorf("spec_example: arguments %q, stdin %v", spec.Arguments, spec.Stdin)
	}
	if got := inputsOf(t, spec); !reflect.DeepEqual(got, map[string]string{"data/in.csv": "a,b\n1,2\n"}) {
		t.Errorf("spec_example inputs %v", got)
	}
	want := map[string]any{"status_code": json.Number("0"), "output": map[string]any{"rows": json.Number("1")}, "stderr": ""}
	if !reflect.DeepEqual(spec.Expected, want) {
		t.Errorf("spec_example expected %#v, want %#v", spec.Expected, want)
	}
	if !reflect.DeepEqual(bad.Arguments, []string{"run", "--nope"}) || bad.Stdin != nil ||
		!reflect.DeepEqual(inputsOf(t, bad), map[string]string{"x.txt": "x"}) ||
		!reflect.DeepEqual(bad.Expected, map[string]any{"status_code": json.Number("2"), "stderr": "unknown flag\n"}) {
		t.Errorf("bad_flag: %+v", bad)
	}
	v := verdicts(spec, verify.Actual{StatusCode: 0, Output: `{"rows": 1}`, Stderr: ""})
	if !reflect.DeepEqual(v, map[string]bool{"status_code:status": true, "output:json": true, "stderr:text": true}) {
		t.Errorf("verdicts %v", v)
	}
}

func TestGroupFileCaseBlockErrors(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"g.yaml": `
both_blocks:
  case: {arguments: [a]}
  input: {arguments: [b]}
twice:
  arguments: [top]
  case:
    arguments: [inner]
wrong_type:
  case: [a, b]
nested:
  case:
    input: {arguments: [a]}
bad_expected:
  case: {arguments: [a]}
  expected: {status_code: zero}
`,
	})
	got := loadErrors(t, LoaderGroupFile, groupIn(dir, "g"))
	want := map[string]string{
		"both_blocks":  "g.yaml:3: both_blocks.case: both an input block and a case block are given; keep one",
		"twice":        "g.yaml:8: twice.case.arguments: arguments is given both at the top level and under case; keep one",
		"wrong_type":   "g.yaml:10: wrong_type.case: expected a mapping, got a list",
		"nested":       "g.yaml:12: nested.case: the `case` block cannot hold another input or case block",
		"bad_expected": "g.yaml:16: bad_expected.expected.status_code: expected an integer",
	}
	for id, w := range want {
		if !strings.Contains(got[id], w) {
			t.Errorf("%s: %s\nwant it to contain %q", id, got[id], w)
		}
	}
}

func TestStdinAsJSON(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"g.yaml": `
object:
  case:
    stdin: {z: 1, a: [true, null, "x"], n: {k: 1.5}}
list:
  stdin: [{id: 1}, {id: 2}]
text:
  stdin: "plain\n"
number:
  stdin: 42
`,
		"d/one/case.json": `{"stdin": {"b": 2, "a": 1}}`,
	})
	cs, err := loadAll(t, LoaderAuto, groupIn(dir, "g"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range cs {
		got[c.ID] = *c.Stdin
	}
	want := map[string]string{
		"object": `{"z":1,"a":[true,null,"x"],"n":{"k":1.5}}` + "\n",
		"list":   `[{"id":1},{"id":2}]` + "\n",
		"text":   "plain\n",
		"number": "42",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("stdin:\n got %q\nwant %q", got, want)
	}
	cs, err = loadAll(t, LoaderAuto, groupIn(dir, "d"))
	if err != nil {
		t.Fatal(err)
	}
	if *cs[0].Stdin != `{"b":2,"a":1}`+"\n" {
		t.Errorf("case.json stdin %q: keys in the order written", *cs[0].Stdin)
	}
	// case_defaults may give a structure too.
	g := groupIn(dir, "d")
	g.CaseDefaults = map[string]any{"stdin": map[string]any{"mode": "x"}}
	dir2 := writeTree(t, map[string]string{"e/a/case.yaml": "arguments: [x]\n"})
	g.ProblemDir, g.CheckpointDir, g.CaseGroup = dir2, dir2, "e"
	cs, err = loadAll(t, LoaderAuto, g)
	if err != nil {
		t.Fatal(err)
	}
	if *cs[0].Stdin != `{"mode":"x"}`+"\n" {
		t.Errorf("stdin from case_defaults %q", *cs[0].Stdin)
	}
}

func TestStdinErrors(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"g.yaml": `
both:
  stdin: {a: 1}
  case: {stdin: x}
binary:
  stdin: {a: !!binary "AAEC"}
`,
		"a/one/ARGS":      "x",
		"a/one/STDIN":     "from file",
		"a/one/META.yaml": "stdin: {a: 1}\n",
	})
	got := loadErrors(t, LoaderGroupFile, groupIn(dir, "g"))
	if w := "g.yaml:4: both.case.stdin: stdin is given both at the top level and under case"; !strings.Contains(got["both"], w) {
		t.Errorf("both: %s\nwant %q", got["both"], w)
	}
	if _, bad := got["binary"]; bad {
		t.Errorf("binary scalars are text in JSON: %s", got["binary"])
	}
	got = loadErrors(t, LoaderArgsExpected, groupIn(dir, "a"))
	if w := "a/one/META.yaml: stdin: stdin is given both in STDIN and in META.yaml"; !strings.Contains(got["one"], w) {
		t.Errorf("STDIN and META stdin: %s\nwant %q", got["one"], w)
	}
}

func TestCaseFiles(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"core/basic.json": `{"arguments": "proj --rules rules.json", "input_files": {"rules.json": [{"id": "r1"}]},
  "expected": {"output": [{"rule_id": "r1"}]}}`,
		"core/first.yaml":   "order: 0\ncase:\n  arguments: [a]\n  stdin: {q: 1}\nexpected: {status_code: 3}\n",
		"core/other.yml":    "arguments: [b]\n",
		"core/README.md":    "notes, not a case\n",
		"core/.hidden.json": "{}",
	})
	cs, err := loadAll(t, LoaderAuto, groupIn(dir, "core"))
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(cs); got != "first,basic,other" {
		t.Fatalf("ids %s", got)
	}
	first, basic, other := cs[0], cs[1], cs[2]
	if !reflect.DeepEqual(first.Arguments, []string{"a"}) || *first.Stdin != `{"q":1}`+"\n" || first.Expected["status_code"] != json.Number("3") {
		t.Errorf("first: %+v", first)
	}
	if !reflect.DeepEqual(basic.Arguments, []string{"proj", "--rules", "rules.json"}) {
		t.Errorf("basic arguments %q", basic.Arguments)
	}
	if got := inputsOf(t, basic); !reflect.DeepEqual(got, map[string]string{"rules.json": `[{"id":"r1"}]` + "\n"}) {
		t.Errorf("basic inputs: only the declared ones, got %v", got)
	}
	if !reflect.DeepEqual(basic.Expected, map[string]any{"output": []any{map[string]any{"rule_id": "r1"}}}) {
		t.Errorf("basic expected %#v", basic.Expected)
	}
	if basic.Source != filepath.Join(dir, "core", "basic.json") || len(other.InputFiles) != 0 {
		t.Errorf("source %s, other inputs %v", basic.Source, other.InputFiles)
	}
	v := verdicts(basic, verify.Actual{Output: `[{"rule_id": "r1"}]`})
	if !v["output:json"] {
		t.Errorf("verdicts %v", v)
	}
	// The named loader reads the same layout.
	named, err := loadAll(t, LoaderCaseFiles, groupIn(dir, "core"))
	if err != nil || ids(named) != ids(cs) {
		t.Errorf("case_files loader: %s %v", ids(named), err)
	}
}

func TestCaseFileErrors(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"dup/a.json":          "{}",
		"dup/a.yaml":          "{}",
		"mixed/a.json":        "{}",
		"mixed/b/case.yaml":   "{}",
		"bad/list.json":       "[1, 2]",
		"bad/broken.json":     "{\"arguments\": [\n",
		"bad/typo.yaml":       "argumens: [x]\n",
		"bad/args.json":       "{\"arguments\": {\"a\": 1}}",
		"bad/stdin.yaml":      "stdin: [a, {b: !!binary \"%%%\"}]\n",
		"bad/empty.yaml":      "",
		"outside/passwd.yaml": "",
	})
	if err := os.Remove(filepath.Join(dir, "outside/passwd.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "outside/passwd.yaml")); err != nil {
		t.Fatal(err)
	}
	got := loadErrors(t, LoaderAuto, groupIn(dir, "dup"))
	if w := `dup/a.yaml: case "a" is given twice, by a.json and a.yaml; keep one`; !strings.Contains(got[""], w) {
		t.Errorf("duplicate: %s\nwant %q", got[""], w)
	}
	got = loadErrors(t, LoaderAuto, groupIn(dir, "mixed"))
	if w := "mixed holds both case directories (b) and case files (a.json); keep one layout or name a loader"; !strings.Contains(got[""], w) {
		t.Errorf("mixed: %s\nwant %q", got[""], w)
	}
	got = loadErrors(t, LoaderAuto, groupIn(dir, "bad"))
	want := map[string]string{
		"list":   "bad/list.json:1: expected a mapping of case keys, got a list",
		"broken": "bad/broken.json:1: malformed JSON: unexpected end of JSON input",
		"typo":   `bad/typo.yaml:1: argumens: unknown key "argumens"`,
		"args":   "bad/args.json:1: arguments: expected a string or a list of strings, got a mapping",
		"empty":  "bad/empty.yaml: file is empty",
	}
	for id, w := range want {
		if !strings.Contains(got[id], w) {
			t.Errorf("%s: %s\nwant it to contain %q", id, got[id], w)
		}
	}
	got = loadErrors(t, LoaderAuto, groupIn(dir, "outside"))
	if w := `outside/passwd.yaml: cannot read file: path "outside/passwd.yaml" leads outside the problem directory through a symlink`; !strings.Contains(got["passwd"], w) {
		t.Errorf("symlink out: %v\nwant %q", got, w)
	}
}

func TestNoCasesSaysWhatWasTried(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"notes/README.md":  "x",
		"notes/data.csv":   "x",
		"empty/.keep":      "",
		"dirs/empty/.keep": "",
	})
	for _, tc := range []struct {
		group, loader, want string
	}{
		{"notes", LoaderAuto, "config.yaml: groups.notes: group cp1/notes has no cases. Layouts tried: a group file notes.yaml (or .yml, .json): not found; " +
			"case directories notes/<case>/ (with case.yaml, or ARGS, EXPECTED or META.yaml): none; case files notes/<case>.yaml (or .yml, .json): none. " +
			"Found: notes holds only README.md, data.csv, none of them a case"},
		{"missing", LoaderAuto, "Found: missing does not exist"},
		{"empty", LoaderAuto, "Found: empty holds only .keep, none of them a case"},
		{"notes", LoaderCaseFiles, "group cp1/notes has no cases: loader case_files looks for case files notes/<case>.yaml (or .yml, .json); notes holds only README.md, data.csv"},
		{"empty", LoaderCaseDirs, "group cp1/empty has no cases: loader case_dirs looks for case directories empty/<case>/; empty holds only .keep"},
	} {
		_, err := loadAll(t, tc.loader, groupIn(dir, tc.group))
		if got := errText(err, dir); !strings.Contains(got, tc.want) {
			t.Errorf("%s (%s): %s\nwant it to contain %q", tc.group, tc.loader, got, tc.want)
		}
	}
	// With the configuration at hand, the group's line is named.
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("name: p\ncheckpoints:\n  cp1:\n    groups:\n      v1.2: {type: Core}\n      notes:\n        type: Core\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g := groupIn(dir, "notes")
	g.ConfigFile, g.ConfigPath = cfg, "checkpoints.cp1.groups.notes"
	_, err := loadAll(t, LoaderAuto, g)
	if got := errText(err, dir); !strings.HasPrefix(got, "config.yaml:6: checkpoints.cp1.groups.notes: group cp1/notes has no cases. Layouts tried:") {
		t.Errorf("no line: %s", got)
	}
	g.ConfigPath = "checkpoints.cp1.groups.v1.2"
	if line := (&groupCtx{in: g, files: mustTree(t, dir)}).configLine(); line != 5 {
		t.Errorf("a name with a dot: line %d, want 5", line)
	}
	// A case directory with neither ARGS, an EXPECTED file nor META.yaml
	// is not an ARGS/EXPECTED case: it names what it expected.
	got := loadErrors(t, LoaderArgsExpected, groupIn(dir, "dirs"))
	if w := "dirs/empty: not an ARGS/EXPECTED case: expected ARGS, EXPECTED (or EXPECTED.json, EXPECTED.jsonl) or META.yaml in it"; !strings.Contains(got["empty"], w) {
		t.Errorf("empty args dir: %v\nwant %q", got, w)
	}
}

func TestExpectedFilesAndMeta(t *testing.T) {
	dir := writeTree(t, map[string]string{
		// EXPECTED.json: one JSON document.
		"g/json_out/ARGS":          "run --in data.csv",
		"g/json_out/EXPECTED.json": `{"total": 3, "names": ["a", "b"]}`,
		"g/json_out/data.csv":      "n\n1\n2\n",
		// EXPECTED.jsonl: one record per line, compared line by line.
		"g/jsonl_out/ARGS":           "stream",
		"g/jsonl_out/EXPECTED.jsonl": "{\"i\": 1}\n\n{\"i\": 2}\n",
		// META.yaml: status code and a stderr pattern; no ARGS.
		"g/error/META.yaml": "expected:\n  status_code: 2\n  stderr: '^error: unknown metric \"\\w+\"'\ncompare: {stderr: regex}\narguments: [eval, bogus]\n",
		"g/error/EXPECTED":  "",
		// expected/: expected files, never inputs.
		"g/files/ARGS":                 "export out",
		"g/files/EXPECTED":             "done\n",
		"g/files/input.txt":            "in\n",
		"g/files/expected/out/a.json":  "{\"a\": 1}\n",
		"g/files/expected/out/b.txt":   "b\n",
		"c/dir_case/case.yaml":         "arguments: [x]\n",
		"c/dir_case/expected/r.txt":    "r\n",
		"c/dir_case/expected_output":   "ok\n",
		"c/dir_case/keep/expected.txt": "an input\n",
	})
	cs, err := loadAll(t, LoaderAuto, groupIn(dir, "g"))
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(cs); got != "error,files,json_out,jsonl_out" {
		t.Fatalf("ids %s", got)
	}
	byID := map[string]*Case{}
	for _, c := range cs {
		byID[c.ID] = c
	}
	j := byID["json_out"]
	if !reflect.DeepEqual(j.Arguments, []string{"run", "--in", "data.csv"}) ||
		!reflect.DeepEqual(j.Expected, map[string]any{"output": map[string]any{"total": json.Number("3"), "names": []any{"a", "b"}}}) ||
		!reflect.DeepEqual(inputsOf(t, j), map[string]string{"data.csv": "n\n1\n2\n"}) || len(j.Checks) != 0 {
		t.Errorf("json_out: %+v", j)
	}
	if v := verdicts(j, verify.Actual{Output: `{"names": ["a", "b"], "total": 3.0}`}); !v["output:json"] {
		t.Errorf("json_out verdicts %v", v)
	}
	l := byID["jsonl_out"]
	if !reflect.DeepEqual(l.Expected["output"], []any{map[string]any{"i": json.Number("1")}, map[string]any{"i": json.Number("2")}}) || len(inputsOf(t, l)) != 0 {
		t.Errorf("jsonl_out: %+v", l)
	}
	if v := verdicts(l, verify.Actual{Output: "{\"i\":1}\n{\"i\":2}\n"}); !reflect.DeepEqual(v, map[string]bool{"output:jsonl": true}) {
		t.Errorf("jsonl_out verdicts %v", v)
	}
	if v := verdicts(l, verify.Actual{Output: "{\"i\":1}\n{\"i\":3}\n"}); v["output:jsonl"] {
		t.Errorf("jsonl_out wrong record passes: %v", v)
	}
	e := byID["error"]
	if !reflect.DeepEqual(e.Arguments, []string{"eval", "bogus"}) || e.Expected["status_code"] != json.Number("2") || e.Expected["stderr"] != `^error: unknown metric "\w+"` {
		t.Errorf("error: %+v", e)
	}
	pass := verdicts(e, verify.Actual{StatusCode: 2, Stderr: "error: unknown metric \"bogus\" at line 1\n"})
	if !reflect.DeepEqual(pass, map[string]bool{"status_code:status": true, "stderr:regex": true, "output:text": true}) {
		t.Errorf("error verdicts %v", pass)
	}
	if fail := verdicts(e, verify.Actual{StatusCode: 1, Stderr: "Traceback\n"}); fail["stderr:regex"] || fail["status_code:status"] {
		t.Errorf("error wrong answer %v", fail)
	}
	f := byID["files"]
	if !reflect.DeepEqual(inputsOf(t, f), map[string]string{"input.txt": "in\n"}) {
		t.Errorf("files inputs: expected/ is not copied, got %v", inputsOf(t, f))
	}
	if !reflect.DeepEqual(f.Expected, map[string]any{"output": "done\n", "files": map[string]any{"out/a.json": "{\"a\": 1}\n", "out/b.txt": "b\n"}}) {
		t.Errorf("files expected %#v", f.Expected)
	}
	v := verdicts(f, verify.Actual{Output: "done\n", Files: map[string]any{"out/a.json": "{\"a\": 1}\n", "out/b.txt": "b\n"}})
	if !reflect.DeepEqual(v, map[string]bool{"output:text": true, "files-out/a.json:file": true, "files-out/b.txt:file": true}) {
		t.Errorf("files verdicts %v", v)
	}
	// expected/ in a case.yaml directory too; a file named expected.txt
	// in an input directory stays an input.
	cs, err = loadAll(t, LoaderAuto, groupIn(dir, "c"))
	if err != nil {
		t.Fatal(err)
	}
	d := cs[0]
	if !reflect.DeepEqual(inputsOf(t, d), map[string]string{"keep/expected.txt": "an input\n"}) ||
		!reflect.DeepEqual(d.Expected, map[string]any{"output": "ok\n", "files": map[string]any{"r.txt": "r\n"}}) {
		t.Errorf("dir_case: inputs %v expected %#v", inputsOf(t, d), d.Expected)
	}
}

func TestExpectedFilesAndMetaErrors(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"g/two/ARGS":                  "x",
		"g/two/EXPECTED":              "a",
		"g/two/EXPECTED.json":         "{}",
		"g/badjson/ARGS":              "x",
		"g/badjson/EXPECTED.json":     "{\"a\": ",
		"g/badjsonl/ARGS":             "x",
		"g/badjsonl/EXPECTED.jsonl":   "{\"a\": 1}\nnot json\n",
		"g/kind/META.yaml":            "expected: {stderr: x}\ncompare: {stderr: glob}\n",
		"g/nostderr/META.yaml":        "expected: {status_code: 1}\ncompare: {stderr: regex}\n",
		"g/status/META.yaml":          "expected: {status_code: 1}\ncompare: {status_code: regex}\n",
		"g/structure/META.yaml":       "expected: {output: {a: 1}}\ncompare: {output: regex}\n",
		"g/declared/META.yaml":        "expected: {stderr: x}\ncompare: {stderr: regex}\nchecks: [{kind: text, attribute: stderr}]\n",
		"g/metatype/META.yaml":        "expected: {status_code: one, stderr: [a]}\n",
		"g/bothdirs/ARGS":             "x",
		"g/bothdirs/expected/a":       "1",
		"g/bothdirs/expected_files/a": "1",
		"g/badmeta/META.yaml":         "compare: regex\n",
	})
	got := loadErrors(t, LoaderAuto, groupIn(dir, "g"))
	want := map[string]string{
		"two":       "g/two: both EXPECTED and EXPECTED.json are present; keep one expected output",
		"badjson":   "g/badjson/EXPECTED.json: malformed JSON",
		"badjsonl":  "g/badjsonl/EXPECTED.jsonl:2: malformed JSON record",
		"kind":      `g/kind/META.yaml:2: compare.stderr: unknown kind "glob" (expected one of text, json, jsonl, regex)`,
		"nostderr":  "g/nostderr/META.yaml:2: compare.stderr: the case has no expected stderr to compare",
		"status":    "g/status/META.yaml:2: compare.status_code: status_code cannot be compared another way",
		"structure": "g/structure/META.yaml:2: compare.output: a regex needs the expected output as text (the pattern), got a mapping",
		"declared":  "g/declared/META.yaml:2: compare: compare chooses how the default checks compare an attribute, but this case has declared checks",
		"metatype":  "g/metatype/META.yaml:1: expected.status_code: expected an integer",
		"bothdirs":  "both expected/ and expected_files/ hold expected files; keep one",
		"badmeta":   `g/badmeta/META.yaml:1: compare: expected a mapping, got "regex"`,
	}
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, id := range keys {
		if !strings.Contains(got[id], want[id]) {
			t.Errorf("%s: %s\nwant it to contain %q", id, got[id], want[id])
		}
	}
	// compare on a group that declares checks is refused too.
	g := groupIn(dir, "g")
	g.Checks = []problem.CheckSpec{{Kind: "status"}}
	dir2 := writeTree(t, map[string]string{"h/a/META.yaml": "expected: {stderr: x}\ncompare: {stderr: regex}\n"})
	g.ProblemDir, g.CheckpointDir, g.CaseGroup = dir2, dir2, "h"
	got = loadErrors(t, LoaderAuto, g)
	if !strings.Contains(got["a"], "but this case has declared checks") {
		t.Errorf("group checks and compare: %v", got)
	}
}

// compare in case_defaults applies to the cases that expect the attribute.
func TestCompareInCaseDefaults(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"g.yaml": "err: {expected: {status_code: 1, stderr: '^usage:'}}\nok: {expected: {output: 'x'}}\nown: {compare: {stderr: regex}}\n",
	})
	g := groupIn(dir, "g")
	g.CaseDefaults = map[string]any{"compare": map[string]any{"stderr": "regex"}}
	got := loadErrors(t, LoaderGroupFile, g)
	if w := "g.yaml:3: own.compare.stderr: the case has no expected stderr to compare"; len(got) != 1 || !strings.Contains(got["own"], w) {
		t.Errorf("errors %v\nwant only own's: %q", got, w)
	}
	dir = writeTree(t, map[string]string{
		"g.yaml": "err: {expected: {status_code: 1, stderr: '^usage:'}}\nok: {expected: {output: 'x'}}\n",
	})
	g.ProblemDir, g.CheckpointDir = dir, dir
	cs, err := loadAll(t, LoaderGroupFile, g)
	if err != nil {
		t.Fatal(err)
	}
	if v := verdicts(cs[0], verify.Actual{StatusCode: 1, Stderr: "usage: x [-h]\n"}); !reflect.DeepEqual(v, map[string]bool{"status_code:status": true, "stderr:regex": true}) {
		t.Errorf("err verdicts %v", v)
	}
	if len(cs[1].Checks) != 0 {
		t.Errorf("ok keeps its default checks: %+v", cs[1].Checks)
	}
}

// Files the new layouts read are read through the problem directory: one
// that leads out of it is named.
func TestNewLayoutFilesLeadingOut(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"g/exp/ARGS":   "x",
		"g/meta/ARGS":  "x",
		"g/files/ARGS": "x",
		"h/a.yaml":     "{}",
	})
	for link, target := range map[string]string{
		"g/exp/EXPECTED.jsonl": "/etc/passwd",
		"g/meta/META.yaml":     "/etc/passwd",
		"g/files/expected":     "/etc",
		"h/b.json":             "/etc/passwd",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	got := loadErrors(t, LoaderAuto, groupIn(dir, "g"))
	for id, w := range map[string]string{
		"exp":   `g/exp/EXPECTED.jsonl: cannot read: path "g/exp/EXPECTED.jsonl" leads outside the problem directory through a symlink`,
		"meta":  `g/meta/META.yaml: cannot read: path "g/meta/META.yaml" leads outside the problem directory through a symlink`,
		"files": `g/files/expected: cannot read: path "g/files/expected" leads outside the problem directory through a symlink`,
	} {
		if !strings.Contains(got[id], w) {
			t.Errorf("%s: %s\nwant it to contain %q", id, got[id], w)
		}
	}
	got = loadErrors(t, LoaderAuto, groupIn(dir, "h"))
	if w := `h/b.json: cannot read file: path "h/b.json" leads outside the problem directory through a symlink`; !strings.Contains(got["b"], w) {
		t.Errorf("case file: %v\nwant %q", got, w)
	}
}
