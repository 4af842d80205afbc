package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/run/runtest"
	"github.com/wasmeval/wasmeval/engine/runtime/docker/dockertest"
)

// The task-spec example end to end, through the real binary
// (examples/notebook-tasks): task specs in three tool directories, set up
// in the agent's sandbox and scored by the evaluation standard library,
// against a scripted agent with no model, no Jupyter and no network.

const notebookTasks = "../../examples/notebook-tasks"

// The example's tasks, by tool and id.
const (
	specCSV        = "6a06299b-1c31-4cf2-a485-c372ddbf4335" // libreoffice_calc: compare_csv
	specOr         = "21d50181-bd3e-49df-8000-338ecd876df9" // libreoffice_calc: compare_csv or compare_csv
	specNotebook   = "20a92be5-6727-4b24-8058-c9680d4ec633" // jupyter: compare_notebook_outputs
	specAnd        = "f7450ae8-7d1b-4637-aaaf-d2b6e662eb35" // jupyter: compare_text_file and is_jupyter_cell_executed
	specInfeasible = "01047512-7785-4de1-9f6b-a56ae241cc95" // jupyter: infeasible
	specCleanup    = "de157872-55b7-434d-9eb9-0c3691b8ade9" // os: check_include_exclude on a vm_command_line getter
)

var specTools = map[string]string{
	specCSV: "libreoffice_calc", specOr: "libreoffice_calc",
	specNotebook: "jupyter", specAnd: "jupyter", specInfeasible: "jupyter",
	specCleanup: "os",
}

