package taskspecs_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/checkspec"
	"github.com/wasmeval/wasmeval/engine/frontend/taskspecs"
	"github.com/wasmeval/wasmeval/engine/problem"
)

var emptyModule = []byte("\x00asm\x01\x00\x00\x00")

func pin() string { s := sha256.Sum256(emptyModule); return hex.EncodeToString(s[:]) }

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, content := range files {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// functions stands for the plugin host's answer: the functions the bound
// evaluator declares in its describe.
func functions(ref *checkspec.PluginRef) ([]string, error) {
	return []string{"compare_csv", "compare_notebook_outputs", "compare_text_file"}, nil
}

const configYAML = "name: nb\nvm_home: /home/user\ntimeout: 120\nagent: {entry_file: agent.py}\nevaluators:\n  - {path: plugins/stdlib.wasm, sha256: %s}\n"

func TestLoadSpecs(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"wasmeval.yaml":       strings.Replace(configYAML, "%s", pin(), 1),
		"plugins/stdlib.wasm": string(emptyModule),
		"jupyter/t1/t1.json": `{"id": "t1", "snapshot": "jupyter", "instruction": "Run the notebook.", "source": "authors",
  "related_apps": ["jupyter"], "tags": ["notebook"], "action_number": 4, "proxy": false,
  "config": [
    {"func": "upload_file_to_vm", "arguments": {"local_path": "nb.ipynb", "remote_path": "/home/user/work/nb.ipynb"}},
    {"type": "upload_script_and_execute", "parameters": {"local_path": "prep.py", "remote_path": "prep.py"}},
    {"func": "execute", "arguments": {"command": ["ls", "-l"]}}
  ],
  "evaluation": {"func": "compare_notebook_outputs", "arguments": {"local_expected": "gold.ipynb", "vm_result": "/home/user/work/nb.ipynb", "strict": true}}}`,
		"jupyter/t1/nb.ipynb":   "{}",
		"jupyter/t1/prep.py":    "print(1)",
		"jupyter/t1/gold.ipynb": "{}",
		"sheets/t2/t2.json": `{"id": "t2", "instruction": "Fix the CSV.", "related_apps": ["libreoffice"], "tags": ["csv"],
  "evaluation": {"func": ["compare_csv", "compare_text_file"], "conj": "or",
    "result": [{"type": "vm_file", "path": "/home/user/out.csv", "dest": "out.csv"}, {"type": "vm_command_line", "command": ["cat", "out.csv"]}],
    "expected": [{"type": "cloud_file", "path": "gold.csv"}, {"type": "rule", "rules": {"expected": "a,b"}}],
    "options": [{"ignore_case": true}, {}],
    "postconfig": [{"func": "sleep", "arguments": {"seconds": 1}}]}}`,
		"sheets/t2/gold.csv": "a,b\n",
		"sheets/t3/t3.json":  `{"id": "t3", "instruction": "Do the impossible.", "tags": ["csv"], "evaluation": {"func": "infeasible"}}`,
	})
	s, err := taskspecs.Load(dir, taskspecs.Options{Functions: functions})
	if err != nil {
		t.Fatal(err)
	}
	p := s.Problem
	if p.Name != "nb" || p.Adapter.Type != problem.AdapterAgent || len(p.Checkpoints[0].Groups) != 2 ||
		p.Checkpoints[0].Groups[0].Name != "jupyter" || p.Checkpoints[0].Groups[1].Name != "sheets" {
		t.Fatalf("problem %+v groups %+v", p, p.Checkpoints[0].Groups)
	}
	cs := map[string]int{}
	for i, c := range s.Cases() {
		cs[c.ID] = i
	}
	all := s.Cases()
	t1, t2, t3 := all[cs["t1"]], all[cs["t2"]], all[cs["t3"]]
	if len(t1.Task.Setup) != 3 || t1.Task.Setup[0].Files[0].Path != "work/nb.ipynb" ||
		strings.Join(t1.Task.Setup[1].Command, " ") != "python3 prep.py" || strings.Join(t1.Task.Setup[2].Command, " ") != "ls -l" {
		t.Errorf("t1 setup: %+v", t1.Task.Setup)
	}
	ev := t1.Checks[0]
	if ev.Kind != "evaluators" || ev.Conj != "and" || len(ev.Calls) != 1 || ev.Calls[0].Function != "compare_notebook_outputs" {
		t.Fatalf("t1 checks %+v", t1.Checks)
	}
	args := ev.Calls[0].Arguments
	if r := args["result"].(map[string]any); r["type"] != "vm_file" || r["path"] != "work/nb.ipynb" {
		t.Errorf("result getter %v", args["result"])
	}
	if e := args["expected"].(map[string]any); e["type"] != "task_file" || e["path"] != "jupyter/t1/gold.ipynb" {
		t.Errorf("expected getter %v", args["expected"])
	}
	if o := args["options"].(map[string]any); o["strict"] != true {
		t.Errorf("options %v", args["options"])
	}
	if strings.Join(t1.TrackedFiles, " ") != "work/nb.ipynb" {
		t.Errorf("t1 tracked %v", t1.TrackedFiles)
	}
	if t1.Task.Category != "jupyter" || strings.Join(t1.Task.Tags, " ") != "notebook app:jupyter" || t1.Task.Metadata["action_number"] == nil {
		t.Errorf("t1 task %+v", t1.Task)
	}

	ev = t2.Checks[0]
	if ev.Conj != "or" || len(ev.Calls) != 2 || ev.Calls[1].Function != "compare_text_file" {
		t.Fatalf("t2 %+v", ev)
	}
	if r := ev.Calls[1].Arguments["result"].(map[string]any); r["type"] != "command_output" {
		t.Errorf("command getter %v", r)
	}
	if o := ev.Calls[0].Arguments["options"].(map[string]any); o["ignore_case"] != true {
		t.Errorf("aligned options %v", ev.Calls[0].Arguments)
	}
	if len(t2.Task.PostSetup) != 2 || strings.Join(t2.Task.PostSetup[0].Command, " ") != "sleep 1" || !strings.Contains(t2.Task.PostSetup[1].Command[2], "cat out.csv") {
		t.Errorf("t2 post-setup %+v", t2.Task.PostSetup)
	}
	// The captured command's output is the getter's value whatever its
	// exit status: a cat of a file the agent did not write captures
	// nothing, and the step succeeds.
	sandbox := t.TempDir()
	capture := exec.Command(t2.Task.PostSetup[1].Command[0], t2.Task.PostSetup[1].Command[1:]...)
	capture.Dir = sandbox
	if err := capture.Run(); err != nil {
		t.Errorf("the vm_command_line step failed with its command: %v", err)
	} else if data, err := os.ReadFile(filepath.Join(sandbox, t2.TrackedFiles[1])); err != nil || len(data) != 0 {
		t.Errorf("captured output %q (%v), want an empty file", data, err)
	}
	if c := t3.Checks[0]; c.Kind != "regex" || c.Attribute != "answer" {
		t.Errorf("infeasible: %+v", c)
	}
	if _, err := taskspecs.Load(dir, taskspecs.Options{Functions: functions, Apps: []string{"libreoffice"}}); err != nil {
		t.Fatal(err)
	}
	only, _ := taskspecs.Load(dir, taskspecs.Options{Functions: functions, Tags: []string{"notebook"}})
	if n := len(only.Cases()); n != 1 {
		t.Errorf("--tag notebook keeps %d tasks", n)
	}
}

