package run

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/run/runtest"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pin"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// A verifier that traps, loops, runs out of memory, returns garbage or
// returns 20,000 attributes on some cases fails exactly those cases, with
// a message naming the plugin, the export and the fault; every other case
// is unaffected, the run finishes and the summary counts the plugin errors.
func TestMisbehavingPluginIsContained(t *testing.T) {
	dir := t.TempDir()
	wasm := filepath.Join(dir, "misbehave.wasm")
	if err := pluginbuild.Build("../../plugins/host/testdata/misbehave", wasm); err != nil {
		t.Fatal(err)
	}
	digest, _, err := host.Digest(wasm)
	if err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`name: faults
command: sh echo.sh
verifier: {type: plugin, path: misbehave.wasm, sha256: %s}
checkpoints:
  c1:
    groups:
      g: {type: Core}
`, digest)
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o644)
	modes := []string{"ok", "trap", "ok", "loop", "oom", "badjson", "badenvelope", "ok", "manyattrs, attributes: 20000"}
	var group strings.Builder
	for i, m := range modes {
		fmt.Fprintf(&group, "case%d: {order: %d, expected: {output: \"hi\\n\"}, extra: {mode: %s}}\n", i, i, m)
	}
	os.MkdirAll(filepath.Join(dir, "c1"), 0o755)
	os.WriteFile(filepath.Join(dir, "c1", "g.yaml"), []byte(group.String()), 0o644)
	sub := t.TempDir()
	os.WriteFile(filepath.Join(sub, "echo.sh"), []byte("echo hi\n"), 0o644)

	p, err := LoadProblem(dir)
	if err != nil {
		t.Fatal(err)
	}
	// A wide timeout: the loop case waits it out, and the other calls must
	// never reach it, however busy the machine.
	h := runtest.Host(t, host.Options{Timeout: 10e9, MemoryBytes: 32 << 20})
	out := t.TempDir()
	res, err := Run(context.Background(), Options{Problem: p, Submission: sub, OutDir: out,
		Runtime: local.New(local.Options{BaseDir: t.TempDir()}), Loader: BuiltinLoader, Plugins: h})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"case1": "export verify: trapped", "case3": "export verify: timed out",
		"case4": "export verify: memory limit reached", "case5": "export verify: returned invalid JSON",
		"case6": "export verify: returned a wrong envelope",
		// Not stored: the journal line stays small.
		"case8": "export verify: returned an oversized verdict: 20000 attributes in one verdict, at most 256 are accepted",
	}
	n := 0
	journal.Read(filepath.Join(out, journal.FileName), func(r *result.CaseRecord) error {
		n++
		fault, faulty := want[r.ID]
		switch {
		case faulty && (r.Passed || !strings.Contains(r.Result.PluginError, fault) || !strings.HasPrefix(r.Result.PluginError, "plugin misbehave@")):
			t.Errorf("%s: passed=%v plugin_error=%q, want a fault containing %q", r.ID, r.Passed, r.Result.PluginError, fault)
		case faulty && (len(r.Attributes) != 1 || r.Attributes[0].Attribute != "plugin:verifier" || r.Attributes[0].IsCorrect):
			t.Errorf("%s: attributes %+v", r.ID, r.Attributes)
		case !faulty && (!r.Passed || r.Result.PluginError != ""):
			t.Errorf("%s: an unaffected case must pass: %+v", r.ID, r)
		}
		return nil
	})
	if n != len(modes) {
		t.Fatalf("%d records, want %d: the run must finish", n, len(modes))
	}
	if data, _ := os.ReadFile(filepath.Join(out, journal.FileName)); len(data) > 64<<10 {
		t.Errorf("journal of %d bytes for %d cases", len(data), len(modes))
	}
	if s := res.Summaries[0]; s.PluginErrors != 6 || s.CasesPassed != 3 {
		t.Errorf("summary: plugin_errors=%d passed=%d", s.PluginErrors, s.CasesPassed)
	}
}

