package run

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/run/runtest"
	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pin"
)

// Mistakes in a plugin binding that only the plugin can recognise are
// reported by validation, before anything runs, at the line that holds
// them: a config its config_schema refuses (a misspelt key, a wrong type,
// a missing key) and an evaluator function it does not have, named by an
// evaluator check or by a call of an evaluators check.
func TestBindingsAreCheckedAgainstThePlugin(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "inventory")
	if err := os.CopyFS(dir, os.DirFS(exampleDir)); err != nil {
		t.Fatal(err)
	}
	edit := func(file, old, new string) {
		t.Helper()
		p := filepath.Join(dir, file)
		data, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(data), old) {
			t.Fatalf("%s does not hold %q (%v)", file, old, err)
		}
		os.WriteFile(p, []byte(strings.Replace(string(data), old, new, 1)), 0o644)
	}
	edit("checkpoint_1/config.yaml", "tolerance: 0.005", "tolerence: 0.005")
	edit("checkpoint_1/config.yaml", "function: top_by_value", "function: top_by_valu")
	edit("checkpoint_2/config.yaml", "config: {catalog: static/catalog.csv, asset: catalog, currency: EUR}", "config: {catalog: 5}")
	// An evaluators check's call, in the same group, naming a function the
	// ranking plugin lacks.
	edit("checkpoint_1/config.yaml", "        arguments: {catalog: static/catalog.csv}\n", "        arguments: {catalog: static/catalog.csv}\n"+
		"      - kind: evaluators\n        conj: and\n        calls:\n          - plugin: {path: plugins/inventory-ranking.wasm, sha256: "+rankingDigest(t, dir)+"}\n"+
		"            function: rank_by_nothing\n")

	p, err := LoadProblem(dir)
	if err != nil {
		t.Fatal(err)
	}
	err = Validate(context.Background(), p, BuiltinLoader, runtest.Host(t, host.Options{}))
	if err == nil {
		t.Fatal("validation passed")
	}
	for _, want := range []string{
		"checkpoint_1/config.yaml:7: groups.summary.verifier.config: plugin inventory-verifier@",
		"refuses this config (its config_schema): /: additional properties 'tolerence' not allowed",
		`checkpoint_1/config.yaml:24: groups.top.checks[1].function: plugin inventory-ranking@`,
		`has no function "top_by_valu" (its functions: top_by_value)`,
		"checkpoint_2/config.yaml:34: groups.by_category.loader.config: plugin inventory-loader@",
		"/: missing property 'asset'; /catalog: got number, want string",
		`groups.top.checks[2].calls[0].function: plugin inventory-ranking@`,
		`has no function "rank_by_nothing" (its functions: top_by_value)`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("validation error lacks %q:\n%v", want, err)
		}
	}
	if n := strings.Count(err.Error(), "\n") + 1; n != 4 {
		t.Errorf("%d problems reported, want 4 (each once):\n%v", n, err)
	}
}

// rankingDigest is the sha256 the inventory example pins its ranking
// plugin with.
func rankingDigest(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "checkpoint_1", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`inventory-ranking\.wasm\n\s*sha256: ([0-9a-f]{64})`).FindSubmatch(data)
	if m == nil {
		t.Fatal("the example no longer pins its ranking plugin")
	}
	return string(m[1])
}

// A problem's verifier that cannot be loaded is reported once, where it
// is written (config.yaml's verifier), not at a group that inherits it.
func TestUnloadablePluginIsReportedWhereItIsWritten(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "inventory")
	if err := os.CopyFS(dir, os.DirFS(exampleDir)); err != nil {
		t.Fatal(err)
	}
	// A module with a valid header and a section that is not one: it
	// passes the pin, and fails to compile.
	broken := []byte("\x00asm\x01\x00\x00\x00\x01\x05\xff\xff\xff\xff\xff")
	if err := os.WriteFile(filepath.Join(dir, "plugins", "inventory-verifier.wasm"), broken, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config.yaml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pinned := regexp.MustCompile(`(path: plugins/inventory-verifier.wasm\n  sha256: )[0-9a-f]{64}`)
	if !pinned.Match(data) {
		t.Fatal("config.yaml does not pin plugins/inventory-verifier.wasm as expected")
	}
	data = pinned.ReplaceAll(data, []byte("${1}"+pin.Digest(broken)))
	if err := os.WriteFile(cfg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := LoadProblem(dir)
	if err != nil {
		t.Fatal(err)
	}
	err = Validate(context.Background(), p, BuiltinLoader, runtest.Host(t, host.Options{}))
	if err == nil {
		t.Fatal("validation passed")
	}
	msg := err.Error()
	if !strings.Contains(msg, filepath.Join(dir, "config.yaml")+":") || !strings.Contains(msg, ": verifier: ") || strings.Contains(msg, "groups.") {
		t.Errorf("want the error at config.yaml's verifier only:\n%s", msg)
	}
	if n := strings.Count(msg, "inventory-verifier.wasm"); n != 1 {
		t.Errorf("the verifier is reported %d times, want once:\n%s", n, msg)
	}
}
