// Package stdlib_test holds the evaluation standard library (lib.rs and
// its modules, a Rust evaluator plugin) to its contract (README.md): the
// plugin is built from source with the Rust SDK, loaded by the host as the
// engine loads any plugin, and every function is called through evaluate
// against the fixtures in testdata/, which is the task directory
// read_asset reads from.
package stdlib_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/plugincall"
	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

var (
	buildOnce sync.Once
	buildDir  string
	wasmFile  string
	buildErr  error

	loadOnce sync.Once
	shared   *host.Host
	plugin   *host.Plugin
	loadErr  error
)

// TestMain lets this test binary serve as the plugin worker (plugins run
// in worker processes, as in the CLI).
func TestMain(m *testing.M) {
	host.ServeWorker()
	code := m.Run()
	if shared != nil {
		shared.Close()
	}
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// stdlib builds the plugin from source once per test binary and loads it.
// Without a Rust toolchain the tests skip, except under CI, where they
// fail: CI installs one.
func stdlib(t *testing.T) *host.Plugin {
	t.Helper()
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "wasmeval-stdlib-"); buildErr != nil {
			return
		}
		root, err := pluginbuild.ModuleRoot()
		if err != nil {
			buildErr = err
			return
		}
		wasmFile = filepath.Join(buildDir, "stdlib.wasm")
		buildErr = pluginbuild.BuildRust(filepath.Join(root, "plugins", "stdlib", "lib.rs"), wasmFile)
	})
	if buildErr != nil {
		if errors.Is(buildErr, pluginbuild.ErrToolchain) && os.Getenv("CI") != "true" {
			t.Skipf("stdlib plugin not built: %v", buildErr)
		}
		t.Fatalf("stdlib plugin: %v", buildErr)
	}
	loadOnce.Do(func() {
		shared, loadErr = host.New(host.Options{CacheDir: filepath.Join(buildDir, "cache"), Isolation: host.Process, Timeout: time.Minute})
		if loadErr == nil {
			plugin, loadErr = shared.Load(context.Background(), wasmFile, "")
		}
	})
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return plugin
}

// call evaluates function with the arguments (JSON) and the result files
// the agent left: files maps a sandbox path to a fixture under testdata/
// whose text the engine would pass in actual.files.
func call(t *testing.T, function, arguments string, files map[string]string) abi.EvaluateOutput {
	t.Helper()
	contents := map[string]string{}
	for path, fixture := range files {
		data, err := os.ReadFile(filepath.Join("testdata", filepath.FromSlash(fixture)))
		if err != nil {
			t.Fatal(err)
		}
		contents[path] = string(data)
	}
	return callWith(t, function, arguments, contents)
}

// callWith is call with the result files' contents given.
func callWith(t *testing.T, function, arguments string, contents map[string]string) abi.EvaluateOutput {
	t.Helper()
	p := stdlib(t)
	var args map[string]any
	if err := json.Unmarshal([]byte(arguments), &args); err != nil {
		t.Fatalf("arguments %s: %v", arguments, err)
	}
	actual := &abi.Actual{Files: map[string]any{}}
	for path, text := range contents {
		actual.Files[path] = text
	}
	in := abi.EvaluateInput{ABIVersion: 1, Config: map[string]any{}, Function: function, Arguments: args,
		Case: &abi.Case{ID: "task"}, Actual: actual}
	out, err := p.Evaluate(context.Background(), in, host.CallOptions{Assets: plugincall.ProblemAssets("testdata")})
	if err != nil {
		t.Fatalf("%s: %v", function, err)
	}
	return out
}

// want is what one call must give: its score, or an error containing
// Error; details whose reason contains Reason and whose fields (dotted
// paths) have the values in Details.
type want struct {
	Score   float64
	Error   string
	Reason  string
	Details map[string]any
}

func check(t *testing.T, out abi.EvaluateOutput, w want) {
	t.Helper()
	if w.Error != "" {
		if !strings.Contains(out.Error, w.Error) {
			t.Fatalf("error %q, want it to contain %q (score %v, details %v)", out.Error, w.Error, out.Score, out.Details)
		}
		return
	}
	if out.Error != "" {
		t.Fatalf("unexpected error: %s", out.Error)
	}
	if out.Score != w.Score {
		t.Errorf("score %v, want %v (details %v)", out.Score, w.Score, out.Details)
	}
	details, _ := out.Details.(map[string]any)
	reason, _ := details["reason"].(string)
	if w.Score == 1 && reason != "" {
		t.Errorf("a match with a reason: %q", reason)
	}
	if w.Score < 1 && reason == "" {
		t.Errorf("a score of %v without a reason (details %v)", out.Score, out.Details)
	}
	if !strings.Contains(reason, w.Reason) {
		t.Errorf("reason %q, want it to contain %q", reason, w.Reason)
	}
	keys := make([]string, 0, len(w.Details))
	for k := range w.Details {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var v any = details
		for _, part := range strings.Split(k, ".") {
			m, _ := v.(map[string]any)
			v = m[part]
		}
		if fmt.Sprint(v) != fmt.Sprint(w.Details[k]) {
			t.Errorf("details.%s = %v, want %v", k, v, w.Details[k])
		}
	}
}