// A malformed spec is reported by file and field, all at once.
func TestLoadSpecErrors(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"wasmeval.yaml":       strings.Replace(configYAML, "%s", pin(), 1),
		"plugins/stdlib.wasm": string(emptyModule),
		"a/x1/x1.json": `{"id": "x1", "instruction": "i", "colour": "red",
  "config": [{"func": "open_browser", "arguments": {}}, {"func": "upload_file_to_vm", "arguments": {"local_path": "missing.txt", "remote_path": "/etc/passwd"}}],
  "evaluation": {"func": "compare_pdfs", "arguments": {}}}`,
		"a/x2/x2.json": `{"id": "other", "instruction": 3,
  "evaluation": {"func": "compare_csv", "result": {"type": "vm_file"}, "expected": {"type": "cloud_file", "path": "../../../../secret"}}}`,
		"a/x3/x3.json": `{"id": "x3", "instruction": "i",
  "evaluation": {"func": "compare_csv", "result": "out.csv", "expected": {"type": "screenshot"}}}`,
		"a/x4/x4.json":           `not json`,
		"a/x7/x7.json":           "{\"id\": \"x7\", \"instruction\": \"a\",\n \"evaluation\": {\"func\": \"exact_match\"},\n \"evaluation\": {\"func\": \"other\"}}",
		"a/x8/x8.json":           `["a list"]`,
		"a/x9/x9.json":           `{"id": "x9", "instruction": "i", "config": [{"func": "upload_file", "arguments": {"files": [{"local_path": "nope.txt", "path": "/home/user/a.txt"}]}}], "evaluation": {"func": "compare_csv", "result": {"type": "vm_file", "path": "a"}, "expected": {"type": "rule", "rules": {}}}}`,
		"a/wrongname/other.json": `{"id": "other", "instruction": "a"}`,
		"a/x1/data.json":         `{"id": 1, "rows": []}`,
		"a/x5/x5.json":           `{"id": "x5", "instruction": "i", "evaluation": {"func": ["compare_csv", "compare_text_file"], "conj": "xor", "result": [{"type": "vm_file", "path": "a"}]}}`,
		// One getter for both functions, and a list with one per function.
		"a/x6/x6.json": `{"id": "x6", "instruction": "i", "evaluation": {"func": ["compare_csv", "compare_text_file"],
  "result": {"type": "vm_file"}, "expected": [{"type": "rule", "rules": "a"}, {"type": "screenshot"}]}}`,
	})
	_, err := taskspecs.Load(dir, taskspecs.Options{Functions: functions})
	if err == nil {
		t.Fatal("loaded")
	}
	f := func(rel string) string { return filepath.Join(dir, rel) }
	for _, want := range []string{
		f("a/x1/x1.json") + `: colour: unknown key "colour"`,
		f("a/x1/x1.json") + `: config[0].func: unknown setup function "open_browser"`,
		f("a/x1/x1.json") + `: config[1].arguments.local_path: file "missing.txt" does not exist in the task directory`,
		f("a/x1/x1.json") + `: config[1].arguments.remote_path: path "/etc/passwd" is outside the sandbox`,
		f("a/x1/x1.json") + `: evaluation.func: unknown evaluation function "compare_pdfs": no evaluator in wasmeval.yaml offers it (they offer: compare_csv, compare_notebook_outputs, compare_text_file)`,
		f("a/x2/x2.json") + `: instruction: expected a string, got a number (3)`,
		f("a/x2/x2.json") + `: id: id "other" differs from the task's directory "x2"`,
		f("a/x2/x2.json") + `: evaluation.result.path: malformed getter: a vm_file getter needs path`,
		f("a/x2/x2.json") + `: evaluation.expected.path: "../../../../secret" is outside the task directory`,
		f("a/x3/x3.json") + `: evaluation.result: malformed getter: expected an object with a type`,
		f("a/x3/x3.json") + `: evaluation.expected.type: unknown getter type "screenshot"`,
		f("a/x4/x4.json") + `:1: not JSON: invalid character`,
		f("a/x7/x7.json") + `:3: key "evaluation" given twice`,
		f("a/x8/x8.json") + `: not a task spec: expected one JSON object, got a list`,
		f("a/x9/x9.json") + `: config[0].arguments.files[0].local_path: file "nope.txt" does not exist`,
		f("a/wrongname/other.json") + `: a task spec is read from <tool>/<id>/<id>.json: rename it wrongname.json`,
		f("a/x5/x5.json") + `: evaluation.conj: expected "and" or "or"`,
		f("a/x5/x5.json") + `: evaluation.result: expected 2 items, one per function of func, got 1`,
		f("a/x6/x6.json") + `: evaluation.expected[1].type: unknown getter type "screenshot"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in\n%v", want, err)
		}
	}
	// A data file beside a spec is not one.
	if strings.Contains(err.Error(), "data.json") {
		t.Errorf("a data file beside a spec is reported:\n%v", err)
	}
	// The getter both functions share is reported once.
	if n := strings.Count(err.Error(), f("a/x6/x6.json")+`: evaluation.result.path: malformed getter`); n != 1 {
		t.Errorf("the shared getter's error is reported %d times, want once:\n%v", n, err)
	}
}

// Machine paths in commands are rewritten to the sandbox, so a spec's
// /home/user/... never names the host's own files.
func TestCommandsNameTheSandbox(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"wasmeval.yaml":       strings.Replace(configYAML, "%s", pin(), 1),
		"plugins/stdlib.wasm": string(emptyModule),
		"os/c1/c1.json": `{"id": "c1", "instruction": "i",
  "config": [{"func": "execute", "arguments": {"command": "mkdir -p /home/user/made && cp /home/user/a /home/username/b && cd /home/user"}},
             {"func": "execute", "arguments": {"command": ["touch", "/home/user/x.txt", "/x/home/user/y"]}}],
  "evaluation": {"func": "compare_csv", "result": {"type": "vm_command_line", "command": "cat /home/user/out.csv"}, "expected": {"type": "rule", "rules": {"expected": "a"}}}}`,
	})
	s, err := taskspecs.Load(dir, taskspecs.Options{Functions: functions})
	if err != nil {
		t.Fatal(err)
	}
	c := s.Cases()[0]
	if got := c.Task.Setup[0].Command[2]; got != "mkdir -p ./made && cp ./a /home/username/b && cd ." {
		t.Errorf("shell command: %q", got)
	}
	if got := strings.Join(c.Task.Setup[1].Command, " "); got != "touch ./x.txt /x/home/user/y" {
		t.Errorf("word command: %q", got)
	}
	if got := c.Task.PostSetup[0].Command[2]; !strings.Contains(got, "cat ./out.csv") {
		t.Errorf("getter command: %q", got)
	}
}
