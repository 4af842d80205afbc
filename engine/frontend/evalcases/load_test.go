package evalcases_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/frontend/evalcases"
	"github.com/wasmeval/wasmeval/engine/problem"
)

func write(t *testing.T, dir, rel, content string) string {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const dataset = `[
  {"category": "happy_path", "query": "Weather in Paris?", "expected_tools": ["get_weather"],
   "expected_output_contains": ["sunny", "rain"], "expected_tool_output": {"get_weather": {"city": "Paris", "temp": {"c": 18}}}},
  {"id": "hello", "category": "edge_case", "query": "Hello", "expected_tools": [], "expected_output_contains": "hi"},
  {"category": "adversarial", "query": "Diagnose me", "expected_flags": {"can_diagnose": false}, "tags": ["medical"]}
]`

// A dataset named directly becomes one group of agent cases, each
// expectation a check of the agent's result.
func TestLoadDataset(t *testing.T) {
	dir := t.TempDir()
	file := write(t, dir, "data/eval_cases.json", dataset)
	if !evalcases.IsDataset(file) || evalcases.IsConfig(file) {
		t.Fatal("not recognised as a dataset")
	}
	d, err := evalcases.Load(file, evalcases.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := d.Problem
	if p.Name != "eval_cases" || p.Adapter.Type != problem.AdapterAgent || p.TimeoutOutcome != problem.TimeoutErrors {
		t.Errorf("problem %+v", p)
	}
	if d.History != filepath.Join(dir, "data", "history") {
		t.Errorf("history %s", d.History)
	}
	if len(d.Cases) != 3 || d.Cases[0].ID != "case-001" || d.Cases[1].ID != "hello" || d.Cases[2].ID != "case-003" {
		t.Fatalf("cases %+v", d.Cases)
	}
	kinds := func(i int) string {
		var k []string
		for _, c := range d.Cases[i].Checks {
			k = append(k, c.Kind+":"+c.Attribute)
		}
		return strings.Join(k, " ")
	}
	if got := kinds(0); got != "tools: contains-any:answer tool-output:" {
		t.Errorf("case 1 checks: %s", got)
	}
	// expected_tools: [] is no check by default.
	if got := kinds(1); got != "contains-any:answer" {
		t.Errorf("case 2 checks: %s", got)
	}
	if c := d.Cases[1].Checks[0]; !c.IgnoreCase || len(c.Values) != 1 || c.Values[0] != "hi" {
		t.Errorf("expected_output_contains is OR and case-insensitive: %+v", c)
	}
	if got := kinds(2); got != "flags:" || d.Cases[2].Task.Category != "adversarial" || d.Cases[2].Task.Tags[0] != "medical" {
		t.Errorf("case 3: %s %+v", got, d.Cases[2].Task)
	}
	if d.Cases[0].Task.Instruction != "Weather in Paris?" {
		t.Errorf("query: %+v", d.Cases[0].Task)
	}
}

// A config names the dataset with the agent and options: empty_tools
// no-calls makes expected_tools: [] a check that no tool was called.
func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "data/eval_cases.json", dataset)
	cfg := write(t, dir, "eval.yaml", `name: weather-agent
dataset: data/eval_cases.json
agent: {entry_file: agent.py, command: "python3 {entry_file}", endpoint: /query, arguments: [--port, "{{port}}"]}
timeout: 30
empty_tools: no-calls
tools_match: exact
disclaimers: [ask your GP]
history: runs-history
`)
	if !evalcases.IsConfig(cfg) {
		t.Fatal("not recognised as a config")
	}
	d, err := evalcases.Load(cfg, evalcases.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := d.Problem
	if p.Name != "weather-agent" || p.Adapter.Agent.Endpoint != "/query" || p.Adapter.Server == nil || p.EntryFile != "agent.py" {
		t.Errorf("problem %+v", p.Adapter)
	}
	if d.History != filepath.Join(dir, "runs-history") || d.Cases[0].Timeout.Seconds() != 30 {
		t.Errorf("history %s, timeout %v", d.History, d.Cases[0].Timeout)
	}
	if c := d.Cases[1].Checks[0]; c.Kind != "tools" || c.Empty != "no-calls" || len(c.Values) != 0 {
		t.Errorf("empty expected_tools under no-calls: %+v", c)
	}
	if c := d.Cases[0].Checks[0]; c.Match != "exact" {
		t.Errorf("tools_match: %+v", c)
	}
	if c := d.Cases[2].Checks[0]; len(c.Phrases) != 1 || c.Phrases[0] != "ask your GP" {
		t.Errorf("disclaimers: %+v", c)
	}
}

// Bad entries are all reported, naming the file, the entry's index, the
// key and what was expected.
func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	file := write(t, dir, "bad.json", `[
  {"query": "a", "expected_tool": ["x"]},
  {"query": 3, "expected_output_contains": "hi"},
  "oops",
  {"query": "b", "expected_tool_output": {"t": 5}},
  {"id": "dup", "query": "c", "expected_tools": ["t"]},
  {"id": "dup", "query": "d", "expected_tools": ["t", 7]},
  {"expected_tools": ["t"]},
  {"query": "e", "expected_flags": "no"}
]`)
	_, err := evalcases.Load(file, evalcases.Options{})
	if err == nil {
		t.Fatal("loaded")
	}
	for _, want := range []string{
		file + `: [0].expected_tool: unknown key "expected_tool" (known keys: category, description,`,
		file + ": [0]: entry case-001 expects nothing",
		file + ": [1].query: expected a string, got a number (3)",
		file + `: [2]: expected an eval case (an object with at least a query), got a string ("oops")`,
		file + ": [3].expected_tool_output.t: expected an object of key-value pairs the tool returned, got a number (5)",
		file + `: [5].id: id "dup" is also the id of entry 4`,
		file + ": [5].expected_tools[1]: expected a non-empty string, got a number (7)",
		file + ": [6].query: required",
		file + `: [7].expected_flags: expected an object of flags, e.g. {"can_diagnose": false}, got a string ("no")`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in\n%v", want, err)
		}
	}
	for content, want := range map[string]string{
		`{"a": 1}`: `expected a list of eval cases (or an object whose "cases" key holds one), got an object with keys a`,
		`[]`:       "the list of eval cases is empty",
		`[{"query": "x", "expected_tools": ["t"]}] []`: "data after the list",
		`<html>`: "not JSON",
	} {
		f := write(t, dir, "x.json", content)
		if _, err := evalcases.Load(f, evalcases.Options{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", content, err, want)
		}
	}
	cfg := write(t, dir, "eval.yaml", "dataset: missing.json\nempty_tools: never\ntools_match: some\nretries: 2\n")
	_, err = evalcases.Load(cfg, evalcases.Options{})
	if err == nil {
		t.Fatal("loaded a bad config")
	}
	for _, want := range []string{`retries: unknown key "retries"`, `empty_tools: expected one of no-check, no-calls, got "never"`,
		`tools_match: expected one of all, exact, in-order, any, got "some"`, "missing.json"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in\n%v", want, err)
		}
	}
}