type testCase struct {
	name  string
	fn    string
	args  string
	files map[string]string
	want  want
}

func run(t *testing.T, cases []testCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			check(t, call(t, c.fn, c.args, c.files), c.want)
		})
	}
}

// pair is the arguments of a two-file function: the result a vm_file at
// out, the expected a task_file at gold, and the options (JSON, may be
// empty).
func pair(out, gold, options string) string {
	if options == "" {
		options = "{}"
	}
	return fmt.Sprintf(`{"result": {"type": "vm_file", "path": %q}, "expected": {"type": "task_file", "path": %q}, "options": %s}`, out, gold, options)
}

func TestDescribe(t *testing.T) {
	d := stdlib(t).Describe()
	wantFns := []string{"compare_csv", "compare_text_file", "compare_script_logs", "check_include_exclude",
		"compare_notebook_cells", "compare_notebook_outputs", "compare_ipynb_files", "is_jupyter_cell_executed",
		"are_jupyter_outputs_cleared", "evaluate_multiple_notebooks"}
	if fmt.Sprint(d.Functions) != fmt.Sprint(wantFns) {
		t.Errorf("functions %v, want %v", d.Functions, wantFns)
	}
	if fmt.Sprint(d.Kinds) != "[evaluator]" {
		t.Errorf("kinds %v", d.Kinds)
	}
}

func TestContract(t *testing.T) {
	gold := "csv/gold.csv"
	run(t, []testCase{
		{"unknown function", "compare_pdf", pair("out.csv", gold, ""), nil,
			want{Error: `unknown function "compare_pdf" (this library has compare_csv, compare_text_file`}},
		{"missing result file scores 0", "compare_csv", pair("out.csv", gold, ""), nil,
			want{Score: 0, Reason: `the result vm_file "out.csv" does not exist`, Details: map[string]any{"result": `vm_file "out.csv"`}}},
		{"missing expected file is an error", "compare_csv", pair("out.csv", "csv/nope.csv", ""), map[string]string{"out.csv": gold},
			want{Error: `compare_csv: the expected task_file "csv/nope.csv" could not be read`}},
		{"a path out of the task directory is refused", "compare_csv", pair("out.csv", "../lib.rs", ""), map[string]string{"out.csv": gold},
			want{Error: `the expected task_file "../lib.rs" could not be read (it does not exist, or is outside the task's directory)`}},
		{"an absolute path is refused", "compare_csv", pair("out.csv", "/etc/passwd", ""), map[string]string{"out.csv": gold},
			want{Error: `the expected task_file "/etc/passwd" could not be read`}},
		{"missing expected vm_file is an error", "compare_text_file",
			`{"result": {"type": "vm_file", "path": "a.txt"}, "expected": {"type": "vm_file", "path": "b.txt"}}`,
			map[string]string{"a.txt": "text/gold.txt"}, want{Error: `the expected vm_file "b.txt" does not exist`}},
		{"command_output is read as a vm_file", "compare_text_file",
			`{"result": {"type": "command_output", "path": "cmd-0.out"}, "expected": {"type": "task_file", "path": "text/gold.txt"}}`,
			map[string]string{"cmd-0.out": "text/result_same.txt"}, want{Score: 1, Details: map[string]any{"result": `command_output "cmd-0.out"`}}},
		{"unknown getter type", "compare_csv", `{"result": {"type": "cloud_file", "path": "x.csv"}, "expected": {"type": "task_file", "path": "csv/gold.csv"}}`,
			nil, want{Error: `the result getter's type "cloud_file" is unknown (one of vm_file, command_output, task_file, rule)`}},
		{"getter without a path", "compare_csv", `{"result": {"type": "vm_file"}, "expected": {"type": "task_file", "path": "csv/gold.csv"}}`,
			nil, want{Error: `the result vm_file getter has no path`}},
		{"unknown option", "compare_csv", pair("out.csv", gold, `{"sorted": true}`), map[string]string{"out.csv": gold},
			want{Error: `compare_csv: unknown option "sorted" (this function takes the options ignore_case, strip, ordered, tolerance)`}},
		{"option of the wrong type", "compare_csv", pair("out.csv", gold, `{"ordered": "no"}`), map[string]string{"out.csv": gold},
			want{Error: `option ordered is a string, expected true or false`}},
		{"negative tolerance", "compare_csv", pair("out.csv", gold, `{"tolerance": -1}`), map[string]string{"out.csv": gold},
			want{Error: `option tolerance is -1, expected a number of at least 0`}},
		{"unknown argument", "compare_csv", `{"result": {"type": "vm_file", "path": "out.csv"}, "expected": {"type": "task_file", "path": "csv/gold.csv"}, "conj": "and"}`,
			nil, want{Error: `unknown argument "conj"`}},
		{"two results for a one-file function", "compare_csv",
			`{"result": [{"type": "vm_file", "path": "a"}, {"type": "vm_file", "path": "b"}], "expected": {"type": "task_file", "path": "csv/gold.csv"}}`,
			nil, want{Error: `arguments.result lists 2 getters: this function takes one`}},
		{"no expected getter", "compare_csv", `{"result": {"type": "vm_file", "path": "out.csv"}}`, nil,
			want{Error: `arguments.expected is missing`}},
	})
}

