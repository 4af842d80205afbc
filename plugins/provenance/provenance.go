// Package provenance is the record of how a plugin module was built — its
// source, the commit and whether the tree had uncommitted changes, the
// toolchain (with the exact compiler used) and the SDK — kept in a file
// beside the module (NAME.wasm.provenance.json) and carried into a
// published artifact's manifest annotations.
//
// It is a package of its own, with no dependencies, because both the
// plugin build (which writes the file) and plugin sharing (which publishes
// and shows it) use the format.
package provenance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
)

// Suffix is appended to a module's file name to name its provenance file.
const Suffix = ".provenance.json"

// FileFor is the provenance file of a module file.
func FileFor(module string) string { return module + Suffix }

// Provenance is how one module was built.
type Provenance struct {
	// Version is the format's version, 1.
	Version int `json:"version"`
	// SHA256 is the module's digest (hex), so that a provenance file
	// left beside a module rebuilt by other means is not taken for its.
	SHA256 string `json:"sha256,omitempty"`
	// Source is the plugin's source (a Go package directory, a Rust crate
	// root, an AssemblyScript entry), relative to the repository root.
	Source string `json:"source"`
	// Repository is where the source lives (the git remote "origin"),
	// when known.
	Repository string `json:"repository,omitempty"`
	// Commit is `git rev-parse HEAD` of the source tree, when it is a git
	// checkout; Dirty says it had uncommitted changes to tracked files.
	Commit string `json:"commit,omitempty"`
	Dirty  bool   `json:"dirty,omitempty"`
	// Language is go, rust or assemblyscript.
	Language string `json:"language"`
	// Toolchain is the compiler's own version line (`go version`,
	// `rustc --version`, asc's version); ToolchainPath the compiler run.
	Toolchain     string `json:"toolchain"`
	ToolchainPath string `json:"toolchain_path,omitempty"`
	// SDK is the wasmeval SDK the plugin is written against (its
	// directory in the repository) and SDKVersion its version.
	SDK        string `json:"sdk,omitempty"`
	SDKVersion string `json:"sdk_version,omitempty"`
}

// Manifest annotations a published plugin carries its provenance in.
// revision and source are the OCI image spec's own keys.
const (
	AnnotationRevision      = "org.opencontainers.image.revision"
	AnnotationSource        = "org.opencontainers.image.source"
	AnnotationSourcePath    = "dev.wasmeval.source.path"
	AnnotationSourceDirty   = "dev.wasmeval.source.dirty"
	AnnotationLanguage      = "dev.wasmeval.language"
	AnnotationToolchain     = "dev.wasmeval.toolchain"
	AnnotationToolchainPath = "dev.wasmeval.toolchain.path"
	AnnotationSDK           = "dev.wasmeval.sdk"
	AnnotationSDKVersion    = "dev.wasmeval.sdk.version"
)

// Annotations are the manifest annotations of p (empty fields omitted).
func (p Provenance) Annotations() map[string]string {
	a := map[string]string{}
	set := func(k, v string) {
		if v != "" {
			a[k] = v
		}
	}
	set(AnnotationRevision, p.Commit)
	set(AnnotationSource, p.Repository)
	set(AnnotationSourcePath, p.Source)
	if p.Commit != "" {
		set(AnnotationSourceDirty, strconv.FormatBool(p.Dirty))
	}
	set(AnnotationLanguage, p.Language)
	set(AnnotationToolchain, p.Toolchain)
	set(AnnotationToolchainPath, p.ToolchainPath)
	set(AnnotationSDK, p.SDK)
	set(AnnotationSDKVersion, p.SDKVersion)
	return a
}

// FromAnnotations reads provenance back from manifest annotations; ok is
// false when there is none.
func FromAnnotations(a map[string]string) (p Provenance, ok bool) {
	p = Provenance{
		Version: 1, Commit: a[AnnotationRevision], Repository: a[AnnotationSource], Source: a[AnnotationSourcePath],
		Dirty: a[AnnotationSourceDirty] == "true", Language: a[AnnotationLanguage], Toolchain: a[AnnotationToolchain],
		ToolchainPath: a[AnnotationToolchainPath], SDK: a[AnnotationSDK], SDKVersion: a[AnnotationSDKVersion],
	}
	ok = p.Commit != "" || p.Source != "" || p.Toolchain != "" || p.SDK != ""
	return p, ok
}

// maxBytes caps a provenance file (a real one is a few hundred bytes).
const maxBytes = 64 << 10

// Read reads a provenance file, strictly: unknown fields, a wrong type or
// a missing version are errors naming the file and the field.
func Read(file string) (Provenance, error) {
	f, err := os.Open(file)
	if err != nil {
		return Provenance{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxBytes+1))
	if err != nil {
		return Provenance{}, fmt.Errorf("provenance %s: %w", file, err)
	}
	if len(data) > maxBytes {
		return Provenance{}, fmt.Errorf("provenance %s: larger than %d KiB", file, maxBytes>>10)
	}
	var p Provenance
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field == "" {
			return Provenance{}, fmt.Errorf("provenance %s: expected a JSON object, got a JSON %s", file, te.Value)
		}
		if errors.As(err, &te) {
			return Provenance{}, fmt.Errorf("provenance %s: %s: expected a %s, got a JSON %s", file, te.Field, te.Type, te.Value)
		}
		return Provenance{}, fmt.Errorf("provenance %s: %v", file, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Provenance{}, fmt.Errorf("provenance %s: data after the JSON object", file)
	}
	if p.Version != 1 {
		return Provenance{}, fmt.Errorf("provenance %s: version: %d; expected 1", file, p.Version)
	}
	for k, v := range p.Annotations() {
		if len(v) > 1024 {
			return Provenance{}, fmt.Errorf("provenance %s: the value for %s is longer than 1024 bytes", file, k)
		}
	}
	return p, nil
}

// Write writes p to file (indented JSON, a trailing newline).
func Write(file string, p Provenance) error {
	p.Version = 1
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(data, '\n'), 0o644)
}
