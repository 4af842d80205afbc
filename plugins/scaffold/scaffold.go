// Package scaffold creates a standalone plugin project — Go, Rust or
// AssemblyScript, of one plugin kind — outside any clone of wasmeval: the
// plugin's source, the SDK vendored beside it (no SDK is published on a
// registry), a build script using the language's ordinary tools, a sample
// input with its expected output, and a README.
package scaffold

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/template"

	"github.com/wasmeval/wasmeval/plugins"
	"github.com/wasmeval/wasmeval/sdk"
)

// Languages and Kinds a project can be created for, in the order help
// lists them.
var (
	Languages = []string{"go", "rust", "assemblyscript"}
	Kinds     = []string{"verifier", "loader", "evaluator", "test", "setup", "mock"}
)

// Exports names the export each kind's sample input is for; the sample is
// testdata/EXPORT.json, which `wasmeval plugin test` reads as a call of
// that export.
var Exports = map[string]string{"verifier": "verify", "loader": "load_cases", "evaluator": "evaluate", "test": "test", "setup": "setup", "mock": "mock"}

// ASCVersion is the AssemblyScript compiler the SDK is built and tested
// with; a project pins the same.
const ASCVersion = "0.28.20"

//go:embed templates
var templates embed.FS

// Options say what to create.
type Options struct {
	Name string // the plugin's name, also the module, crate or package name
	Lang string
	Kind string
	Dir  string // where; created if missing, refused if not empty
}

// nameRE is what the three toolchains all take as a module, crate and
// package name (a crate name may not hold '.', an npm name no capitals).
var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