func TestCompareCSV(t *testing.T) {
	gold := "csv/gold.csv"
	out := func(fixture string) map[string]string { return map[string]string{"out.csv": "csv/" + fixture} }
	run(t, []testCase{
		{"same rows, other line ends", "compare_csv", pair("out.csv", gold, ""), out("result_same.csv"),
			want{Score: 1, Details: map[string]any{"rows_result": 4, "rows_expected": 4, "expected": `task_file "csv/gold.csv"`}}},
		{"one cell differs", "compare_csv", pair("out.csv", gold, ""), out("result_diff.csv"),
			want{Score: 0, Reason: `row 3, column 2: expected "5", got "6"`, Details: map[string]any{
				"first_difference.row": 3, "first_difference.column": 2, "first_difference.expected": "5", "first_difference.actual": "6",
				"first_difference.expected_row": "[pear 5 0.75]", "first_difference.actual_row": "[pear 6 0.75]"}}},
		{"case and spaces differ", "compare_csv", pair("out.csv", gold, ""), out("result_case.csv"),
			want{Score: 0, Reason: `row 1, column 1: expected "name", got "Name"`}},
		{"ignore_case alone leaves the spaces", "compare_csv", pair("out.csv", gold, `{"ignore_case": true}`), out("result_case.csv"),
			want{Score: 0, Reason: `row 1, column 2: expected "qty", got " qty "`}},
		{"ignore_case and strip", "compare_csv", pair("out.csv", gold, `{"ignore_case": true, "strip": true}`), out("result_case.csv"),
			want{Score: 1}},
		{"rows in another order", "compare_csv", pair("out.csv", gold, ""), out("result_shuffled.csv"),
			want{Score: 0, Reason: `row 1, column 1: expected "name", got "fig, dried"`}},
		{"rows in another order, unordered", "compare_csv", pair("out.csv", gold, `{"ordered": false}`), out("result_shuffled.csv"),
			want{Score: 1, Details: map[string]any{"ordered": false}}},
		{"unordered still finds a changed row", "compare_csv", pair("out.csv", gold, `{"ordered": false}`), out("result_diff.csv"),
			want{Score: 0, Reason: `sorted row 4, column 2: expected "5", got "6"`, Details: map[string]any{"first_difference.expected_row": "[pear 5 0.75]"}}},
		{"numbers differ as text", "compare_csv", pair("out.csv", gold, ""), out("result_rounded.csv"),
			want{Score: 0, Reason: `row 2, column 3: expected "1.50", got "1.5001"`}},
		{"numbers within the tolerance", "compare_csv", pair("out.csv", gold, `{"tolerance": 0.001}`), out("result_rounded.csv"),
			want{Score: 1}},
		{"numbers beyond the tolerance", "compare_csv", pair("out.csv", gold, `{"tolerance": 0.00001}`), out("result_rounded.csv"),
			want{Score: 0, Reason: `row 2, column 3: expected "1.50", got "1.5001"`}},
		{"an extra row", "compare_csv", pair("out.csv", gold, ""), out("result_extra.csv"),
			want{Score: 0, Reason: `the result has 5 rows, only 4 expected`, Details: map[string]any{
				"first_difference.row": 5, "first_difference.expected_row": "<nil>", "first_difference.actual_row": "[plum 1 0.20]"}}},
		{"a missing row", "compare_csv", pair("out.csv", "csv/result_extra.csv", ""), map[string]string{"out.csv": gold},
			want{Score: 0, Reason: `the result has 4 rows, 5 expected`, Details: map[string]any{"first_difference.row": 5}}},
		{"an empty result", "compare_csv", pair("out.csv", gold, ""), map[string]string{"out.csv": "text/empty.txt"},
			want{Score: 0, Reason: `the result has 0 rows, 4 expected`}},
	})
}

