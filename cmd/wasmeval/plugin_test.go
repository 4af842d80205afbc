package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/pin"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

func TestPluginInspectAndCall(t *testing.T) {
	wasm := filepath.Join(example, "plugins", "inventory-evaluator.wasm")
	r := wasmeval(t, "plugin", "inspect", wasm)
	if r.code != 0 {
		t.Fatalf("inspect: %d %s", r.code, r.stderr)
	}
	for _, want := range []string{"sha256:   ", "size:     ", "name:     inventory-evaluator 1.0.0", "abi:      1", "kinds:    evaluator",
		"exports:  describe, evaluate, evaluate_batch", "functions: compare_csv, row_count", `"transport": "native"`,
		"transport: native\n", "batches:  evaluate\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, r.stdout)
		}
	}
	in := `{"abi_version":1,"config":{},"function":"compare_csv","arguments":{"path":"a.csv"},` +
		`"actual":{"status_code":0,"output":"","stderr":"","files":{"a.csv":"x,y\n1,2\n"}},"expected":{"files":{"a.csv":"x,y\n1,3\n"}}}`
	r = wasmeval(t, "plugin", "call", wasm, "evaluate", "--input", in)
	if r.code != 0 || !strings.Contains(r.stdout, `"score":0.5`) || !strings.Contains(r.stdout, `"mismatched_rows":[2]`) {
		t.Fatalf("call: %d %s %s", r.code, r.stdout, r.stderr)
	}
	// The batch form answers each call as the call alone, and its input
	// is checked against the batch schema first.
	r = wasmeval(t, "plugin", "call", wasm, "evaluate_batch", "--input", `{"abi_version":1,"calls":[`+in+`,`+strings.Replace(in, "compare_csv", "nope", 1)+`]}`)
	if r.code != 0 || !strings.Contains(r.stdout, `{"call":0,"output":{`) || !strings.Contains(r.stdout, `"score":0.5`) ||
		!strings.Contains(r.stdout, `{"call":1,"output":{`) || !strings.Contains(r.stdout, `unknown function \"nope\"`) {
		t.Fatalf("call evaluate_batch: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if r = wasmeval(t, "plugin", "call", wasm, "evaluate_batch", "--input", `{"abi_version":1}`); r.code == 0 || !strings.Contains(r.stderr, "batch_input") {
		t.Errorf("a batch input without calls: %d %s %s", r.code, r.stdout, r.stderr)
	}
	f := filepath.Join(t.TempDir(), "in.json")
	os.WriteFile(f, []byte(strings.Replace(in, "compare_csv", "nope", 1)), 0o644)
	r = wasmeval(t, "plugin", "call", wasm, "evaluate", "--input", "@"+f)
	if r.code != 0 || !strings.Contains(r.stdout, `unknown function \"nope\"`) {
		t.Fatalf("call @file: %d %s %s", r.code, r.stdout, r.stderr)
	}
	// Bad input is a usage error, not a stack trace.
	for _, args := range [][]string{
		{"plugin", "call", wasm, "evaluate", "--input", "{not json"},
		{"plugin", "inspect", filepath.Join(example, "config.yaml")},
		{"plugin", "inspect", "/no/such.wasm"},
		{"plugin", "inspect", wasm, "--plugin-memory", "8192"},
		{"plugin", "inspect", wasm, "--plugin-timeout", "500us"},
	} {
		r = wasmeval(t, args...)
		if r.code != 2 || strings.Contains(r.stderr, "goroutine") {
			t.Errorf("%v: exit %d, stderr %s", args, r.code, r.stderr)
		}
	}
	for flag, want := range map[string]string{
		"--plugin-memory=8192":   "--plugin-memory 8192: expected from 1 to 4096 MiB",
		"--plugin-timeout=500us": "--plugin-timeout 500µs: expected at least 1ms",
	} {
		if r := wasmeval(t, "plugin", "inspect", wasm, flag); !strings.Contains(r.stderr, want) {
			t.Errorf("%s: stderr %q lacks %q", flag, r.stderr, want)
		}
	}
	// An export the plugin lacks is named with the ones it has; an input
	// that is not the export's envelope is sent anyway, with a warning.
	if r := wasmeval(t, "plugin", "call", wasm, "verify", "--input", "{}"); r.code != 2 || !strings.Contains(r.stderr, `has no export "verify" (its exports: describe, evaluate, evaluate_batch)`) {
		t.Errorf("unknown export: exit %d, stderr %s", r.code, r.stderr)
	}
	r = wasmeval(t, "plugin", "call", wasm, "evaluate", "--input", `{"function":3}`)
	if !strings.Contains(r.stderr, "warning: the input does not match the evaluate_input schema: at '/': missing properties 'abi_version', 'config', 'arguments'; at '/function': got number, want string") ||
		!strings.Contains(r.stderr, "invalid input: $.function is a number, expected a string") {
		t.Errorf("bad envelope: exit %d, stderr %s", r.code, r.stderr)
	}
	if r := wasmeval(t, "plugin", "inspect", filepath.Join(example, "config.yaml")); !strings.Contains(r.stderr, "not a Wasm module") {
		t.Errorf("a YAML file as plugin: %s", r.stderr)
	}
}

