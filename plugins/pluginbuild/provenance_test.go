package pluginbuild

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/provenance"
)

// TestWriteProvenance records how an example is built: its source, the
// checkout's commit, the compiler actually run and the SDK version.
func TestWriteProvenance(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	head, gitErr := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	for _, ex := range []Example{
		{Go, "./examples/answers/plugins/answercheck", ""},
		{Rust, "examples/inventory/plugins/evaluator/lib.rs", ""},
	} {
		out := filepath.Join(t.TempDir(), "p.wasm")
		if err := os.WriteFile(out, []byte("\x00asm\x01\x00\x00\x00"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := WriteProvenance(root, ex, out); err != nil {
			if errors.Is(err, ErrToolchain) && os.Getenv("CI") != "true" {
				t.Logf("%s: %v", ex.Lang, err)
				continue
			}
			t.Fatal(err)
		}
		p, err := provenance.Read(out + ".provenance.json")
		if err != nil {
			t.Fatal(err)
		}
		if p.SHA256 != "93a44bbb96c751218e4c00d479e4c14358122a389acca16205b1e4d0dc5f9476" {
			t.Errorf("%s: module digest %q", ex.Source, p.SHA256)
		}
		if p.Source != strings.TrimPrefix(ex.Source, "./") || p.Language != ex.Lang {
			t.Errorf("%s: source %q language %q", ex.Source, p.Source, p.Language)
		}
		if gitErr == nil && p.Commit != strings.TrimSpace(string(head)) {
			t.Errorf("%s: commit %q, HEAD is %s", ex.Source, p.Commit, head)
		}
		if _, err := os.Stat(p.ToolchainPath); err != nil {
			t.Errorf("%s: toolchain path %q: %v", ex.Source, p.ToolchainPath, err)
		}
		want := map[string]string{Go: "go version go", Rust: "rustc "}[ex.Lang]
		if !strings.HasPrefix(p.Toolchain, want) || p.SDK == "" || p.SDKVersion == "" {
			t.Errorf("%s: toolchain %q sdk %q %q", ex.Source, p.Toolchain, p.SDK, p.SDKVersion)
		}
	}
}
