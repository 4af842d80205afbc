package share

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"time"

	"github.com/opencontainers/go-digest"
	"github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content/memory"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/pin"
)

// PushOptions are the settings of Push.
type PushOptions struct {
	// Remote reaches the registry (nil: NewRemote with default options).
	Remote *Remote
	// Describe is the plugin's describe output, recorded as annotations.
	// The caller loads the plugin to get it (this package runs no
	// plugin code).
	Describe abi.Describe
	// Annotations are added to the manifest's; they may not replace the
	// ones Push writes from Describe.
	Annotations map[string]string
	// Created is the manifest's creation time (zero: now). A fixed time
	// (e.g. from SOURCE_DATE_EPOCH) makes pushes of the same module give
	// the same manifest digest.
	Created time.Time
	// Provenance is the provenance file to publish as annotations (""
	// : FILE.provenance.json, written by the plugin build, when present).
	Provenance string
}

// Pushed describes a pushed artifact.
type Pushed struct {
	Ref Ref
	// ManifestDigest is "sha256:<hex>" of the manifest.
	ManifestDigest string
	// WasmDigest is the module's sha256 in hex, as pins are written.
	WasmDigest string
	Size       int64
}

// Push publishes the module in file under ref, which must name a tag.
func Push(ctx context.Context, file string, ref Ref, opts PushOptions) (Pushed, error) {
	if ref.Tag == "" {
		return Pushed{}, inputErr(fmt.Errorf("push to %s: name a tag to push to, not a digest", ref))
	}
	module, err := readModule(file, MaxModuleBytes)
	if err != nil {
		return Pushed{}, err
	}
	annotations, err := describeAnnotations(opts.Describe)
	if err != nil {
		return Pushed{}, fmt.Errorf("push %s: %w", file, err)
	}
	for k, v := range opts.Annotations {
		if _, ours := annotations[k]; ours {
			return Pushed{}, inputErr(fmt.Errorf("push %s: annotation %s is written from the describe output and cannot be set", file, k))
		}
		annotations[k] = v
	}
	prov, err := provenanceAnnotations(file, opts.Provenance, pin.Digest(module))
	if err != nil {
		return Pushed{}, inputErr(fmt.Errorf("push %s: %w", file, err))
	}
	for k, v := range prov {
		if _, set := annotations[k]; !set {
			annotations[k] = v
		}
	}
	// No creation time unless one is given: the annotation is optional,
	// and without it the same module, describe output and provenance give
	// the same manifest, so a re-push keeps the digest (and signatures).
	if !opts.Created.IsZero() {
		annotations[AnnotationCreated] = opts.Created.UTC().Format(time.RFC3339)
	}

	// Pack the artifact in memory first, then copy it in one go: oras
	// pushes blobs before the manifest and tags last, so a failed push
	// never leaves the tag pointing at half an artifact.
	mem := memory.New()
	hex := pin.Digest(module)
	layer := ocispec.Descriptor{MediaType: LayerMediaType, Digest: digest.NewDigestFromEncoded(digest.SHA256, hex), Size: int64(len(module)),
		Annotations: map[string]string{AnnotationTitle: filepath.Base(file)}}
	if err := mem.Push(ctx, layer, bytes.NewReader(module)); err != nil {
		return Pushed{}, fmt.Errorf("push %s: %w", file, err)
	}
	cfg, _ := json.Marshal(wasmConfig{Created: annotations[AnnotationCreated], Architecture: "wasm", OS: "wasip1", LayerDigests: []string{layer.Digest.String()}})
	config := ocispec.Descriptor{MediaType: ConfigMediaType, Digest: digest.FromBytes(cfg), Size: int64(len(cfg))}
	if err := mem.Push(ctx, config, bytes.NewReader(cfg)); err != nil {
		return Pushed{}, fmt.Errorf("push %s: %w", file, err)
	}
	// Packed by hand: oras.PackManifest always adds a creation time.
	rawManifest, err := json.Marshal(ocispec.Manifest{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest,
		Config: config, Layers: []ocispec.Descriptor{layer}, Annotations: maps.Clone(annotations)})
	if err != nil {
		return Pushed{}, fmt.Errorf("push %s: pack the manifest: %w", file, err)
	}
	manifest := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromBytes(rawManifest), Size: int64(len(rawManifest))}
	if err := mem.Push(ctx, manifest, bytes.NewReader(rawManifest)); err != nil {
		return Pushed{}, fmt.Errorf("push %s: %w", file, err)
	}
	if err := mem.Tag(ctx, manifest, ref.Tag); err != nil {
		return Pushed{}, fmt.Errorf("push %s: %w", file, err)
	}
	r := opts.Remote
	if r == nil {
		if r, err = NewRemote(RemoteOptions{}); err != nil {
			return Pushed{}, err
		}
	}
	repo, err := r.repository(ctx, ref)
	if err != nil {
		return Pushed{}, err
	}
	if _, err := oras.Copy(ctx, mem, ref.Tag, repo, ref.Tag, oras.DefaultCopyOptions); err != nil {
		return Pushed{}, remoteErr(ref, "push", err)
	}
	return Pushed{Ref: ref, ManifestDigest: manifest.Digest.String(), WasmDigest: hex, Size: int64(len(module))}, nil
}

// readModule reads a module file, refusing one larger than limit and
// anything that is not a Wasm binary.
func readModule(file string, limit int64) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d MiB; not a plugin", file, limit>>20)
	}
	if !bytes.HasPrefix(data, wasmMagic) {
		return nil, fmt.Errorf("%s: not a WebAssembly module (no \\0asm header)", file)
	}
	return data, nil
}

var wasmMagic = []byte("\x00asm")