func TestCompareTextFile(t *testing.T) {
	gold := "text/gold.txt"
	out := func(fixture string) map[string]string { return map[string]string{"out.txt": "text/" + fixture} }
	run(t, []testCase{
		{"same text, other line ends, no final line break", "compare_text_file", pair("out.txt", gold, ""), out("result_same.txt"),
			want{Score: 1, Details: map[string]any{"lines_result": 4, "lines_expected": 4}}},
		{"a line differs", "compare_text_file", pair("out.txt", gold, ""), out("result_diff.txt"),
			want{Score: 0, Reason: `line 4: expected "the lazy dog.", got "the lazy cat."`, Details: map[string]any{
				"first_difference.expected_line": 4, "first_difference.actual_line": 4, "first_difference.expected": "the lazy dog."}}},
		{"spacing differs", "compare_text_file", pair("out.txt", gold, ""), out("result_spacing.txt"),
			want{Score: 0, Reason: `line 1: expected "The quick brown fox", got "The  quick brown"`}},
		{"spacing differs, ignore_blanks", "compare_text_file", pair("out.txt", gold, `{"ignore_blanks": true}`), out("result_spacing.txt"),
			want{Score: 1}},
		{"a word differs, ignore_blanks", "compare_text_file", pair("out.txt", gold, `{"ignore_blanks": true}`), out("result_diff.txt"),
			want{Score: 0, Reason: `word 9: expected "dog.", got "cat."`, Details: map[string]any{"first_difference.word": 9}}},
		{"case differs", "compare_text_file", pair("out.txt", gold, ""), out("result_upper.txt"),
			want{Score: 0, Reason: `line 1: expected "The quick brown fox", got "THE QUICK BROWN FOX"`}},
		{"case differs, ignore_case", "compare_text_file", pair("out.txt", gold, `{"ignore_case": true}`), out("result_upper.txt"),
			want{Score: 1}},
		{"the result ends early", "compare_text_file", pair("out.txt", gold, ""), map[string]string{"out.txt": "text/short.txt"},
			want{Score: 0, Reason: `the result ends before expected line 3 ("")`, Details: map[string]any{"first_difference.actual_line": "<nil>"}}},
		{"an expected text given as a rule", "compare_text_file",
			`{"result": {"type": "vm_file", "path": "out.txt"}, "expected": {"type": "rule", "rules": {"expected": "The quick brown fox\njumps over\n\nthe lazy dog.\n"}}}`,
			out("result_same.txt"), want{Score: 1, Details: map[string]any{"expected": "rule"}}},
		{"a rule without text", "compare_text_file",
			`{"result": {"type": "vm_file", "path": "out.txt"}, "expected": {"type": "rule", "rules": {"include": ["x"]}}}`,
			out("result_same.txt"), want{Error: `the expected rule gives no text`}},
		{"missing result file", "compare_text_file", pair("out.txt", gold, ""), nil,
			want{Score: 0, Reason: `the result vm_file "out.txt" does not exist`}},
		{"missing expected file", "compare_text_file", pair("out.txt", "text/nope.txt", ""), out("result_same.txt"),
			want{Error: `the expected task_file "text/nope.txt" could not be read`}},
	})
}

func TestCompareScriptLogs(t *testing.T) {
	gold := "logs/gold.log"
	out := func(fixture string) map[string]string { return map[string]string{"run.log": "logs/" + fixture} }
	all := `{"ignore_timestamps": true, "ignore_patterns": ["^DEBUG -", "pid=\\d+$"]}`
	run(t, []testCase{
		{"timestamps differ", "compare_script_logs", pair("run.log", gold, ""), out("result.log"),
			want{Score: 0, Reason: `line 1: expected "2024-03-01 10:00:00,120 - INFO - starting job", got "2025-11-20 18:42:10,999 - INFO - starting job"`}},
		{"timestamps ignored, a pid differs", "compare_script_logs", pair("run.log", gold, `{"ignore_timestamps": true}`), out("result.log"),
			want{Score: 0, Reason: `line 2: expected "DEBUG - pid=4121", got "DEBUG - pid=77"`}},
		{"timestamps and the pid line ignored", "compare_script_logs", pair("run.log", gold, all), out("result.log"),
			want{Score: 1, Details: map[string]any{"lines_result": 3, "lines_expected": 3}}},
		{"a count differs", "compare_script_logs", pair("run.log", gold, all), out("result_diff.log"),
			want{Score: 0, Reason: `line 3: expected "loaded 3 records", got "loaded 2 records"`, Details: map[string]any{
				"first_difference.expected_line": 3, "first_difference.actual_line": 3}}},
		{"blank lines kept", "compare_script_logs",
			pair("run.log", gold, `{"ignore_timestamps": true, "ignore_patterns": ["pid="], "ignore_blank_lines": false}`), out("result.log"),
			want{Score: 0, Reason: `line 4: expected "", got "done: 3 ok, 0 failed"`}},
		{"lines told apart by their numbers", "compare_script_logs", pair("run.log", gold, all), out("result_done.log"),
			want{Score: 0, Reason: `expected line 5 is "done: 3 ok, 0 failed", result line 4 is "done: 3 ok, 1 failed"`, Details: map[string]any{
				"first_difference.expected_line": 5, "first_difference.actual_line": 4}}},
		{"case folded", "compare_script_logs", pair("run.log", gold, `{"ignore_timestamps": true, "ignore_patterns": ["pid="], "ignore_case": true}`),
			map[string]string{"run.log": "logs/result_upper.log"}, want{Score: 1}},
		{"a bad pattern", "compare_script_logs", pair("run.log", gold, `{"ignore_patterns": ["(unclosed"]}`), out("result.log"),
			want{Error: `option ignore_patterns[0] "(unclosed": a ( without its ) at character 10`}},
		{"an unsupported pattern", "compare_script_logs", pair("run.log", gold, `{"ignore_patterns": ["(?i)x"]}`), out("result.log"),
			want{Error: `only (?: ) groups are supported`}},
		{"a pattern that would expand too far", "compare_script_logs", pair("run.log", gold, `{"ignore_patterns": ["(a{1000}){1000}"]}`), out("result.log"),
			want{Error: `the pattern is too large`}},
		{"missing result file", "compare_script_logs", pair("run.log", gold, all), nil,
			want{Score: 0, Reason: `does not exist`}},
	})
}

