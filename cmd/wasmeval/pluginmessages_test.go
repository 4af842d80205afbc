package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pin"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

var misbehave struct {
	once sync.Once
	path string
	err  error
}

// misbehaveWasm builds the host's misbehaving test plugin once for the
// tests of this package that need a plugin doing the wrong thing.
func misbehaveWasm(t *testing.T) string {
	t.Helper()
	misbehave.once.Do(func() {
		// Beside the binary TestMain built, in the directory it removes.
		misbehave.path = filepath.Join(filepath.Dir(binary), "misbehave.wasm")
		misbehave.err = pluginbuild.Build("../../plugins/host/testdata/misbehave", misbehave.path)
	})
	if misbehave.err != nil {
		t.Fatal(misbehave.err)
	}
	return misbehave.path
}

func verifyInput(mode string) string {
	return `{"abi_version":1,"config":{"mode":"` + mode + `"},"case":{"id":"a"},"actual":{"status_code":0,"output":"","stderr":""},"expected":{}}`
}

// An output that violates its envelope's schema fails plugin call, as its
// help says, with each violation worded for the author.
func TestPluginCallRefusesOutputOutsideItsEnvelope(t *testing.T) {
	r := wasmeval(t, "plugin", "call", misbehaveWasm(t), "verify", "--input", verifyInput("badenvelope"))
	want := "the verify output does not match the verify_output schema: at '/attributes/0': missing property 'weight'; " +
		"at '/attributes/0/attribute': is empty, expected a non-empty string; at '/attributes/0/is_correct': got string, want boolean"
	if r.code != 1 || !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, "warning") {
		t.Errorf("exit %d, stderr %q, want exit 1 and %q", r.code, r.stderr, want)
	}
	if !strings.Contains(r.stdout, `"is_correct": "yes"`) {
		t.Errorf("the output is not printed for the author to read: %q", r.stdout)
	}
}

// What a verifier's user sees in a case's fault: a verdict with no
// attributes is a plugin fault saying so (not a silent score of 0); a
// panic after megabytes of stderr is quoted, not the start of the noise;
// and weights are relative, so a weight of 7 still scores in 0–1.
func TestVerifierFaultsSayWhatHappened(t *testing.T) {
	module, err := os.ReadFile(misbehaveWasm(t))
	if err != nil {
		t.Fatal(err)
	}
	prob := writeTree(t, map[string]string{
		"misbehave.wasm": string(module),
		"config.yaml": "name: verified\ncommand: sh main.sh\n" +
			"verifier: {type: plugin, path: misbehave.wasm, sha256: " + pin.Digest(module) + "}\n" +
			"checkpoints:\n  c1:\n    groups:\n      core: {type: Core}\n",
		"c1/core.yaml": `empty: {order: 1, expected: {output: "hi\n"}, extra: {mode: noattrs}}
flood: {order: 2, expected: {output: "hi\n"}, extra: {mode: floodpanic}}
heavy: {order: 3, expected: {output: "hi\n"}, extra: {mode: bigweight}}
`,
	})
	sub := writeTree(t, map[string]string{"main.sh": "echo hi\n"})
	out := filepath.Join(t.TempDir(), "run")
	r := wasmeval(t, "run", prob, "--submission", sub, "--out", out)
	if r.code != 3 {
		t.Fatalf("exit %d, want 3 (inconclusive: two plugin faults)\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	recs := map[string]*result.CaseRecord{}
	for _, rec := range readJournal(t, out) {
		recs[rec.ID] = rec
	}
	for id, want := range map[string]string{
		"empty": "export verify: returned a wrong envelope: " + host.NoVerdictDetail,
		"flood": "export verify: trapped: wasm error: unreachable; plugin stderr: panic: gave up after case flood",
	} {
		rec := recs[id]
		if rec == nil || result.OutcomeOf(rec) != result.OutcomeError || !strings.Contains(rec.Result.PluginError, want) {
			t.Errorf("%s: got %+v, want an error of kind plugin with %q", id, rec, want)
		}
	}
	if rec := recs["heavy"]; rec == nil || !rec.Passed || rec.Score != 1 {
		t.Errorf("heavy: got %+v, want passed with score 1", rec)
	}
}

// An AssemblyScript module built without the SDK's abort handler imports
// env.abort: loading it names the import, what wasmeval provides and the
// flag that fixes the build, not the runtime's "module[env] not
// instantiated".
func TestPluginWithUnknownImportNamesItAndTheFix(t *testing.T) {
	wasm := filepath.Join(t.TempDir(), "noabort.wasm")
	if err := pluginbuild.BuildAssemblyScriptWith("../../plugins/conformance/assemblyscript/plugin.ts", wasm, "--use", "abort=~lib/builtins/abort"); err != nil {
		t.Fatal(err)
	}
	r := wasmeval(t, "plugin", "inspect", wasm)
	want := "imports what wasmeval does not provide: env.abort; wasmeval provides the modules wasi_snapshot_preview1, wasmeval only; " +
		"env.abort is AssemblyScript's runtime error handler: build with the SDK's, --use abort=~lib/@wasmeval/sdk/assembly/abort/abort/wasmevalAbort, as docs/sdk-assemblyscript.md says"
	if r.code != 2 || !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, "not instantiated") {
		t.Errorf("exit %d, stderr %q, want %q", r.code, r.stderr, want)
	}
}

// An AssemblyScript verifier built with the SDK's abort handler: a throw
// is quoted with its message, file and line; an allocation past the
// memory cap is the memory fault, not a bare "unreachable".
func TestAssemblyScriptFaultsAreExplained(t *testing.T) {
	wasm := filepath.Join(t.TempDir(), "asfaults.wasm")
	if err := pluginbuild.BuildAssemblyScript("../../plugins/host/testdata/asfaults/plugin.ts", wasm); err != nil {
		t.Fatal(err)
	}
	in := func(mode string) string {
		return `{"abi_version":1,"config":{"mode":"` + mode + `"},"case":{"id":"c7"},"actual":{"status_code":0,"output":"","stderr":""},"expected":{}}`
	}
	r := wasmeval(t, "plugin", "call", wasm, "verify", "--input", in("throw"))
	want := "export verify: trapped: wasm error: unreachable; plugin stderr: no expected output for case c7 (plugins/host/testdata/asfaults/plugin.ts:19:"
	if r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("throw: exit %d, stderr %q, want %q", r.code, r.stderr, want)
	}
	r = wasmeval(t, "plugin", "call", wasm, "verify", "--input", in("oom"), "--plugin-memory", "64")
	want = "export verify: memory limit reached: linear memory reached the 64 MiB cap (it was at "
	if r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("oom: exit %d, stderr %q, want %q", r.code, r.stderr, want)
	}
}

