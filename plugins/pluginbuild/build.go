// Package pluginbuild compiles plugins from source — Go (standard Go,
// GOOS=wasip1), Rust (rustc, wasm32-unknown-unknown, no Cargo needed) and
// AssemblyScript (the SDK's pinned asc) — the same way the Taskfile does,
// so tests always run plugins built from the code in this repository.
package pluginbuild

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/wasmeval/wasmeval/plugins/pin"
	"github.com/wasmeval/wasmeval/plugins/provenance"
)

// Flags are the build flags for reproducible plugins: the same source and
// toolchain give the same bytes (and so the same sha256) on every machine.
var Flags = []string{"-buildmode=c-shared", "-trimpath", "-buildvcs=false"}

// Build compiles the Go package at pkg (a path like ./examples/x or an
// import path) into out. extra are further go build flags.
func Build(pkg, out string, extra ...string) error {
	return buildIn("", pkg, out, extra...)
}

func buildIn(dir, pkg, out string, extra ...string) error {
	goBin := goTool()
	args := append([]string{"build"}, Flags...)
	args = append(args, extra...)
	args = append(args, "-o", out, pkg)
	cmd := exec.Command(goBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("build plugin %s: %v\n%s", pkg, err, stderr.String())
	}
	return nil
}

// ModuleRoot finds the directory holding go.mod, from the working
// directory up, so tests in any package can name plugin sources by their
// path in the repository.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Languages an example plugin can be written in.
const (
	Go             = "go"
	Rust           = "rust"
	AssemblyScript = "assemblyscript"
)

// Example is a plugin of the examples: its language, its source (a Go
// package directory, a Rust crate root or an AssemblyScript entry file) and
// the file the example problem's config.yaml names (and pins by digest).
type Example struct {
	Lang   string
	Source string // relative to the module root
	Output string // relative to the module root
}

// Examples lists the example plugins the build produces: a plugin of every
// kind in Go (verifier, evaluator, loader, test function), and an evaluator
// in Rust and a loader in AssemblyScript.
var Examples = []Example{
	{Go, "./examples/inventory/plugins/verifier", "examples/inventory/plugins/inventory-verifier.wasm"},
	{AssemblyScript, "examples/inventory/plugins/loader/plugin.ts", "examples/inventory/plugins/inventory-loader.wasm"},
	{Rust, "examples/inventory/plugins/evaluator/lib.rs", "examples/inventory/plugins/inventory-evaluator.wasm"},
	{Go, "./examples/inventory/plugins/ranking", "examples/inventory/plugins/inventory-ranking.wasm"},
	{Go, "./examples/answers/plugins/answercheck", "examples/answers/plugins/answercheck.wasm"},
	{Go, "./examples/notes/plugins/statsloader", "examples/notes/plugins/notes-statsloader.wasm"},
	{Rust, "examples/checkout-api/plugins/rates/lib.rs", "examples/checkout-api/plugins/checkout-rates.wasm"},
	{Go, "./examples/agent-tasks/plugins/answer", "examples/agent-tasks/plugins/agent-answer.wasm"},
	{Rust, "examples/agent-tasks/plugins/sandboxfile/lib.rs", "examples/agent-tasks/plugins/agent-sandbox-file.wasm"},
	{Rust, "examples/shared-verifier/team-a/stats-verifier/lib.rs", "examples/shared-verifier/team-a/stats-verifier.wasm"},
	{AssemblyScript, "examples/agent-tasks/plugins/jsonanswer/plugin.ts", "examples/agent-tasks/plugins/agent-json-answer.wasm"},
	{Rust, "plugins/stdlib/lib.rs", "plugins/stdlib/stdlib.wasm"},
	// The notebook-tasks example ships its own copy of the standard
	// library, bound by its wasmeval.yaml.
	{Rust, "plugins/stdlib/lib.rs", "examples/notebook-tasks/plugins/stdlib.wasm"},
}

// References are the conformance suite's reference plugins, one per SDK
// (the suite's tests build their own copies; these are for trying them by
// hand, e.g. with `wasmeval plugin call`).
var References = []Example{
	{Go, "./plugins/conformance/go", "plugins/conformance/go/conformance.wasm"},
	{Rust, "plugins/conformance/rust/lib.rs", "plugins/conformance/rust/conformance.wasm"},
	{AssemblyScript, "plugins/conformance/assemblyscript/plugin.ts", "plugins/conformance/assemblyscript/conformance.wasm"},
}

// BuildExample compiles one plugin of any language from source into out.
func BuildExample(root string, ex Example, out string) error {
	switch ex.Lang {
	case Go:
		return buildIn(root, ex.Source, out)
	case Rust:
		return BuildRust(filepath.Join(root, filepath.FromSlash(ex.Source)), out)
	case AssemblyScript:
		return BuildAssemblyScript(filepath.Join(root, filepath.FromSlash(ex.Source)), out)
	}
	return fmt.Errorf("example %s: unknown language %q", ex.Source, ex.Lang)
}

// BuildExamples compiles every example plugin in place. Each is written to a
// temporary file and renamed, so concurrent builds (test packages run in
// parallel) never leave a half-written module behind; a module already
// there with the same bytes, and its provenance, are left untouched, so
// tests reading an example's directory (its digest) while another test
// package rebuilds it see nothing change.
func BuildExamples() error {
	return BuildAll(Examples)
}

// BuildAll compiles the given plugins in place, like BuildExamples.
func BuildAll(plugins []Example) error {
	root, err := ModuleRoot()
	if err != nil {
		return err
	}
	for _, ex := range plugins {
		out := filepath.Join(root, ex.Output)
		// An output directory that holds only built plugins is not in
		// the repository.
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		// Built outside the example's directory: only a module that
		// differs from the one there is moved in.
		dir, err := os.MkdirTemp("", "wasmeval-build-")
		if err != nil {
			return err
		}
		built := filepath.Join(dir, filepath.Base(out))
		err = BuildExample(root, ex, built)
		if err == nil {
			err = install(root, ex, built, out)
		}
		os.RemoveAll(dir)
		if err != nil {
			return err
		}
	}
	return nil
}

// install puts the module built for ex at out, with its provenance, unless
// out already holds the same bytes with a provenance of them.
func install(root string, ex Example, built, out string) error {
	data, err := os.ReadFile(built)
	if err != nil {
		return err
	}
	if have, err := os.ReadFile(out); err == nil && bytes.Equal(have, data) {
		if p, err := provenance.Read(provenance.FileFor(out)); err == nil && p.SHA256 == pin.Digest(data) {
			return nil
		}
	} else {
		tmp, err := os.CreateTemp(filepath.Dir(out), ".build-*.wasm")
		if err != nil {
			return err
		}
		_, werr := tmp.Write(data)
		cerr := tmp.Close()
		// CreateTemp makes the file private; a module is for everyone to read.
		if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), 0o644)); err != nil {
			os.Remove(tmp.Name())
			return err
		}
		if err := os.Rename(tmp.Name(), out); err != nil {
			os.Remove(tmp.Name())
			return err
		}
	}
	return WriteProvenance(root, ex, out)
}