func TestCheckIncludeExclude(t *testing.T) {
	rule := func(r string) string {
		return `{"result": {"type": "command_output", "path": "cmd.out"}, "expected": {"type": "rule", "rules": ` + r + `}}`
	}
	out := map[string]string{"cmd.out": "text/result_diff.txt"}
	run(t, []testCase{
		{"all there", "check_include_exclude", rule(`{"include": ["quick", "lazy cat"], "exclude": ["dog"]}`), out,
			want{Score: 1, Details: map[string]any{"missing": "[]", "present": "[]"}}},
		{"an excluded string is there", "check_include_exclude", rule(`{"include": ["quick"], "exclude": ["dog", "cat"]}`), out,
			want{Score: 0, Reason: `1 of the excluded strings are present, the first "cat"`, Details: map[string]any{"present": "[cat]"}}},
		{"an included string is missing", "check_include_exclude", rule(`{"include": ["Quick", "slow"]}`), out,
			want{Score: 0, Reason: `2 of the included strings are missing, the first "Quick"`}},
		{"ignore_case", "check_include_exclude",
			`{"result": {"type": "vm_file", "path": "cmd.out"}, "expected": {"type": "rule", "rules": {"include": ["QUICK"]}}, "options": {"ignore_case": true}}`,
			out, want{Score: 1}},
		{"not a rule", "check_include_exclude", pair("cmd.out", "text/gold.txt", ""), out,
			want{Error: `the expected getter must be a rule`}},
		{"an unknown rule key", "check_include_exclude", rule(`{"contains": ["x"]}`), out,
			want{Error: `the rule has an unknown key "contains"`}},
		{"missing result", "check_include_exclude", rule(`{"include": ["x"]}`), nil,
			want{Score: 0, Reason: `the result command_output "cmd.out" does not exist`}},
	})
}

func nb(fixture string) map[string]string {
	return map[string]string{"work/analysis.ipynb": "notebooks/" + fixture}
}

func nbPair(options string) string {
	return pair("work/analysis.ipynb", "notebooks/gold.ipynb", options)
}

func TestCompareNotebooks(t *testing.T) {
	run(t, []testCase{
		{"cells: same, source as a string, other counts", "compare_notebook_cells", nbPair(""), nb("result_same.ipynb"),
			want{Score: 1, Details: map[string]any{"cells_result": 4, "cells_expected": 4, "compared": "cells"}}},
		{"cells: trailing whitespace counts when exact", "compare_notebook_cells", nbPair(`{"whitespace": "exact"}`), nb("result_same.ipynb"),
			want{Score: 0, Reason: `cell 1's source, line 3: expected "print(len(rows))", got "print(len(rows))   "`}},
		{"cells: a source line differs", "compare_notebook_cells", nbPair(""), nb("result_source_diff.ipynb"),
			want{Score: 0, Reason: `cell 1's source, line 2: expected "rows = [1, 2, 3]", got "rows = [1, 2, 4]"`, Details: map[string]any{
				"first_difference.part": "source", "first_difference.line": 2, "first_difference.expected_cell": 1, "first_difference.actual_cell": 1}}},
		{"cells: markdown only", "compare_notebook_cells", nbPair(`{"cell_types": ["markdown"]}`), nb("result_source_diff.ipynb"),
			want{Score: 1, Details: map[string]any{"cells_expected": 1}}},
		{"cells: outputs do not count", "compare_notebook_cells", nbPair(""), nb("result_output_diff.ipynb"),
			want{Score: 1}},
		{"cells: an extra cell", "compare_notebook_cells", nbPair(""), nb("result_extra_cell.ipynb"),
			want{Score: 0, Reason: `the result has 5 cells, only 4 expected: cell 4 (a code cell) is extra`, Details: map[string]any{
				"first_difference.actual_cell": 4}}},
		{"cells: normalize", "compare_notebook_cells", nbPair(`{"whitespace": "normalize", "ignore_case": true}`), nb("result_same.ipynb"),
			want{Score: 1}},
		{"cells: bad whitespace option", "compare_notebook_cells", nbPair(`{"whitespace": "loose"}`), nb("result_same.ipynb"),
			want{Error: `option whitespace is "loose", expected one of exact, trim, normalize`}},
		{"outputs: same", "compare_notebook_outputs", nbPair(""), nb("result_same.ipynb"),
			want{Score: 1, Details: map[string]any{"cells_expected": 3}}},
		{"outputs: a result differs", "compare_notebook_outputs", nbPair(""), nb("result_output_diff.ipynb"),
			want{Score: 0, Reason: `cell 2's outputs, line 1: expected "6", got "7"`, Details: map[string]any{"first_difference.part": "outputs"}}},
		{"outputs: sources do not count", "compare_notebook_outputs", nbPair(""), nb("result_source_diff.ipynb"),
			want{Score: 1}},
		{"outputs: cleared", "compare_notebook_outputs", nbPair(""), nb("result_cleared.ipynb"),
			want{Score: 0, Reason: `cell 1's outputs, line 1: expected "3", got nothing (the text ends)`}},
		{"outputs: cell_types is not an option here", "compare_notebook_outputs", nbPair(`{"cell_types": ["code"]}`), nb("result_same.ipynb"),
			want{Error: `unknown option "cell_types" (this function takes the options whitespace, ignore_case)`}},
		{"ipynb: same", "compare_ipynb_files", nbPair(""), nb("result_same.ipynb"),
			want{Score: 1}},
		{"ipynb: an output differs", "compare_ipynb_files", nbPair(""), nb("result_output_diff.ipynb"),
			want{Score: 0, Reason: `cell 2's outputs, line 1: expected "6", got "7"`}},
		{"ipynb: a source differs", "compare_ipynb_files", nbPair(""), nb("result_source_diff.ipynb"),
			want{Score: 0, Reason: `cell 1's source, line 2`}},
		{"ipynb: the error output", "compare_ipynb_files", pair("work/analysis.ipynb", "notebooks/result_cleared.ipynb", ""), nb("gold.ipynb"),
			want{Score: 0, Reason: `cell 1's outputs, line 1: expected nothing (the text ends), got "3"`}},
		{"missing result notebook", "compare_ipynb_files", nbPair(""), nil,
			want{Score: 0, Reason: `the result vm_file "work/analysis.ipynb" does not exist`}},
		{"missing expected notebook", "compare_ipynb_files", pair("work/analysis.ipynb", "notebooks/nope.ipynb", ""), nb("gold.ipynb"),
			want{Error: `the expected task_file "notebooks/nope.ipynb" could not be read`}},
		{"a notebook given as a rule", "compare_ipynb_files",
			`{"result": {"type": "vm_file", "path": "work/analysis.ipynb"}, "expected": {"type": "rule", "rules": {}}}`, nb("gold.ipynb"),
			want{Error: `a notebook getter must name a file`}},
	})
}

