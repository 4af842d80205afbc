package scaffold_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// cli runs wasmeval and returns its combined output and exit status.
func cli(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	out, err := runErr(dir, binary, args...)
	if err == nil {
		return out, 0
	}
	ee, ok := err.(*exec.ExitError)
	if !ok {
		t.Fatal(err)
	}
	return out, ee.ExitCode()
}

// TestPluginTest drives wasmeval plugin test: agreement, a difference
// from an expected output and between two plugins (with their diffs), a
// call that fails, the export read from the file's name or --export, and
// bad input directories.
func TestPluginTest(t *testing.T) {
	need(t, "go")
	root := t.TempDir()
	run(t, root, binary, "plugin", "new", "v1", "--lang", "go", "--kind", "verifier")
	run(t, root, binary, "plugin", "new", "v2", "--lang", "go", "--kind", "verifier")
	run(t, root, binary, "plugin", "new", "ld", "--lang", "go", "--kind", "loader")
	// v2 is a new version that weighs the output twice.
	v2 := filepath.Join(root, "v2", "main.go")
	src, _ := os.ReadFile(v2)
	os.WriteFile(v2, []byte(strings.Replace(string(src), "Weight: 1}", "Weight: 2}", 1)), 0o644)
	for _, p := range []string{"v1", "v2", "ld"} {
		run(t, filepath.Join(root, p), "./build.sh", "build")
	}
	v1wasm, v2wasm, ldwasm := filepath.Join(root, "v1", "v1.wasm"), filepath.Join(root, "v2", "v2.wasm"), filepath.Join(root, "ld", "ld.wasm")
	testdata := filepath.Join(root, "v1", "testdata")

	out, code := cli(t, root, "plugin", "test", testdata, v1wasm)
	if code != 0 || !strings.Contains(out, "verify_wrong.json [verify]\n  ok    "+v1wasm) || !strings.Contains(out, "all 3 outputs agree") {
		t.Errorf("agreeing plugin: exit %d\n%s", code, out)
	}

	out, code = cli(t, root, "plugin", "test", testdata, v1wasm, v2wasm)
	for _, want := range []string{
		"  ok    " + v1wasm,
		"  DIFF  " + v2wasm + ": differs from verify.expected.json",
		"--- verify.expected.json",
		"+++ " + v2wasm,
		`-      "weight": 1`,
		`+      "weight": 2`,
		"wasmeval: 3 of 6 outputs differ or failed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("new version: missing %q in\n%s", want, out)
		}
	}
	if code != 1 {
		t.Errorf("new version: exit %d, want 1", code)
	}

	// Without expected outputs the first plugin is the reference.
	bare := t.TempDir()
	data, _ := os.ReadFile(filepath.Join(testdata, "verify.json"))
	os.WriteFile(filepath.Join(bare, "verify-port.json"), data, 0o644)
	out, code = cli(t, root, "plugin", "test", bare, v1wasm, v2wasm)
	if code != 1 || !strings.Contains(out, "DIFF  "+v2wasm+": differs from "+v1wasm) || !strings.Contains(out, "--- "+v1wasm) {
		t.Errorf("two plugins, no expected output: exit %d\n%s", code, out)
	}

	// A plugin without the export fails that input.
	out, code = cli(t, root, "plugin", "test", bare, v1wasm, ldwasm)
	if code != 1 || !strings.Contains(out, `FAIL  `+ldwasm+`: no export "verify"`) {
		t.Errorf("missing export: exit %d\n%s", code, out)
	}

	// The export from --export when the name does not say it.
	odd := t.TempDir()
	os.WriteFile(filepath.Join(odd, "case1.json"), data, 0o644)
	out, code = cli(t, root, "plugin", "test", odd, v1wasm)
	if code != 2 || !strings.Contains(out, "case1.json: cannot tell the export to call from the file's name") || !strings.Contains(out, "give --export") {
		t.Errorf("unnamed export: exit %d\n%s", code, out)
	}
	out, code = cli(t, root, "plugin", "test", "--export", "verify", odd, v1wasm)
	if code != 0 || !strings.Contains(out, "case1.json [verify]") {
		t.Errorf("--export verify: exit %d\n%s", code, out)
	}

	// A prefix is an export only when the name continues with _ - . or ends.
	os.WriteFile(filepath.Join(odd, "verifying.json"), data, 0o644)
	os.Remove(filepath.Join(odd, "case1.json"))
	if out, code = cli(t, root, "plugin", "test", odd, v1wasm); code != 2 || !strings.Contains(out, "verifying.json: cannot tell") {
		t.Errorf("verifying.json: exit %d\n%s", code, out)
	}

	// Bad input directories and files, in one line each.
	empty := t.TempDir()
	if out, code = cli(t, root, "plugin", "test", empty, v1wasm); code != 2 || !strings.Contains(out, "holds no *.json input") {
		t.Errorf("empty directory: exit %d\n%s", code, out)
	}
	broken := t.TempDir()
	os.WriteFile(filepath.Join(broken, "verify.json"), []byte("{"), 0o644)
	if out, code = cli(t, root, "plugin", "test", broken, v1wasm); code != 2 || !strings.Contains(out, "verify.json: not valid JSON") {
		t.Errorf("broken input: exit %d\n%s", code, out)
	}
	os.WriteFile(filepath.Join(broken, "verify.json"), data, 0o644)
	os.WriteFile(filepath.Join(broken, "verify.expected.json"), []byte("{]"), 0o644)
	if out, code = cli(t, root, "plugin", "test", broken, v1wasm); code != 2 || !strings.Contains(out, "verify.expected.json: invalid character") {
		t.Errorf("broken expected output: exit %d\n%s", code, out)
	}
}
