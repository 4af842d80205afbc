package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/run/runtest"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// A verifier that traps, loops, runs out of memory or returns garbage on
// some cases fails exactly those cases, with a message naming the plugin,
// the export and the fault; every other case is unaffected, the run
// finishes and the summary counts the plugin errors.
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
	modes := []string{"ok", "trap", "ok", "loop", "oom", "badjson", "badenvelope", "ok"}
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
	h := runtest.Host(t, host.Options{Timeout: 4e9, MemoryBytes: 32 << 20})
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
	if s := res.Summaries[0]; s.PluginErrors != 5 || s.CasesPassed != 3 {
		t.Errorf("summary: plugin_errors=%d passed=%d", s.PluginErrors, s.CasesPassed)
	}
}
