package scaffold_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/plugins/scaffold"
)

// binary is the wasmeval command built from this repository, which the
// projects' build scripts call (as $WASMEVAL) and the tests drive.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "wasmeval-scaffold-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "wasmeval")
	build := exec.Command("go", "build", "-o", binary, "../../cmd/wasmeval")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("build wasmeval: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// commandTimeout bounds one build or test command: generous, the machine
// may be busy, and a first npm install or Cargo build takes a while.
const commandTimeout = 10 * time.Minute

// need skips the test when a tool is missing, and fails it under CI,
// where every toolchain must be there.
func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed (CI=true: .ci/toolchains installs it)", tool)
			}
			t.Skipf("%s is not installed", tool)
		}
	}
}

// toolsFor are the tools a language's project builds with.
func toolsFor(lang string) []string {
	switch lang {
	case "go":
		return []string{"go"}
	case "rust":
		return []string{"bash", "cargo", "rustc"}
	default:
		return []string{"bash", "node", "npm"}
	}
}

// run runs a command in dir with wasmeval on the PATH (and as $WASMEVAL)
// and returns its output; a failure ends the test with the output.
func run(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	out, err := runErr(dir, name, args...)
	if err != nil {
		t.Fatalf("%s %s (in %s): %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	return out
}

func runErr(dir string, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "WASMEVAL="+binary,
		"PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"))
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err := cmd.Run()
	return b.String(), err
}

func TestNewRefuses(t *testing.T) {
	full := t.TempDir()
	os.WriteFile(filepath.Join(full, "notes.txt"), []byte("mine"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"Bad Name", "--lang", "go", "--kind", "verifier"}, `plugin name "Bad Name": expected a lowercase letter`},
		{[]string{"a/b", "--lang", "go", "--kind", "verifier"}, `plugin name "a/b" contains a path separator`},
		{[]string{"ok", "--lang", "python", "--kind", "verifier"}, `--lang "python": expected one of go, rust, assemblyscript`},
		{[]string{"ok", "--lang", "go", "--kind", "scorer"}, `--kind "scorer": expected one of verifier, loader, evaluator, test, setup, mock`},
		{[]string{"ok", "--lang", "go"}, `--kind "": expected one of`},
		{[]string{"ok", "--lang", "go", "--kind", "verifier", "--dir", full}, full + ": the directory is not empty (1 entries)"},
	} {
		out, err := runErr(t.TempDir(), binary, append([]string{"plugin", "new"}, c.args...)...)
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 2 {
			t.Errorf("plugin new %v: %v, want exit 2\n%s", c.args, err, out)
			continue
		}
		if !strings.Contains(out, c.want) || strings.Count(strings.TrimSpace(out), "\n") != 0 {
			t.Errorf("plugin new %v said:\n%s\nwant one line with %q", c.args, out, c.want)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(full, "notes.txt")); string(data) != "mine" {
		t.Errorf("a refused directory was changed")
	}
}

// TestVendoredGoSDK checks that the Go SDK vendored into a project holds
// every package of this module the SDK builds with, and no test.
func TestVendoredGoSDK(t *testing.T) {
	need(t, "go")
	dir := filepath.Join(t.TempDir(), "p")
	if err := scaffold.New(scaffold.Options{Name: "p", Lang: "go", Kind: "verifier", Dir: dir}); err != nil {
		t.Fatal(err)
	}
	deps := run(t, "../..", "go", "list", "-deps", "-f", "{{.ImportPath}}", "./sdk/go/wasmeval/...")
	for _, p := range strings.Fields(deps) {
		rel, ok := strings.CutPrefix(p, "github.com/wasmeval/wasmeval/")
		if !ok {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "third_party/wasmeval", rel)); err != nil {
			t.Errorf("the SDK imports %s, which is not vendored: %v", p, err)
		}
	}
	filepath.Walk(filepath.Join(dir, "third_party"), func(p string, info os.FileInfo, err error) error {
		if err == nil && (strings.HasSuffix(p, "_test.go") || info.Name() == "testdata") {
			t.Errorf("vendored a test: %s", p)
		}
		return nil
	})
}

// TestProjects creates a project of every language and kind in an empty
// directory outside the repository, builds and tests it with the
// language's own tools through its build script (Rust: with Cargo and with
// plain rustc), calls the plugin, and checks that the three languages'
// plugins of each kind give the same bytes on the same inputs.
func TestProjects(t *testing.T) {
	type built struct{ wasm, testdata string }
	var mu sync.Mutex
	plugins := map[string]map[string]built{} // kind → lang → plugin
	// The projects outlive their subtests: plugin test runs their plugins.
	parent := t.TempDir()
	t.Run("build", func(t *testing.T) {
		for _, lang := range scaffold.Languages {
			for _, kind := range scaffold.Kinds {
				t.Run(lang+"/"+kind, func(t *testing.T) {
					t.Parallel()
					need(t, toolsFor(lang)...)
					name := "my-" + kind
					root := filepath.Join(parent, lang, kind) // empty, outside the repository
					if err := os.MkdirAll(root, 0o755); err != nil {
						t.Fatal(err)
					}
					out := run(t, root, binary, "plugin", "new", name, "--lang", lang, "--kind", kind)
					if !strings.Contains(out, "created "+name) {
						t.Errorf("plugin new said %q", out)
					}
					dir := filepath.Join(root, name)
					out = run(t, dir, "./build.sh", "test")
					if !strings.Contains(out, "outputs agree") {
						t.Errorf("./build.sh test:\n%s", out)
					}
					if lang == "rust" && kind == "verifier" {
						os.Remove(filepath.Join(dir, name+".wasm"))
						run(t, dir, "./build.sh", "test-rustc")
					}
					wasm := filepath.Join(dir, name+".wasm")
					export := scaffold.Exports[kind]
					got := run(t, dir, binary, "plugin", "call", wasm, export, "--input", "@testdata/"+export+".json")
					want, err := os.ReadFile(filepath.Join(dir, "testdata", export+".expected.json"))
					if err != nil {
						t.Fatal(err)
					}
					if canonical(t, got) != canonical(t, string(want)) {
						t.Errorf("plugin call %s: got\n%s\nwant\n%s", export, got, want)
					}
					mu.Lock()
					if plugins[kind] == nil {
						plugins[kind] = map[string]built{}
					}
					plugins[kind][lang] = built{wasm, filepath.Join(dir, "testdata")}
					mu.Unlock()
				})
			}
		}
	})
	for _, kind := range scaffold.Kinds {
		byLang := plugins[kind]
		if len(byLang) < 2 {
			continue // skipped languages (outside CI)
		}
		args := []string{"plugin", "test", ""}
		for _, lang := range scaffold.Languages {
			if b, ok := byLang[lang]; ok {
				args[2] = b.testdata
				args = append(args, b.wasm)
			}
		}
		out := run(t, ".", binary, args...)
		if !strings.Contains(out, fmt.Sprintf("all %d outputs agree", (len(args)-3)*countInputs(t, args[2]))) {
			t.Errorf("%s: plugin test:\n%s", kind, out)
		}
	}
}

func countInputs(t *testing.T, dir string) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") && !strings.HasSuffix(e.Name(), ".expected.json") {
			n++
		}
	}
	return n
}

func canonical(t *testing.T, s string) string {
	t.Helper()
	var v any
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
