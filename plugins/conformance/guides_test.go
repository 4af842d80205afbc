package conformance

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// TestGuides builds the plugin of each "your first plugin" guide from the
// code in the guide and runs the call the guide shows, so the guides stay
// true.
func TestGuides(t *testing.T) {
	root, err := pluginbuild.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	guides := []struct {
		doc, fence, dir, file, export, want string
		build                               func(src, out string) error
	}{
		{"sdk-go.md", "go", "wordcount", "main.go", "verify", `"is_correct":true`,
			func(src, out string) error { return pluginbuild.Build(filepath.Dir(src), out) }},
		{"sdk-rust.md", "rust", "half", "lib.rs", "evaluate", `"score":0.5`, pluginbuild.BuildRust},
		{"sdk-assemblyscript.md", "ts", "yes", "plugin.ts", "test", `"passed":true`, pluginbuild.BuildAssemblyScript},
	}
	// The guides' sources live two levels below the repository root, as in
	// the guides (myplugins/<name>/), in a directory Go's ./... ignores.
	base, err := os.MkdirTemp(root, ".guides-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	for _, g := range guides {
		t.Run(g.doc, func(t *testing.T) {
			text, err := os.ReadFile(filepath.Join(root, "docs", g.doc))
			if err != nil {
				t.Fatal(err)
			}
			code := regexp.MustCompile("(?s)```" + g.fence + "\n(.*?)```").FindSubmatch(text)
			input := regexp.MustCompile(`(?s)--input '([^']*)'`).FindSubmatch(text)
			if code == nil || input == nil {
				t.Fatalf("%s: no %s code block or no --input example", g.doc, g.fence)
			}
			dir := filepath.Join(base, g.dir)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			src := filepath.Join(dir, g.file)
			if err := os.WriteFile(src, code[1], 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), g.dir+".wasm")
			if err := g.build(src, out); err != nil {
				if errors.Is(err, pluginbuild.ErrToolchain) && os.Getenv("CI") != "true" {
					t.Skip(err)
				}
				t.Fatalf("%s: %v", g.doc, err)
			}
			p, err := newHost(t).Load(context.Background(), out, "")
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Call(context.Background(), g.export, input[1], host.CallOptions{})
			if err != nil || !strings.Contains(string(got), g.want) {
				t.Fatalf("%s: the guide's call gave %s %v, want %s", g.doc, got, err, g.want)
			}
		})
	}
}