func TestMalformedNotebooks(t *testing.T) {
	cases := []struct{ fixture, err string }{
		{"not_json.ipynb", `is not a valid notebook: not JSON (invalid JSON at byte`},
		{"not_object.ipynb", `is not a valid notebook: the notebook is a list, expected an object`},
		{"cells_not_list.ipynb", `is not a valid notebook: cells is an object, expected a list`},
		{"bad_source.ipynb", `is not a valid notebook: cell 2's source is a number, expected a string or a list of strings`},
		{"bad_output.ipynb", `is not a valid notebook: cell 1's output 0's output_type is "widget", expected stream, execute_result, display_data or error`},
		{"../csv/gold.csv", `is not a valid notebook: not JSON`},
	}
	var tcs []testCase
	for _, c := range cases {
		for _, fn := range []string{"compare_notebook_cells", "compare_ipynb_files", "is_jupyter_cell_executed", "are_jupyter_outputs_cleared"} {
			tcs = append(tcs, testCase{"result " + c.fixture + " " + fn, fn, nbPair(""), nb(c.fixture),
				want{Error: fn + `: the result vm_file "work/analysis.ipynb" ` + c.err}})
		}
		tcs = append(tcs, testCase{"expected " + c.fixture, "compare_notebook_outputs",
			pair("work/analysis.ipynb", "notebooks/"+c.fixture, ""), nb("gold.ipynb"),
			want{Error: `compare_notebook_outputs: the expected task_file "notebooks/` + c.fixture + `" ` + c.err}})
	}
	run(t, tcs)
}

func TestNotebookExecution(t *testing.T) {
	one := func(options string) string {
		if options == "" {
			options = "{}"
		}
		return `{"result": {"type": "vm_file", "path": "work/analysis.ipynb"}, "options": ` + options + `}`
	}
	run(t, []testCase{
		{"executed: every code cell", "is_jupyter_cell_executed", one(""), nb("gold.ipynb"),
			want{Score: 1, Details: map[string]any{"checked": 3, "not_executed": "[]"}}},
		{"executed: one cell not run", "is_jupyter_cell_executed", one(""), nb("result_partial.ipynb"),
			want{Score: 0, Reason: `1 of 3 checked code cells are not executed; cell 2 has not been run (its execution_count is null)`,
				Details: map[string]any{"not_executed": "[2]"}}},
		{"executed: run, without outputs", "is_jupyter_cell_executed", one(""), nb("result_no_output.ipynb"),
			want{Score: 0, Reason: `cell 2 has no outputs`}},
		{"executed: outputs not required", "is_jupyter_cell_executed", one(`{"require_outputs": false}`), nb("result_no_output.ipynb"),
			want{Score: 1}},
		{"executed: only the cells named", "is_jupyter_cell_executed", one(`{"indices": [1, 3]}`), nb("result_partial.ipynb"),
			want{Score: 1, Details: map[string]any{"checked": 2}}},
		{"executed: a markdown cell named", "is_jupyter_cell_executed", one(`{"indices": [0]}`), nb("gold.ipynb"),
			want{Score: 0, Reason: `cell 0 is a markdown cell, not a code cell`}},
		{"executed: a cell past the end", "is_jupyter_cell_executed", one(`{"indices": [9]}`), nb("gold.ipynb"),
			want{Score: 0, Reason: `the notebook has 4 cells, no cell 9`}},
		{"executed: bad indices", "is_jupyter_cell_executed", one(`{"indices": [1.5]}`), nb("gold.ipynb"),
			want{Error: `option indices[0] is 1.5, expected a cell index`}},
		{"executed: cleared notebook", "is_jupyter_cell_executed", one(""), nb("result_cleared.ipynb"),
			want{Score: 0, Reason: `3 of 3 checked code cells are not executed; cell 1 has not been run`, Details: map[string]any{"not_executed": "[1 2 3]"}}},
		{"executed: missing notebook", "is_jupyter_cell_executed", one(""), nil,
			want{Score: 0, Reason: `does not exist`}},
		{"cleared: cleared", "are_jupyter_outputs_cleared", one(""), nb("result_cleared.ipynb"),
			want{Score: 1, Details: map[string]any{"not_cleared": "[]"}}},
		{"cleared: outputs left", "are_jupyter_outputs_cleared", one(""), nb("gold.ipynb"),
			want{Score: 0, Reason: `3 code cells are not cleared; cell 1 keeps 1 output`, Details: map[string]any{"not_cleared": "[1 2 3]"}}},
		{"cleared: a count left", "are_jupyter_outputs_cleared", one(""), nb("result_no_output.ipynb"),
			want{Score: 0, Reason: `cell 1 keeps 1 output`}},
		{"cleared: takes no options", "are_jupyter_outputs_cleared", one(`{"strict": true}`), nb("result_cleared.ipynb"),
			want{Error: `unknown option "strict" (this function takes no options)`}},
	})
}

