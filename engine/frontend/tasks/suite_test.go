package tasks_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/frontend/tasks"
	"github.com/wasmeval/wasmeval/engine/problem"
)

// emptyModule is the smallest valid Wasm module: enough for a binding
// to be found and pinned (nothing here runs it).
var emptyModule = []byte("\x00asm\x01\x00\x00\x00")

func digest(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, content := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadSuite(t *testing.T) {
	pin := digest(emptyModule)
	dir := writeTree(t, map[string]string{
		"wasmeval.yaml":                "name: demo\nagent:\n  entry_file: agent.py\n  command: python3 {entry_file}\ntimeout: 90\ntest:\n  path: plugins/check.wasm\n  sha256: " + pin + "\n  config: {word: x, keep: 1}\n",
		"plugins/check.wasm":           string(emptyModule),
		"b-task/task.yaml":             "instruction: Count the files.\ncategory: files\ntags: [fs]\nmax_iterations: 5\ntest_config: {word: three}\nmetadata: {hint: ls}\n",
		"b-task/workspace/one.txt":     "1",
		"b-task/workspace/sub/two.txt": "2",
		"a-task/task.yaml":             "name: alpha\ninstruction: Say hi.\ntimeout: 5\ntest:\n  path: own.wasm\n  sha256: " + pin + "\n",
		"a-task/own.wasm":              string(emptyModule),
		"not-a-task/README":            "shared files",
	})
	s, err := tasks.Load(dir, tasks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := s.Problem
	if p.Name != "demo" || p.Adapter.Type != problem.AdapterAgent || p.EntryFile != "agent.py" || p.Command != "python3 {entry_file}" || p.TimeoutOutcome != problem.TimeoutErrors {
		t.Errorf("problem: %+v", p)
	}
	if len(p.Checkpoints) != 1 || len(p.Checkpoints[0].Groups) != 1 || !p.Checkpoints[0].Groups[0].Isolated {
		t.Fatalf("checkpoints: %+v", p.Checkpoints)
	}
	if len(s.Tasks) != 2 || s.Tasks[0].ID != "alpha" || s.Tasks[1].ID != "b-task" {
		t.Fatalf("tasks in name order: %+v", s.Tasks)
	}
	a, b := s.Tasks[0], s.Tasks[1]
	if a.Timeout != 5*time.Second || b.Timeout != 90*time.Second {
		t.Errorf("timeouts %v %v", a.Timeout, b.Timeout)
	}
	if got := a.Checks[0].Plugin.Path; got != filepath.Join(dir, "a-task", "own.wasm") {
		t.Errorf("a task's own test function resolves beside its task.yaml: %s", got)
	}
	if cfg := b.Checks[0].Plugin.Config; cfg["word"] != "three" || cfg["keep"] != json.Number("1") {
		t.Errorf("test_config merges over the suite's config: %v", cfg)
	}
	if b.Task.Instruction != "Count the files." || b.Task.Category != "files" || b.Task.Metadata["max_iterations"] != 5 || b.Task.Metadata["hint"] != "ls" {
		t.Errorf("task: %+v", b.Task)
	}
	var paths []string
	for _, f := range b.InputFiles {
		paths = append(paths, f.Path)
	}
	if strings.Join(paths, " ") != "one.txt sub/two.txt" {
		t.Errorf("workspace files: %v", paths)
	}
	if p.Digest == "" {
		t.Error("no digest of the suite's files")
	}
}

// Bad input is reported all at once, each naming the file, the key and
// what was expected; nothing is silently passed.
func TestLoadSuiteErrors(t *testing.T) {
	pin := digest(emptyModule)
	dir := writeTree(t, map[string]string{
		"wasmeval.yaml":         "agent:\n  arguments: [--port]\ntimeout: -1\nretries: 3\n",
		"python-only/task.yaml": "instruction: Do it.\n",
		"python-only/test.py":   "def test(result): return True\n",
		"no-test/task.yaml":     "instruction: Do it.\n",
		"typo/task.yaml":        "instrction: Do it.\ntest: {path: t.wasm, sha256: " + pin + "}\n",
		"typo/t.wasm":           string(emptyModule),
		"wrong-type/task.yaml":  "instruction: [a, b]\ntags: fs\ntest: {path: t.wasm, sha256: " + pin + "}\n",
		"wrong-type/t.wasm":     string(emptyModule),
		"bad-pin/task.yaml":     "instruction: x\ntest: {path: t.wasm, sha256: " + strings.Repeat("0", 64) + "}\n",
		"bad-pin/t.wasm":        string(emptyModule),
		"escape/task.yaml":      "instruction: x\ntest: {path: ../../outside.wasm, sha256: " + pin + "}\n",
		"not-wasm/task.yaml":    "instruction: x\ntest: {path: test.py, sha256: " + pin + "}\n",
		"not-wasm/test.py":      "print(1)\n",
		"yml/task.yml":          "instruction: x\n",
		"capital/Task.yaml":     "instruction: x\n",
		"grp/deep/task.yaml":    "instruction: x\n",
		"images/logo.txt":       "not a task\n",
	})
	_, err := tasks.Load(dir, tasks.Options{})
	if err == nil {
		t.Fatal("loaded")
	}
	msg := err.Error()
	if strings.Contains(msg, filepath.Join(dir, "wrong-type", "task.yaml")+": instruction: required") {
		t.Errorf("an instruction of the wrong type is also called missing:\n%s", msg)
	}
	for _, want := range []string{
		filepath.Join(dir, "wasmeval.yaml") + `:4: retries: unknown key "retries"`,
		filepath.Join(dir, "wasmeval.yaml") + ": timeout: expected a positive number of seconds, got -1",
		"agent: arguments and health_check configure an agent served over HTTP",
		filepath.Join(dir, "python-only", "task.yaml") + ": test: this task ships test.py, a Python test function",
		filepath.Join(dir, "no-test", "task.yaml") + ": test: no test function: bind one with",
		filepath.Join(dir, "typo", "task.yaml") + `:1: instrction: unknown key "instrction"`,
		filepath.Join(dir, "typo", "task.yaml") + ": instruction: required",
		filepath.Join(dir, "wrong-type", "task.yaml") + ":1: instruction: expected a string, got a list",
		filepath.Join(dir, "wrong-type", "task.yaml") + ":2: tags: expected a list",
		"bad-pin", "refusing to run it",
		filepath.Join(dir, "escape", "task.yaml") + ": test.path: plugin file",
		"outside the problem directory",
		filepath.Join(dir, "not-wasm", "task.yaml") + ": test.path",
		// Tasks that would be left out without a word.
		filepath.Join(dir, "yml", "task.yml") + ": a task's file is named task.yaml exactly",
		filepath.Join(dir, "capital", "Task.yaml") + ": a task's file is named task.yaml exactly",
		filepath.Join(dir, "grp", "deep", "task.yaml") + ": a task one level too deep is left out",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing %q in:\n%s", want, msg)
		}
	}
}

func TestIsSuite(t *testing.T) {
	one := writeTree(t, map[string]string{"task.yaml": "instruction: x\n"})
	many := writeTree(t, map[string]string{"t/task.yaml": "instruction: x\n"})
	none := writeTree(t, map[string]string{"config.yaml": "name: p\n"})
	if !tasks.Is(one) || !tasks.Is(many) || tasks.Is(none) || tasks.Is(filepath.Join(one, "task.yaml")) {
		t.Error("Is")
	}
	s, err := tasks.Load(one, tasks.Options{})
	if err == nil || !strings.Contains(err.Error(), "no test function") {
		t.Fatalf("a single task without a test: %v %v", s, err)
	}
}

// oneRef resolves one reference to one file, as a lock would.
type oneRef struct{ ref, path string }

func (o oneRef) Resolve(ref, sha256 string) (string, error) {
	if ref != o.ref {
		return "", fmt.Errorf("%s: not in wasmeval.lock", ref)
	}
	return o.path, nil
}

// A suite's test function may be bound by reference; the resolver the
// caller gives finds it, and the pin is checked as for a path.
func TestLoadSuiteTestByRef(t *testing.T) {
	pin := digest(emptyModule)
	cached := filepath.Join(t.TempDir(), "blob")
	os.WriteFile(cached, emptyModule, 0o644)
	const ref = "oci://registry.example/team/check:1"
	dir := writeTree(t, map[string]string{
		"wasmeval.yaml":    "name: demo\nagent:\n  entry_file: agent.py\n  command: python3 {entry_file}\ntest:\n  ref: " + ref + "\n  sha256: " + pin + "\n",
		"a-task/task.yaml": "instruction: Say hi.\n",
		"b-task/task.yaml": "instruction: Say bye.\ntest: {ref: 'oci://registry.example/team/other:2', sha256: " + pin + "}\n",
	})
	_, err := tasks.Load(dir, tasks.Options{Refs: oneRef{ref, cached}})
	if err == nil || !strings.Contains(err.Error(), "b-task/task.yaml") || !strings.Contains(err.Error(), "test.ref: oci://registry.example/team/other:2: not in wasmeval.lock") {
		t.Fatalf("an unlocked reference: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "b-task/task.yaml"), []byte("instruction: Say bye.\n"), 0o644)
	s, err := tasks.Load(dir, tasks.Options{Refs: oneRef{ref, cached}})
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range s.Tasks {
		if p := task.Checks[0].Plugin; p.Path != cached || p.Ref != ref || p.SHA256 != pin {
			t.Errorf("%s: test function %+v", task.ID, p)
		}
	}
}
