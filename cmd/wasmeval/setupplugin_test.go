package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// A task spec's setup function that no built-in performs comes from a
// setup plugin: the plugin returns its actions (files to write, commands
// to run) and wasmeval performs them in the sandbox before the agent
// starts. The agent then finds the files, and the evaluation scores what
// it left.
func TestTaskSpecsSetupPlugin(t *testing.T) {
	tree := t.TempDir()
	plugins := filepath.Join(tree, "plugins")
	os.MkdirAll(plugins, 0o755)
	if err := pluginbuild.Build("../../engine/plugincall/testdata/setup", filepath.Join(plugins, "seeder.wasm")); err != nil {
		t.Fatal(err)
	}
	stdlib, err := os.ReadFile(notebookTasks + "/plugins/stdlib.wasm")
	if err != nil {
		t.Fatalf("the standard library is built by `task plugins`: %v", err)
	}
	os.WriteFile(filepath.Join(plugins, "stdlib.wasm"), stdlib, 0o644)
	pin := func(name string) string {
		d, _, err := host.Digest(filepath.Join(plugins, name))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	files := map[string]string{
		"wasmeval.yaml": "name: seeded\nagent:\n  entry_file: agent.sh\n  command: sh {entry_file}\n" +
			"evaluators:\n  - {path: plugins/stdlib.wasm, sha256: " + pin("stdlib.wasm") + "}\n" +
			"setup_plugins:\n  - {path: plugins/seeder.wasm, sha256: " + pin("seeder.wasm") + "}\n",
		"os/copy/copy.json": `{"id": "copy", "instruction": "Copy data/in.txt to out.txt.",
  "config": [{"func": "seed", "arguments": {"from": "in.txt"}}],
  "evaluation": {"func": "compare_text_file", "result": {"type": "vm_file", "path": "/home/user/out.txt"}, "expected": {"type": "local_file", "path": "in.txt"}}}`,
		"os/copy/in.txt": "alpha\nbeta\n",
		"os/refused/refused.json": `{"id": "refused", "instruction": "x",
  "config": [{"func": "refuse", "arguments": {}}],
  "evaluation": {"func": "compare_text_file", "result": {"type": "vm_file", "path": "out.txt"}, "expected": {"type": "local_file", "path": "in.txt"}}}`,
		"os/refused/in.txt": "x\n",
	}
	for rel, content := range files {
		p := filepath.Join(tree, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
	}
	// A refusal by the plugin is reported where the function is named.
	r := wasmeval(t, "validate", tree)
	if r.code != 2 || !strings.Contains(r.stderr, filepath.Join(tree, "os/refused/refused.json")+": config[0]: setup function refuse:") ||
		!strings.Contains(r.stderr, "cannot seed task refused") {
		t.Fatalf("validate: exit %d\n%s", r.code, r.stderr)
	}
	os.RemoveAll(filepath.Join(tree, "os/refused"))

	sub := t.TempDir()
	os.WriteFile(filepath.Join(sub, "agent.sh"), []byte(`cat > /dev/null
test -f done.flag && grep -q '^copy: ' manifest.txt && cp data/in.txt out.txt && echo '{"task_result": "copied"}'
`), 0o644)
	out := t.TempDir()
	r = wasmeval(t, "run", tree, "--submission", sub, "--out", out, "--progress", "none")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	wantOutcomes(t, byID(t, out), map[string]result.Outcome{"copy": result.OutcomePassed})
}