// A problem whose plugin changed since it was pinned is refused before
// anything runs, naming the file, the key and both digests.
func TestChangedPluginIsRefused(t *testing.T) {
	dir := t.TempDir()
	cfg := `name: p
command: "true"
verifier: {type: plugin, path: v.wasm, sha256: 0000000000000000000000000000000000000000000000000000000000000000}
checkpoints:
  c1:
    groups: {g: {type: Core}}
`
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o644)
	data, err := os.ReadFile(filepath.Join(example, "plugins", "inventory-verifier.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "v.wasm"), data, 0o644)
	os.MkdirAll(filepath.Join(dir, "c1", "g", "a"), 0o755)
	os.WriteFile(filepath.Join(dir, "c1", "g", "a", "case.yaml"), []byte("{}\n"), 0o644)
	r := wasmeval(t, "validate", dir)
	if r.code != 2 || !strings.Contains(r.stderr, "config.yaml:3: verifier.sha256: plugin") || !strings.Contains(r.stderr, "refusing to run it") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
}

// What a plugin logs during a run lands in the run directory's run.log,
// with the plugin's name and level, in both isolation modes. The runs
// skip the verdict cache: a call it answers is not made, and logs nothing.
func TestPluginLogsReachRunLog(t *testing.T) {
	dir := t.TempDir()
	wasm := filepath.Join(dir, "misbehave.wasm")
	if err := pluginbuild.Build("../../plugins/host/testdata/misbehave", wasm); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	cfg := "name: logs\ncommand: sh echo.sh\nverifier: {path: misbehave.wasm, sha256: " + pin.Digest(data) + ", config: {mode: log}}\n" +
		"checkpoints:\n  c1:\n    groups:\n      g: {type: Core}\n"
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o644)
	os.MkdirAll(filepath.Join(dir, "c1"), 0o755)
	os.WriteFile(filepath.Join(dir, "c1", "g.yaml"), []byte("first: {order: 1, expected: {output: \"hi\\n\"}}\nsecond: {order: 2, expected: {output: \"hi\\n\"}}\n"), 0o644)
	sub := t.TempDir()
	os.WriteFile(filepath.Join(sub, "echo.sh"), []byte("echo hi\n"), 0o644)
	for _, iso := range []string{"auto", "process", "inprocess"} {
		out := filepath.Join(t.TempDir(), "run")
		if r := wasmeval(t, "run", dir, "--submission", sub, "--out", out, "--plugin-isolation", iso, "--no-cache"); r.code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", iso, r.code, r.stdout, r.stderr)
		}
		log, _ := os.ReadFile(filepath.Join(out, "run.log"))
		for _, id := range []string{"first", "second"} {
			if !strings.Contains(string(log), "plugin misbehave info: checked case "+id+"\n") {
				t.Errorf("%s: run.log lacks case %s's plugin log line:\n%s", iso, id, log)
			}
		}
	}
}