func specIDs() []string {
	var ids []string
	for id := range specTools {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// specSummary is a task's summary.json: its spec as written, and results.
type specSummary struct {
	ID      string   `json:"id"`
	Tags    []string `json:"tags"`
	Results struct {
		Score        float64           `json:"score"`
		EvalError    string            `json:"eval_error"`
		ErrorLogPath string            `json:"error_log_path"`
		Output       string            `json:"output"`
		State        string            `json:"state"`
		Messages     []json.RawMessage `json:"messages"`
		TotalTokens  int64             `json:"total_tokens"`
		TotalTiming  float64           `json:"total_timing"`
	} `json:"results"`
}

// summaries reads every summary.json of a run, by task id, checking
// each lies at summaries/<tool>/<id>/summary.json.
func summaries(t *testing.T, out string) map[string]*specSummary {
	t.Helper()
	got := map[string]*specSummary{}
	root := filepath.Join(out, "summaries")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var s specSummary
		if err := json.Unmarshal(data, &s); err != nil {
			t.Errorf("%s: %v", rel, err)
			return nil
		}
		if len(parts) != 3 || parts[2] != "summary.json" || parts[1] != s.ID || parts[0] != specTools[s.ID] {
			t.Errorf("summary of %s at %s, want %s/%s/summary.json", s.ID, rel, specTools[s.ID], s.ID)
		}
		got[s.ID] = &s
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// wantSummary checks a summary's score and state.
func wantSummary(t *testing.T, sums map[string]*specSummary, id string, score float64, state string) *specSummary {
	t.Helper()
	s, ok := sums[id]
	if !ok {
		t.Errorf("%s: no summary.json", id)
		return &specSummary{}
	}
	if s.Results.Score != score || s.Results.State != state {
		t.Errorf("%s: score %v, state %q, want %v, %q (eval_error %q)", id, s.Results.Score, s.Results.State, score, state, s.Results.EvalError)
	}
	return s
}

// evaluation is the details of the functions that scored a record's
// evaluation, as the evaluators check reported them.
func evaluation(r *result.CaseRecord) string {
	if r == nil {
		return ""
	}
	for _, a := range r.Attributes {
		if a.Attribute == "evaluation" {
			data, _ := json.Marshal(a)
			return string(data)
		}
	}
	return ""
}

func TestTaskSpecsReferenceAgent(t *testing.T) {
	runtest.RequirePython(t)
	out := t.TempDir()
	r := wasmeval(t, "run", notebookTasks, "--submission", notebookTasks+"/agents/reference", "--out", out, "--progress", "none")
	if r.code != 0 {
		t.Fatalf("reference agent: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	wantOutcomes(t, byID(t, out), allOutcomes(specIDs(), result.OutcomePassed))
	sums := summaries(t, out)
	if len(sums) != len(specTools) {
		t.Errorf("%d summaries, want %d", len(sums), len(specTools))
	}
	for _, id := range specIDs() {
		s := wantSummary(t, sums, id, 1, "success")
		if len(s.Results.Messages) < 3 || s.Results.TotalTokens <= 0 || s.Results.EvalError != "" {
			t.Errorf("%s: results %+v", id, s.Results)
		}
	}
	// The spec as written is kept beside the results.
	if s := sums[specCSV]; s != nil && strings.Join(s.Tags, ",") != "csv,aggregation" {
		t.Errorf("%s: tags %v", specCSV, s.Tags)
	}
	if s := sums[specInfeasible]; s != nil && s.Results.Output != "FAIL" {
		t.Errorf("infeasible: output %q", s.Results.Output)
	}
	for _, row := range []string{"jupyter           3      3", "libreoffice_calc  2      2", "os                1      1", "app:terminal", "notebook              3      3"} {
		if !strings.Contains(r.stdout, row) {
			t.Errorf("no %q in\n%s", row, r.stdout)
		}
	}
}

func TestTaskSpecsBrokenAgent(t *testing.T) {
	runtest.RequirePython(t)
	out := t.TempDir()
	r := wasmeval(t, "run", notebookTasks, "--submission", notebookTasks+"/agents/broken", "--out", out, "--progress", "none")
	if r.code != 1 {
		t.Fatalf("broken agent: exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	recs := byID(t, out)
	wantOutcomes(t, recs, map[string]result.Outcome{
		specCSV: result.OutcomeFailed, specAnd: result.OutcomeFailed, specCleanup: result.OutcomeFailed,
		specNotebook: result.OutcomeError,
		specOr:       result.OutcomePassed, specInfeasible: result.OutcomePassed,
	})
	sums := summaries(t, out)
	if len(sums) != len(specTools) {
		t.Errorf("%d summaries, want %d", len(sums), len(specTools))
	}
	// A wrong CSV: the first differing cell.
	wantSummary(t, sums, specCSV, 0, "fail")
	if e := evaluation(recs[specCSV]); !strings.Contains(e, `row 3, column 2: expected \"8\", got \"3\"`) {
		t.Errorf("wrong CSV: %s", e)
	}
	// The notebook left unexecuted fails the and, although total.txt is right.
	wantSummary(t, sums, specAnd, 0, "fail")
	if e := evaluation(recs[specAnd]); !strings.Contains(e, `"function":"compare_text_file","score":1`) ||
		!strings.Contains(e, "3 of 3 checked code cells are not executed") {
		t.Errorf("unexecuted notebook: %s", e)
	}
	// A feasible task declared infeasible scores 0: the files are still there.
	if s := wantSummary(t, sums, specCleanup, 0, "fail"); s.Results.Output != "FAIL" {
		t.Errorf("cleanup: output %q, want FAIL", s.Results.Output)
	}
	if e := evaluation(recs[specCleanup]); !strings.Contains(e, `2 of the excluded strings are present, the first \".tmp\"`) {
		t.Errorf("cleanup: %s", e)
	}
	// The crash is the task's error, not a score of 0.
	s := wantSummary(t, sums, specNotebook, -1, "infra_error")
	if e := s.Results.EvalError; !strings.Contains(e, "the agent exited with status 1") || !strings.Contains(e, "FileNotFoundError") {
		t.Errorf("crash: eval_error %q", e)
	}
	if s.Results.ErrorLogPath != filepath.Join(out, "run.log") {
		t.Errorf("crash: error_log_path %q", s.Results.ErrorLogPath)
	}
	if r := recs[specNotebook]; r != nil && r.ErrorKind != result.ErrorAdapter {
		t.Errorf("crash: error kind %q", r.ErrorKind)
	}
	// Ties sorted by name match the or's other gold file; the infeasible
	// task is still declared so.
	wantSummary(t, sums, specOr, 1, "success")
	wantSummary(t, sums, specInfeasible, 1, "success")
}

// The broken agent is the reference agent with its bugs switched on,
// and nothing else.
func TestTaskSpecsBrokenAgentIsTheReferenceWithBugs(t *testing.T) {
	ref, err1 := os.ReadFile(filepath.Join(notebookTasks, "agents", "reference", "agent.py"))
	broken, err2 := os.ReadFile(filepath.Join(notebookTasks, "agents", "broken", "agent.py"))
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if want := strings.Replace(string(ref), "\nBROKEN = False\n", "\nBROKEN = True\n", 1); string(broken) != want || want == string(ref) {
		t.Error("agents/broken/agent.py differs from agents/reference/agent.py by more than BROKEN = True")
	}
}

// copyExample copies the example's task tree (its specs, their files,
// wasmeval.yaml and the built plugin; not the agents) into a new
// directory, with files replaced or added by edits.
func copyExample(t *testing.T, edits map[string]string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(notebookTasks, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(notebookTasks, p)
		if d.IsDir() {
			if rel == "agents" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	for rel, body := range edits {
		if err := os.WriteFile(filepath.Join(dst, filepath.FromSlash(rel)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// editSpec returns a task's spec with change applied to its JSON.
func editSpec(t *testing.T, id string, change func(spec map[string]any)) (string, string) {
	t.Helper()
	rel := specTools[id] + "/" + id + "/" + id + ".json"
	data, err := os.ReadFile(filepath.Join(notebookTasks, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	var spec map[string]any
	if err := json.Unmarshal(data, &spec); err != nil {
		t.Fatal(err)
	}
	change(spec)
	out, _ := json.MarshalIndent(spec, "", "  ")
	return rel, string(out)
}

// An evaluation function that reports an error — the gold notebook is
// not a notebook — gives its task -1 with the error; the run goes on
// and scores the other tasks.
func TestTaskSpecsEvaluationError(t *testing.T) {
	runtest.RequirePython(t)
	tree := copyExample(t, map[string]string{
		"jupyter/" + specNotebook + "/analysis_gold.ipynb": `{"nbformat": 4, "cells": [{"cell_type": "code", "source": 42, "outputs": []}]}`,
	})
	out := t.TempDir()
	r := wasmeval(t, "run", tree, "--submission", notebookTasks+"/agents/reference", "--out", out, "--progress", "none")
	if r.code != 3 {
		t.Fatalf("exit %d, want 3 (an error decides the verdict)\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	want := allOutcomes(specIDs(), result.OutcomePassed)
	want[specNotebook] = result.OutcomeError
	recs := byID(t, out)
	wantOutcomes(t, recs, want)
	if r := recs[specNotebook]; r != nil && r.ErrorKind != result.ErrorPlugin {
		t.Errorf("error kind %q, want %q", r.ErrorKind, result.ErrorPlugin)
	}
	sums := summaries(t, out)
	s := wantSummary(t, sums, specNotebook, -1, "eval_error")
	if e := s.Results.EvalError; !strings.Contains(e, "compare_notebook_outputs") ||
		!strings.Contains(e, `analysis_gold.ipynb" is not a valid notebook: cell 0's source is a number`) {
		t.Errorf("eval_error %q", e)
	}
	if s.Results.Output != "done" || len(s.Results.Messages) == 0 {
		t.Errorf("the agent's answer and messages are kept: %+v", s.Results)
	}
	for _, id := range specIDs() {
		if id != specNotebook {
			wantSummary(t, sums, id, 1, "success")
		}
	}
}

// --tag and --app keep the tasks with one of the tags or apps; only
// they run and get a summary.
func TestTaskSpecsTagAndAppFilters(t *testing.T) {
	runtest.RequirePython(t)
	for _, tc := range []struct {
		name  string
		flags []string
		want  []string
	}{
		{"tag", []string{"--tag", "sorting"}, []string{specOr}},
		{"app", []string{"--app", "jupyter"}, []string{specNotebook, specAnd, specInfeasible}},
		{"tag or app", []string{"--tag", "cleanup", "--app", "libreoffice_calc", "--tag", "infeasible"}, []string{specCSV, specOr, specCleanup, specInfeasible}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			args := append([]string{"run", notebookTasks, "--submission", notebookTasks + "/agents/reference", "--out", out, "--progress", "none"}, tc.flags...)
			r := wasmeval(t, args...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			wantOutcomes(t, byID(t, out), allOutcomes(tc.want, result.OutcomePassed))
			if sums := summaries(t, out); len(sums) != len(tc.want) {
				t.Errorf("%d summaries, want %d", len(sums), len(tc.want))
			}
		})
	}
	r := wasmeval(t, "run", notebookTasks, "--submission", notebookTasks+"/agents/reference", "--out", t.TempDir(), "--progress", "none", "--tag", "spreadsheet-macros")
	if r.code != 2 || !strings.Contains(r.stderr, "no task has the tags or apps asked for") {
		t.Errorf("a tag no task has: exit %d\n%s", r.code, r.stderr)
	}
}

// validate reads the example cleanly, and reports every problem of a
// broken tree at once, each by file and field.
func TestTaskSpecsValidate(t *testing.T) {
	if r := wasmeval(t, "validate", notebookTasks); r.code != 0 || !strings.Contains(r.stdout, "tasks/jupyter: 3 cases") {
		t.Fatalf("validate the example: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	csvRel, csvSpec := editSpec(t, specCSV, func(s map[string]any) {
		s["config"] = append(s["config"].([]any), map[string]any{"func": "launch", "arguments": map[string]any{"command": []any{"libreoffice", "--calc"}}})
	})
	orRel, orSpec := editSpec(t, specOr, func(s map[string]any) {
		ev := s["evaluation"].(map[string]any)
		ev["expected"].([]any)[1] = map[string]any{"type": "cloud_file"}
	})
	andRel, andSpec := editSpec(t, specAnd, func(s map[string]any) {
		ev := s["evaluation"].(map[string]any)
		ev["result"].([]any)[1] = map[string]any{"type": "vm_screenshot"}
	})
	nbRel, nbSpec := editSpec(t, specNotebook, func(s map[string]any) {
		ev := s["evaluation"].(map[string]any)
		ev["postconfig"] = []any{map[string]any{"func": "open_browser", "arguments": map[string]any{}}}
	})
	tree := copyExample(t, map[string]string{csvRel: csvSpec, orRel: orSpec, andRel: andSpec, nbRel: nbSpec})
	r := wasmeval(t, "validate", tree)
	if r.code != 2 {
		t.Fatalf("validate a broken tree: exit %d, want 2\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	file := func(rel string) string { return filepath.Join(tree, filepath.FromSlash(rel)) }
	for _, want := range []string{
		file(csvRel) + `: config[1].func: unknown setup function "launch"`,
		file(orRel) + `: evaluation.expected[1].path: malformed getter: a cloud_file getter needs path`,
		file(andRel) + `: evaluation.result[1].type: unknown getter type "vm_screenshot"`,
		file(nbRel) + `: evaluation.postconfig[0].func: unknown setup function "open_browser"`,
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("no %q in\n%s", want, r.stderr)
		}
	}
	if n := strings.Count(r.stderr, "\n"+tree); n != 4 {
		t.Errorf("%d problems reported, want 4:\n%s", n, r.stderr)
	}
}

// The reference agent on the Docker runtime: setup, the agent, the
// postconfig and the vm_command_line getter run in the container, whose
// working directory is the sandbox.
func TestTaskSpecsOnDocker(t *testing.T) {
	image := dockertest.Image(t, "python")
	spec := writeSpec(t, "image: "+image+"\n")
	out := t.TempDir()
	r := wasmeval(t, "run", notebookTasks, "--submission", notebookTasks+"/agents/reference", "--env", spec, "--out", out, "--progress", "none")
	if r.code != 0 {
		t.Fatalf("reference agent on docker: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	wantOutcomes(t, byID(t, out), allOutcomes(specIDs(), result.OutcomePassed))
	sums := summaries(t, out)
	for _, id := range specIDs() {
		wantSummary(t, sums, id, 1, "success")
	}
	var man struct {
		Runtime struct {
			Name string `json:"name"`
		} `json:"runtime"`
	}
	if data, err := os.ReadFile(filepath.Join(out, "manifest.json")); err != nil || json.Unmarshal(data, &man) != nil || man.Runtime.Name != "docker" {
		t.Errorf("the tasks did not run on docker: manifest runtime %+v (%v)", man.Runtime, err)
	}
}