// A Rust verifier built with the SDK: a panic is quoted with its message
// and place (whose order depends on the rustc version) on both transports (the SDK's panic hook hands it to the host
// before the trap); an allocation past the memory cap is the memory fault.
func TestRustFaultsAreExplained(t *testing.T) {
	dir := t.TempDir()
	native, extism := filepath.Join(dir, "native.wasm"), filepath.Join(dir, "extism.wasm")
	if err := pluginbuild.BuildRust("../../plugins/host/testdata/rustfaults/lib.rs", native); err != nil {
		t.Fatal(err)
	}
	if err := pluginbuild.BuildRustExtism("../../plugins/host/testdata/rustfaults/lib.rs", extism); err != nil {
		t.Fatal(err)
	}
	in := func(mode string) string {
		return `{"abi_version":1,"config":{"mode":"` + mode + `"},"case":{"id":"c7"},"actual":{"status_code":0,"output":"","stderr":""},"expected":{}}`
	}
	for wasm, want := range map[string]string{
		native: "export verify: trapped: wasm error: unreachable; plugin stderr: panicked at ",
		extism: "export verify: trapped: wasm error: unreachable; plugin error: panicked at ",
	} {
		r := wasmeval(t, "plugin", "call", wasm, "verify", "--input", in("panic"))
		if r.code != 1 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "rustfaults/lib.rs:15:") ||
			!strings.Contains(r.stderr, "no expected output for case c7") {
			t.Errorf("%s panic: exit %d, stderr %q, want %q and the panic's place", filepath.Base(wasm), r.code, r.stderr, want)
		}
	}
	r := wasmeval(t, "plugin", "call", native, "verify", "--input", in("oom"), "--plugin-memory", "64")
	want := "export verify: memory limit reached: linear memory reached the 64 MiB cap (it was at "
	if r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("oom: exit %d, stderr %q, want %q", r.code, r.stderr, want)
	}
}

// A binding's config is checked against its plugin's config_schema; a
// plugin that declares none cannot have a misspelt key caught, so
// validate and run warn, naming the binding, and go on.
func TestConfigOfAPluginWithoutSchemaIsWarnedOf(t *testing.T) {
	module, err := os.ReadFile(misbehaveWasm(t))
	if err != nil {
		t.Fatal(err)
	}
	prob := writeTree(t, map[string]string{
		"misbehave.wasm": string(module),
		"config.yaml": "name: unchecked\ncommand: sh main.sh\n" +
			"verifier: {path: misbehave.wasm, sha256: " + pin.Digest(module) + ", config: {mood: log}}\n" +
			"checkpoints:\n  c1:\n    groups:\n      core: {type: Core}\n",
		"c1/core.yaml": "a: {order: 1, expected: {output: \"hi\\n\"}}\n",
	})
	want := "warning: " + filepath.Join(prob, "config.yaml") + ":3: verifier.config: plugin misbehave@"
	tail := "declares no config_schema, so its config keys (mood) cannot be checked: a misspelt key is ignored\n"
	r := wasmeval(t, "validate", prob)
	if r.code != 0 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, tail) {
		t.Errorf("validate: exit %d, stderr %q, want exit 0 and %q…%q", r.code, r.stderr, want, tail)
	}
	sub := writeTree(t, map[string]string{"main.sh": "echo hi\n"})
	r = wasmeval(t, "run", prob, "--submission", sub, "--out", filepath.Join(t.TempDir(), "run"))
	if r.code != 0 || strings.Count(r.stderr, tail) != 1 {
		t.Errorf("run: exit %d, stderr %q, want exit 0 and the warning once", r.code, r.stderr)
	}
}