// Check says what is wrong with o, in one line.
func (o Options) Check() error {
	// The name becomes the project's directory: say so first when it
	// could not be one (nameRE refuses it too, with the toolchains' rule).
	if strings.ContainsAny(o.Name, `/\`) {
		return fmt.Errorf("plugin name %q contains a path separator (/ or \\); it becomes the project's directory name", o.Name)
	}
	if !nameRE.MatchString(o.Name) || len(o.Name) > 64 {
		return fmt.Errorf("plugin name %q: expected a lowercase letter then lowercase letters, digits, - or _ (at most 64), a name Go, Cargo and npm all take", o.Name)
	}
	if !contains(Languages, o.Lang) {
		return fmt.Errorf("--lang %q: expected one of %s", o.Lang, strings.Join(Languages, ", "))
	}
	if !contains(Kinds, o.Kind) {
		return fmt.Errorf("--kind %q: expected one of %s", o.Kind, strings.Join(Kinds, ", "))
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// data is what the templates see.
type data struct {
	Name, Crate, Lang, Kind, Export, ASCVersion string
}

// New creates the project. The directory must be missing or empty: a
// project is never written over files of the author's.
func New(o Options) error {
	if err := o.Check(); err != nil {
		return err
	}
	if entries, err := os.ReadDir(o.Dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s: the directory is not empty (%d entries); give a new or empty one", o.Dir, len(entries))
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", o.Dir, err)
	}
	d := data{Name: o.Name, Crate: strings.ReplaceAll(o.Name, "-", "_"), Lang: o.Lang, Kind: o.Kind,
		Export: Exports[o.Kind], ASCVersion: ASCVersion}
	files := map[string][]byte{}
	if err := render(files, "templates/"+o.Lang, d, o.Kind); err != nil {
		return err
	}
	if err := render(files, "templates/common", d, ""); err != nil {
		return err
	}
	if err := render(files, "templates/testdata/"+o.Kind, d, ""); err != nil {
		return err
	}
	vendor, err := vendorSDK(o.Lang)
	if err != nil {
		return err
	}
	for p, b := range vendor {
		files[p] = b
	}
	return write(o.Dir, files)
}

// render executes every template under root into files, at its path below
// root without the .tmpl suffix. Under kinds/ only the kind's own file is
// taken, as the plugin's source (its name there gives its place).
func render(files map[string][]byte, root string, d data, kind string) error {
	return fs.WalkDir(templates, root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel := strings.TrimSuffix(strings.TrimPrefix(p, root+"/"), ".tmpl")
		if strings.HasPrefix(rel, "kinds/") {
			// kinds/KIND/PATH: the kind's source at PATH.
			parts := strings.SplitN(strings.TrimPrefix(rel, "kinds/"), "/", 2)
			if len(parts) != 2 || parts[0] != kind {
				return nil
			}
			rel = parts[1]
		}
		src, err := templates.ReadFile(p)
		if err != nil {
			return err
		}
		t, err := template.New(p).Delims("{{", "}}").Parse(string(src))
		if err != nil {
			return fmt.Errorf("template %s: %w", p, err)
		}
		var b bytes.Buffer
		if err := t.Execute(&b, d); err != nil {
			return fmt.Errorf("template %s: %w", p, err)
		}
		if path.Base(rel) == "gitignore" { // go:embed leaves out dot files
			rel = path.Join(path.Dir(rel), ".gitignore")
		}
		files[rel] = b.Bytes()
		return nil
	})
}

// vendorSDK returns the language's SDK sources at their place in the
// project: third_party/wasmeval (a copy of the wasmeval module's SDK
// packages, with a go.mod of its own, which the project's go.mod replaces
// the module with) for Go, third_party/wasmeval-sdk for Rust and
// AssemblyScript. Tests and test data are left out: only what builds.
func vendorSDK(lang string) (map[string][]byte, error) {
	files := map[string][]byte{}
	var roots []string
	var dest func(string) string
	switch lang {
	case "go":
		roots = []string{"sdk/go/wasmeval", "plugins/abi"}
		dest = func(p string) string { return "third_party/wasmeval/" + p }
		files["third_party/wasmeval/go.mod"] = []byte("module github.com/wasmeval/wasmeval\n\ngo " + GoVersion + "\n")
	case "rust":
		roots = []string{"sdk/rust"}
		dest = func(p string) string { return "third_party/wasmeval-sdk/" + strings.TrimPrefix(p, "sdk/rust/") }
	case "assemblyscript":
		roots = []string{"sdk/assemblyscript"}
		dest = func(p string) string {
			return "third_party/wasmeval-sdk/" + strings.TrimPrefix(p, "sdk/assemblyscript/")
		}
	}
	for _, root := range roots {
		err := fs.WalkDir(sources, root, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() {
				if e.Name() == "testdata" {
					return fs.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(p, "_test.go") || !sourceExts[path.Ext(p)] {
				return nil // tests, and anything a build left in a source tree
			}
			b, err := fs.ReadFile(sources, p)
			if err != nil {
				return err
			}
			if lang == "assemblyscript" && path.Base(p) == "package.json" {
				if b, err = sdkPackageJSON(b); err != nil {
					return err
				}
			}
			files[dest(p)] = b
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("vendor the %s SDK: %w", lang, err)
		}
	}
	return files, nil
}

// sourceExts are the files an SDK is made of: sources, the ABI's schemas,
// the manifests.
var sourceExts = map[string]bool{".go": true, ".json": true, ".rs": true, ".toml": true, ".ts": true}

// GoVersion is the go directive of a project's go.mod and of the vendored
// SDK's: the Go release the SDK needs.
const GoVersion = "1.26"

// sdkPackageJSON is the AssemblyScript SDK's package.json as a dependency
// needs it: without its scripts (they build the repository's own plugins)
// and development dependencies (the project pins its own compiler).
func sdkPackageJSON(b []byte) ([]byte, error) {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("sdk/assemblyscript/package.json: %w", err)
	}
	delete(m, "scripts")
	delete(m, "devDependencies")
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// write creates the files under dir, in a stable order; scripts are made
// executable.
func write(dir string, files map[string][]byte) error {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(full, files[p], mode); err != nil {
			return err
		}
	}
	return nil
}

// sources are the SDKs' and the ABI's sources at their paths in the
// wasmeval module (sdk/…, plugins/abi/…), from the packages that embed
// them.
var sources = rootedFS{"sdk": sdk.Sources, "plugins": plugins.ABISources}

// rootedFS puts file systems under top-level directory names.
type rootedFS map[string]fs.FS

func (r rootedFS) Open(name string) (fs.File, error) {
	top, rest, _ := strings.Cut(name, "/")
	f, ok := r[top]
	if !ok || !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	if rest == "" {
		rest = "."
	}
	return f.Open(rest)
}