func TestEvaluateMultipleNotebooks(t *testing.T) {
	args := func(options string) string {
		return `{"result": [{"type": "vm_file", "path": "a.ipynb"}, {"type": "vm_file", "path": "b.ipynb"}],
			"expected": [{"type": "task_file", "path": "notebooks/gold.ipynb"}, {"type": "task_file", "path": "notebooks/gold2.ipynb"}],
			"options": ` + options + `}`
	}
	good := map[string]string{"a.ipynb": "notebooks/result_same.ipynb", "b.ipynb": "notebooks/gold2.ipynb"}
	oneBad := map[string]string{"a.ipynb": "notebooks/result_same.ipynb", "b.ipynb": "notebooks/result2_diff.ipynb"}
	run(t, []testCase{
		{"and: both match", "evaluate_multiple_notebooks", args(`{}`), good,
			want{Score: 1, Details: map[string]any{"conj": "and", "compare": "compare_ipynb_files"}}},
		{"and: one differs", "evaluate_multiple_notebooks", args(`{"conj": "and"}`), oneBad,
			want{Score: 0, Reason: `pair 1 does not match`}},
		{"or: one matches", "evaluate_multiple_notebooks", args(`{"conj": "or"}`), oneBad,
			want{Score: 1}},
		{"or: one missing", "evaluate_multiple_notebooks", args(`{"conj": "or"}`), map[string]string{"b.ipynb": "notebooks/gold2.ipynb"},
			want{Score: 1}},
		{"and: one missing", "evaluate_multiple_notebooks", args(`{}`), map[string]string{"b.ipynb": "notebooks/gold2.ipynb"},
			want{Score: 0, Reason: `pair 0 does not match`}},
		{"compare cells only", "evaluate_multiple_notebooks", args(`{"compare": "compare_notebook_cells"}`), oneBad,
			want{Score: 1, Details: map[string]any{"compare": "compare_notebook_cells"}}},
		{"options go to the pair's function", "evaluate_multiple_notebooks", args(`{"compare": "compare_notebook_cells", "whitespace": "exact"}`), oneBad,
			want{Score: 0, Reason: `pair 0 does not match`}},
		{"an option the pair's function does not take", "evaluate_multiple_notebooks", args(`{"compare": "compare_notebook_outputs", "cell_types": ["code"]}`), good,
			want{Error: `evaluate_multiple_notebooks: pair 0: unknown option "cell_types"`}},
		{"an unknown conj", "evaluate_multiple_notebooks", args(`{"conj": "xor"}`), good,
			want{Error: `option conj is "xor", expected one of and, or`}},
		{"a malformed notebook in a pair", "evaluate_multiple_notebooks", args(`{}`),
			map[string]string{"a.ipynb": "notebooks/result_same.ipynb", "b.ipynb": "notebooks/not_object.ipynb"},
			want{Error: `pair 1: the result vm_file "b.ipynb" is not a valid notebook`}},
		{"lists of different lengths", "evaluate_multiple_notebooks",
			`{"result": [{"type": "vm_file", "path": "a.ipynb"}], "expected": [{"type": "task_file", "path": "notebooks/gold.ipynb"}, {"type": "task_file", "path": "notebooks/gold2.ipynb"}]}`,
			good, want{Error: `arguments.result lists 1 getters and arguments.expected 2`}},
	})
}

// A mean under "and": pairs that score between 0 and 1 are averaged. The
// notebook functions score 0 or 1, so the mean shows only in the pairs'
// scores; this holds the pairs' details to the score each pair gave.
func TestMultiplePairDetails(t *testing.T) {
	out := call(t, "evaluate_multiple_notebooks",
		`{"result": [{"type": "vm_file", "path": "a.ipynb"}, {"type": "vm_file", "path": "b.ipynb"}],
		  "expected": [{"type": "task_file", "path": "notebooks/gold.ipynb"}, {"type": "task_file", "path": "notebooks/gold2.ipynb"}],
		  "options": {"conj": "or"}}`,
		map[string]string{"a.ipynb": "notebooks/result_same.ipynb", "b.ipynb": "notebooks/result2_diff.ipynb"})
	details, _ := out.Details.(map[string]any)
	pairs, _ := details["pairs"].([]any)
	if len(pairs) != 2 {
		t.Fatalf("pairs %v", details["pairs"])
	}
	first, _ := pairs[0].(map[string]any)
	second, _ := pairs[1].(map[string]any)
	if first["score"] != 1.0 || second["score"] != 0.0 {
		t.Errorf("pair scores %v and %v, want 1 and 0", first["score"], second["score"])
	}
	if r, _ := second["reason"].(string); !strings.Contains(r, `cell 0's outputs, line 1: expected "42", got "41"`) {
		t.Errorf("pair 1 reason %q", r)
	}
}