// A config's history directory lies inside the config's directory, as
// its dataset does: runs write there, and a config is handed over by
// others. Through .., an absolute path or a symlink that leads out, it is
// refused.
func TestHistoryStaysInTheConfigsDirectory(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	write(t, dir, "data/eval_cases.json", dataset)
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for history, want := range map[string]string{
		"../escaped":   `history: expected a directory inside this file's directory (a relative path without ..), got "../escaped"`,
		outside:        `history: expected a directory inside this file's directory`,
		"link/history": "history: ",
		"runs/history": "",
	} {
		cfg := write(t, dir, "eval.yaml", "dataset: data/eval_cases.json\nagent: {entry_file: agent.py, command: \"python3 {entry_file}\"}\nhistory: "+history+"\n")
		d, err := evalcases.Load(cfg, evalcases.Options{})
		switch {
		case want == "" && err != nil:
			t.Errorf("history %s: %v", history, err)
		case want == "" && d.History != filepath.Join(dir, "runs", "history"):
			t.Errorf("history %s: %s", history, d.History)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("history %s: %v, want %q", history, err, want)
		}
	}
}

// A key given twice in an entry is refused at its line, rather than the
// last value kept silently; a syntax error gets its line too.
func TestDatasetKeysGivenTwiceAreRefused(t *testing.T) {
	dir := t.TempDir()
	twice := write(t, dir, "twice.json", "[\n  {\"query\": \"a\",\n   \"expected_output_contains\": [\"abc\"],\n   \"expected_output_contains\": [\"xyz\"]}\n]")
	if _, err := evalcases.Load(twice, evalcases.Options{}); err == nil || !strings.Contains(err.Error(), twice+`:4: [0]: key "expected_output_contains" given twice`) {
		t.Errorf("a key given twice: %v", err)
	}
	nan := write(t, dir, "nan.json", "[\n  {\"query\": \"a\", \"expected_output_contains\": [\"x\"]},\n  {\"query\": NaN}\n]")
	if _, err := evalcases.Load(nan, evalcases.Options{}); err == nil || !strings.Contains(err.Error(), nan+":3: not JSON: invalid character 'N'") {
		t.Errorf("NaN: %v", err)
	}
}

// --tag keeps the cases with one of the tags; a tag no case has is an
// error, not a run of every case.
func TestTagsFilterCases(t *testing.T) {
	dir := t.TempDir()
	file := write(t, dir, "eval_cases.json", dataset)
	d, err := evalcases.Load(file, evalcases.Options{Tags: []string{"medical"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Cases) != 1 || d.Cases[0].ID != "case-003" || len(d.Problem.Checkpoints[0].Groups[0].CaseOrder) != 1 {
		t.Errorf("cases with tag medical: %d, want case-003 alone", len(d.Cases))
	}
	if _, err := evalcases.Load(file, evalcases.Options{Tags: []string{"nosuchtag"}}); err == nil || !strings.Contains(err.Error(), "no case has the tags asked for (nosuchtag)") {
		t.Errorf("a tag no case has: %v", err)
	}
}

// An agent's entry_file outside the submission is refused when the
// config is loaded (validate), as a problem's is, not first by the run.
func TestAgentEntryFileStaysInTheSubmission(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "data/eval_cases.json", dataset)
	cfg := write(t, dir, "eval.yaml", "dataset: data/eval_cases.json\nagent: {entry_file: ../../agent/agent.py, command: \"python3 {entry_file}\"}\n")
	if _, err := evalcases.Load(cfg, evalcases.Options{}); err == nil || !strings.Contains(err.Error(), `agent.entry_file: expected a path relative to the submission, inside it, got "../../agent/agent.py"`) {
		t.Errorf("entry_file outside the submission: %v", err)
	}
}

// An empty expected_flags or expected_tool_output would pass every
// reply: it is refused at its entry.
func TestEmptyExpectationsAreRefused(t *testing.T) {
	file := write(t, t.TempDir(), "d.json", `[{"query": "a", "expected_flags": {}}, {"query": "b", "expected_tool_output": {}}]`)
	_, err := evalcases.Load(file, evalcases.Options{})
	for _, want := range []string{
		file + `: [0].expected_flags: {} expects nothing, and every reply would pass it: give an object of flags`,
		file + `: [1].expected_tool_output: {} expects nothing`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want %q in %v", want, err)
		}
	}
}