// A plugin named by one case file that is not a Wasm module at all (here
// a text file, pinned by its own digest) fails that case with a plugin
// error naming the file and the fault, the attribute it left without a
// verdict weighed as its check declared; the group's other cases pass and
// the summary counts one plugin error. (Plugins named in config files are
// loaded before the run and refused as configuration errors instead.)
func TestCasePluginThatIsNotWasmIsContained(t *testing.T) {
	dir := t.TempDir()
	notWasm := []byte("this is a README, not a module\n")
	os.WriteFile(filepath.Join(dir, "notes.wasm"), notWasm, 0o644)
	digest := pin.Digest(notWasm)
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("name: notwasm\ncommand: sh echo.sh\ncheckpoints:\n  c1:\n    groups:\n      g: {type: Core}\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "c1"), 0o755)
	os.WriteFile(filepath.Join(dir, "c1", "g.yaml"), []byte(fmt.Sprintf(`a: {order: 1, expected: {output: "hi\n"}}
b:
  order: 2
  expected: {output: "hi\n"}
  checks:
    - kind: text
    - {kind: evaluator, function: f, weight: 3, plugin: {path: notes.wasm, sha256: %s}}
c: {order: 3, expected: {output: "hi\n"}}
`, digest)), 0o644)
	sub := t.TempDir()
	os.WriteFile(filepath.Join(sub, "echo.sh"), []byte("echo hi\n"), 0o644)
	p, err := LoadProblem(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	res, err := Run(context.Background(), Options{Problem: p, Submission: sub, OutDir: out,
		Runtime: local.New(local.Options{BaseDir: t.TempDir()}), Loader: BuiltinLoader, Plugins: runtest.Host(t, host.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*result.CaseRecord{}
	journal.Read(filepath.Join(out, journal.FileName), func(r *result.CaseRecord) error { got[r.ID] = r; return nil })
	if len(got) != 3 || !got["a"].Passed || !got["c"].Passed {
		t.Fatalf("the other cases must run and pass: %+v", got)
	}
	b := got["b"]
	if b.Outcome != result.OutcomeError || b.ErrorKind != result.ErrorPlugin {
		t.Errorf("b: outcome %s (%s), want error (plugin): the plugin's fault, not the submission's answer", b.Outcome, b.ErrorKind)
	}
	if b.Passed || !strings.Contains(b.Result.PluginError, "plugin notes.wasm@"+digest[:12]+": not a Wasm module") {
		t.Errorf("b: passed=%v plugin_error=%q", b.Passed, b.Result.PluginError)
	}
	if len(b.Attributes) != 2 || !b.Attributes[0].IsCorrect || b.Attributes[1].Attribute != "evaluator:f" || b.Attributes[1].IsCorrect {
		t.Errorf("b: attributes %+v", b.Attributes)
	}
	// The attribute the fault left without a verdict weighs what its check
	// declared: the text check's 1 of 1 + 3.
	if len(b.Attributes) == 2 && (b.Attributes[1].Weight != 3 || b.Score != 0.25) {
		t.Errorf("b: the faulted evaluator weighs %v and the case scores %v; want 3 and 0.25", b.Attributes[1].Weight, b.Score)
	}
	if s := res.Summaries[0]; s.PluginErrors != 1 || s.CasesPassed != 2 || s.CasesErrored != 1 || s.CasesFailed != 0 {
		t.Errorf("summary: plugin_errors=%d passed=%d", s.PluginErrors, s.CasesPassed)
	}
}

// A case file binds plugins by paths that lead out of the problem: up with
// `..`, absolute, and through a symlink inside the problem. None of them is
// read (the file is a text pinned by its own digest, so reading it would
// say "not a Wasm module"): each such case ends in a plugin error naming
// the path and where it may lie, and the group's other case passes. Under
// a --mount-root that holds the file, the same bindings are allowed.
func TestCasePluginOutsideTheProblemIsNotRead(t *testing.T) {
	parent := t.TempDir()
	dir, outside := filepath.Join(parent, "problem"), filepath.Join(parent, "outside")
	os.MkdirAll(filepath.Join(dir, "c1"), 0o755)
	os.MkdirAll(outside, 0o755)
	notWasm := []byte("a file of this machine, not the problem's\n")
	file := filepath.Join(outside, "notes.wasm")
	os.WriteFile(file, notWasm, 0o644)
	if err := os.Symlink(file, filepath.Join(dir, "link.wasm")); err != nil {
		t.Fatal(err)
	}
	digest := pin.Digest(notWasm)
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("name: outside\ncommand: sh echo.sh\ncheckpoints:\n  c1:\n    groups:\n      g: {type: Core}\n"), 0o644)
	bind := func(id string, order int, path string) string {
		return fmt.Sprintf("%s:\n  order: %d\n  expected: {output: \"hi\\n\"}\n  checks:\n    - kind: text\n    - {kind: evaluator, function: f, plugin: {path: %q, sha256: %s}}\n", id, order, path, digest)
	}
	os.WriteFile(filepath.Join(dir, "c1", "g.yaml"), []byte(`a: {order: 1, expected: {output: "hi\n"}}
`+bind("up", 2, "../outside/notes.wasm")+bind("absolute", 3, file)+bind("symlink", 4, "link.wasm")), 0o644)
	h := runtest.Host(t, host.Options{})

	run := func(mountRoots ...string) map[string]*result.CaseRecord {
		t.Helper()
		p, err := LoadProblemWith(dir, LoadOptions{MountRoots: mountRoots})
		if err != nil {
			t.Fatal(err)
		}
		got := runEcho(t, p, h)
		if len(got) != 4 || got["a"] == nil || !got["a"].Passed {
			t.Fatalf("the case that binds no plugin must run and pass: %+v", got)
		}
		return got
	}

	// Validation (which `run` does first) names each binding where it is
	// written; the run itself refuses the file too, for cases known only
	// once a run has results (a stateful loader's).
	p, err := LoadProblem(dir)
	if err != nil {
		t.Fatal(err)
	}
	verr := Validate(context.Background(), p, BuiltinLoader, h)
	for _, want := range []string{
		`g.yaml: checks[1].plugin.path: plugin file: path "../outside/notes.wasm" is outside the problem directory`,
		`g.yaml: checks[1].plugin.path: plugin file: path "link.wasm" leads outside the problem directory through a symlink`,
		fmt.Sprintf("g.yaml: checks[1].plugin.path: plugin file: path %q is outside", file),
	} {
		if verr == nil || !strings.Contains(verr.Error(), want) {
			t.Errorf("validation: %v; want it to say %q", verr, want)
		}
	}

	got := run()
	for id, want := range map[string]string{
		"up":       `plugin ../outside/notes.wasm: path "../outside/notes.wasm" is outside the problem directory`,
		"absolute": fmt.Sprintf("plugin %s: path %q is outside the problem directory", file, file),
		"symlink":  `plugin link.wasm: path "link.wasm" leads outside the problem directory through a symlink`,
	} {
		r := got[id]
		if r.Outcome != result.OutcomeError || r.Passed {
			t.Errorf("%s: outcome %s, passed %v; want an error: the binding is the problem's fault, not the submission's", id, r.Outcome, r.Passed)
		}
		if msg := r.Result.PluginError + r.Result.Error; !strings.Contains(msg, want) || strings.Contains(msg, "not a Wasm module") {
			t.Errorf("%s: error %q; want it to contain %q, and the file not read", id, msg, want)
		}
	}

	// Allowed by the user: each binding reaches the file (and finds it is
	// not a module).
	got = run(outside)
	for _, id := range []string{"up", "absolute", "symlink"} {
		if msg := got[id].Result.PluginError; !strings.Contains(msg, "not a Wasm module") {
			t.Errorf("%s under --mount-root %s: plugin error %q; want the file read and refused as not a module", id, outside, msg)
		}
	}
}

// What validation (and so `run`, before anything starts) finds wrong with
// the plugin bindings a case file writes, each at the case file and key,
// as for the problem's own bindings: a missing file, a wrong or missing
// pin, a file that is not a module, no path, name or ref, or two of them,
// and a function the plugin does not have.
// And a case that binds a module another binding loaded, with another
// pin, is refused at run time too, not handed the module loaded first.
func TestCasePluginBindingsAreCheckedAsTheProblemsAre(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "c1"), 0o755)
	os.MkdirAll(filepath.Join(dir, "plugins"), 0o755)
	wasm := filepath.Join(dir, "plugins", "misbehave.wasm")
	if err := pluginbuild.Build("../../plugins/host/testdata/misbehave", wasm); err != nil {
		t.Fatal(err)
	}
	digest, _, err := host.Digest(wasm)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "notes.wasm"), []byte("not a module\n"), 0o644)
	other := strings.Repeat("ab", 32)
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("name: bindings\ncommand: sh echo.sh\ncheckpoints:\n  c1:\n    groups:\n      g: {type: Core}\n"), 0o644)
	bind := func(id string, order int, plugin string) string {
		return fmt.Sprintf("%s:\n  order: %d\n  expected: {output: \"hi\\n\"}\n  checks:\n    - kind: text\n    - {kind: evaluator, function: f, plugin: %s}\n", id, order, plugin)
	}
	cases := map[string]string{
		"missing":  "{path: plugins/nope.wasm, sha256: " + digest + "}",
		"wrongpin": "{path: plugins/misbehave.wasm, sha256: " + other + "}",
		"nopin":    "{path: plugins/misbehave.wasm}",
		"notwasm":  "{path: notes.wasm, sha256: " + digest + "}",
		"none":     "{sha256: " + digest + "}",
		"two":      "{path: plugins/misbehave.wasm, name: misbehave, sha256: " + digest + "}",
		// A good binding, and a function the plugin lacks (bind uses f).
		"nofn": "{path: plugins/misbehave.wasm, sha256: " + digest + "}",
	}
	var text strings.Builder
	order := 0
	for _, id := range slices.Sorted(maps.Keys(cases)) {
		order++
		text.WriteString(bind(id, order, cases[id]))
	}
	os.WriteFile(filepath.Join(dir, "c1", "g.yaml"), []byte(text.String()), 0o644)
	p, err := LoadProblem(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := runtest.Host(t, host.Options{})
	verr := Validate(context.Background(), p, BuiltinLoader, h)
	at := filepath.Join(dir, "c1", "g.yaml") + ": checks[1].plugin."
	for _, want := range []string{
		at + "path: plugin file: " + `"plugins/nope.wasm" not found`,
		at + "sha256: plugin " + wasm + " has sha256 " + digest + ", not the pinned " + other + "; refusing to run it",
		at + "sha256: required: plugins are pinned by digest; this file's is " + digest,
		at + "path: evaluator notes.wasm is not WebAssembly",
		"checks[1].plugin: a plugin needs a path (relative to the problem), a name",
		"checks[1].plugin: give the plugin's path, its name or its ref, only one of them",
		at[:len(at)-len("plugin.")] + `function: plugin misbehave@` + digest[:12] + ` has no function "f" (its functions: echo)`,
	} {
		if verr == nil || !strings.Contains(verr.Error(), want) {
			t.Errorf("validation: %v\nwant it to say %q", verr, want)
		}
	}

	// At run time (as for the cases a stateful loader makes later): a
	// case that pins another digest for a file a case before it loaded
	// is refused, not run with the module loaded first.
	os.WriteFile(filepath.Join(dir, "c1", "g.yaml"), []byte(bind("first", 1, "{path: plugins/misbehave.wasm, sha256: "+digest+"}")+
		bind("second", 2, "{path: plugins/misbehave.wasm, sha256: "+other+"}")), 0o644)
	if p, err = LoadProblem(dir); err != nil {
		t.Fatal(err)
	}
	second := runEcho(t, p, h)["second"]
	if second == nil || second.Outcome != result.OutcomeError || !strings.Contains(second.Result.PluginError, "config pins sha256 "+other) {
		t.Errorf("second: %+v; want a plugin error: its pin is not the module's", second)
	}
}

// runEcho runs p with a submission that prints "hi" on the local runtime
// and returns the journal's records by case ID.
func runEcho(t *testing.T, p *problem.Problem, h *host.Host) map[string]*result.CaseRecord {
	t.Helper()
	sub := t.TempDir()
	os.WriteFile(filepath.Join(sub, "echo.sh"), []byte("echo hi\n"), 0o644)
	out := t.TempDir()
	if _, err := Run(context.Background(), Options{Problem: p, Submission: sub, OutDir: out,
		Runtime: local.New(local.Options{BaseDir: t.TempDir()}), Loader: BuiltinLoader, Plugins: h}); err != nil {
		t.Fatal(err)
	}
	got := map[string]*result.CaseRecord{}
	journal.Read(filepath.Join(out, journal.FileName), func(r *result.CaseRecord) error { got[r.ID] = r; return nil })
	return got
}