// logLine compares a one-line log with an expected text through
// compare_script_logs and returns the reason (empty when they match) or
// the error.
func logLine(t *testing.T, line, expected, options string) (reason, errMsg string) {
	t.Helper()
	rules, _ := json.Marshal(expected)
	out := callWith(t, "compare_script_logs", `{"result": {"type": "vm_file", "path": "run.log"},
		"expected": {"type": "rule", "rules": `+string(rules)+`}, "options": `+options+`}`, map[string]string{"run.log": line})
	details, _ := out.Details.(map[string]any)
	reason, _ = details["reason"].(string)
	if out.Error == "" && (out.Score == 1) != (reason == "") {
		t.Errorf("%q: score %v with reason %q", line, out.Score, reason)
	}
	return reason, out.Error
}

// The ignore_patterns matcher: a line a pattern occurs in is dropped, so
// it matches an empty expected log.
func TestIgnorePatterns(t *testing.T) {
	cases := []struct {
		pattern, line string
		match         bool
	}{
		{`abc`, "xxabcxx", true},
		{`^abc`, "xabc", false},
		{`^a.c$`, "abc", true},
		{`\d{4}-\d{2}`, "on 2024-01 we", true},
		{`\d{4}-\d{2}`, "on 202-01 we", false},
		{`(foo|bar)+baz`, "xbarfoobaz", true},
		{`[^a-c]`, "abcd", true},
		{`[^a-c]`, "abc", false},
		{`a{2,3}$`, "caaa", true},
		{`a{2,}?b`, "ab", false},
		{`(?:a*)*b`, "aaab", true},
		{`(a*)*b`, strings.Repeat("a", 20000), false}, // no backtracking: linear in the line
		{`\[INFO\]`, "[INFO] x", true},
		{`colou?r`, "color", true},
		{`[\w.]+@\w+\.org`, "mail j.doe@example.org now", true},
		{`\s{3}`, "a  b", false},
		{`^(GET|POST) /api/\S+ 200$`, "POST /api/items 200", true},
		{`^(GET|POST) /api/\S+ 200$`, "POST /api/items 404", false},
	}
	for _, c := range cases {
		opts, _ := json.Marshal(map[string]any{"ignore_patterns": []string{c.pattern}})
		reason, errMsg := logLine(t, c.line, "", string(opts))
		if errMsg != "" {
			t.Errorf("%s: %s", c.pattern, errMsg)
			continue
		}
		if (reason == "") != c.match {
			t.Errorf("pattern %s on %.40q: match %v, want %v (%s)", c.pattern, c.line, reason == "", c.match, reason)
		}
	}
	// With ignore_case the pattern's letters match either case.
	if reason, _ := logLine(t, "Error: disk FULL", "", `{"ignore_case": true, "ignore_patterns": ["^ERROR: [a-z]+ full"]}`); reason != "" {
		t.Errorf("ignore_case pattern: %s", reason)
	}
	for _, bad := range []string{"(", ")", "[a", "*a", "a**", `\\q`, "a{5,2}", "a{2000}", `\\b`} {
		opts := `{"ignore_patterns": ["` + bad + `"]}`
		if _, errMsg := logLine(t, "x", "", opts); !strings.Contains(errMsg, "option ignore_patterns[0]") {
			t.Errorf("pattern %s: error %q", bad, errMsg)
		}
	}
}

// The timestamps ignore_timestamps drops, and lines it keeps whole.
func TestIgnoreTimestamps(t *testing.T) {
	cases := []struct{ line, rest string }{
		{"2024-03-01 10:00:00,120 - INFO - x", "INFO - x"},
		{"2024/03/01 10:00:00 x", "x"},
		{"[2024-03-01T10:00:00.123456+02:00] x", "x"},
		{"(2024-03-01) x", "x"},
		{"10:00 | x", "x"},
		{"9:05:01.5Z: x", "x"},
		{"12:30:00 UTC x", "x"},
		{"  [10:00:00]   x", "x"},
		{"2024-03-01x", "2024-03-01x"},
		{"12:3 x", "12:3 x"},
		{"[10:00:00 x", "[10:00:00 x"},
		{"v1.2.3 x", "v1.2.3 x"},
		{"1234-56 x", "1234-56 x"},
	}
	for _, c := range cases {
		reason, errMsg := logLine(t, c.line, c.rest, `{"ignore_timestamps": true}`)
		if errMsg != "" || reason != "" {
			t.Errorf("%q: want %q: %s%s", c.line, c.rest, reason, errMsg)
		}
	}
}
