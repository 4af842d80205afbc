package share

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/oci"
	"oras.land/oras-go/v2/errdef"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// Resolved is a plugin artifact fetched into the cache.
type Resolved struct {
	// Ref is the reference as asked for (a tag or a digest).
	Ref Ref
	// ManifestDigest is "sha256:<hex>" of the manifest.
	ManifestDigest string
	// WasmDigest is the module's sha256 in hex, as pins are written.
	WasmDigest string
	Size       int64
	ABIVersion int
	Kinds      []string
	Name       string
	Version    string
	// Annotations are the manifest's.
	Annotations map[string]string
	// Path is the verified module in the cache.
	Path string
}

// Pull resolves ref in its registry (a tag is resolved live; a digest is
// fetched as is), checks that it is a wasmeval plugin artifact and fetches
// it, with its referrers (signatures, provenance), into the cache.
func Pull(ctx context.Context, r *Remote, c *Cache, ref Ref) (Resolved, error) {
	return pull(ctx, r, c, ref, "")
}

// pull is Pull recording, for a fetch by digest on behalf of a lock, the
// reference the lock names (lockedAs), which `cache ls` shows.
func pull(ctx context.Context, r *Remote, c *Cache, ref Ref, lockedAs string) (Resolved, error) {
	repo, err := r.repository(ctx, ref)
	if err != nil {
		return Resolved{}, err
	}
	desc, err := repo.Resolve(ctx, ref.Reference())
	if err != nil {
		if ref.Digest != "" && !IsKind(remoteErr(ref, "resolve", err), ErrUnreachable) && !IsKind(remoteErr(ref, "resolve", err), ErrAuth) {
			// Pins are module digests, and a natural mistake is to pull
			// by one; registries answer that variously (404, even 500).
			if _, berr := repo.Blobs().Resolve(ctx, ref.Digest); berr == nil || c.holdsModule(ref.Digest) {
				return Resolved{}, &Error{Ref: ref.String(), Kind: ErrNotFound, Err: err,
					Msg: fmt.Sprintf("%s is a module digest (the plugin's sha256 pin), not a manifest's; @sha256: takes the manifest digest (`manifest:` in the output of push and pull, `manifest` in wasmeval.lock)", ref.Digest)}
			}
		}
		return Resolved{}, remoteErr(ref, "resolve", err)
	}
	if ref.Digest != "" && desc.Digest.String() != ref.Digest {
		return Resolved{}, integrityErr(ref, "the registry answered with manifest %s", desc.Digest)
	}
	a, err := readArtifact(ctx, repo, ref, desc)
	if err != nil {
		return Resolved{}, remoteErr(ref, "pull", err)
	}
	a.lockedAs = lockedAs
	if err := c.add(ctx, repo, ref, a); err != nil {
		return Resolved{}, remoteErr(ref, "pull", err)
	}
	return c.resolved(ref, a)
}

// artifact is a manifest that was checked to be a plugin: one Wasm layer,
// sizes within the limits.
type artifact struct {
	desc     ocispec.Descriptor
	raw      []byte
	manifest ocispec.Manifest
	layer    ocispec.Descriptor
	describe abi.Describe
	// lockedAs is the lock's reference a fetch by digest was made for.
	lockedAs string
}

func (a *artifact) wasmHex() string { return a.layer.Digest.Encoded() }

// readArtifact fetches and checks the manifest desc from src.
func readArtifact(ctx context.Context, src content.Fetcher, ref Ref, desc ocispec.Descriptor) (*artifact, error) {
	switch desc.MediaType {
	case ocispec.MediaTypeImageManifest:
	case ocispec.MediaTypeImageIndex, "application/vnd.docker.distribution.manifest.list.v2+json":
		return nil, integrityErr(ref, "is an image index, not a plugin artifact (expected one manifest with one %s layer)", LayerMediaType)
	default:
		return nil, integrityErr(ref, "manifest media type %q: expected %s", desc.MediaType, ocispec.MediaTypeImageManifest)
	}
	if desc.Size <= 0 || desc.Size > MaxManifestBytes {
		return nil, integrityErr(ref, "manifest of %d bytes: expected at most %d", desc.Size, MaxManifestBytes)
	}
	if err := desc.Digest.Validate(); err != nil || desc.Digest.Algorithm() != digest.SHA256 {
		return nil, integrityErr(ref, "manifest digest %q: expected sha256", desc.Digest)
	}
	raw, err := content.FetchAll(ctx, src, desc)
	if err != nil {
		if errors.Is(err, content.ErrMismatchedDigest) || errors.Is(err, content.ErrTrailingData) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, integrityErr(ref, "manifest %s does not match its digest or size; refusing it", desc.Digest)
		}
		return nil, err
	}
	a := &artifact{desc: desc, raw: raw}
	if err := json.Unmarshal(raw, &a.manifest); err != nil {
		return nil, integrityErr(ref, "manifest %s: not valid JSON: %v", desc.Digest, err)
	}
	m := &a.manifest
	if m.MediaType != "" && m.MediaType != ocispec.MediaTypeImageManifest {
		return nil, integrityErr(ref, "manifest %s: media type %q, expected %s", desc.Digest, m.MediaType, ocispec.MediaTypeImageManifest)
	}
	if m.Config.Size < 0 || m.Config.Size > MaxConfigBytes {
		return nil, integrityErr(ref, "config of %d bytes: expected at most %d", m.Config.Size, MaxConfigBytes)
	}
	if err := m.Config.Digest.Validate(); err != nil {
		return nil, integrityErr(ref, "config digest %q: %v", m.Config.Digest, err)
	}
	var wasm []ocispec.Descriptor
	for _, l := range m.Layers {
		if l.MediaType == LayerMediaType || l.MediaType == LegacyLayerMediaType {
			wasm = append(wasm, l)
		}
	}
	if len(m.Layers) != 1 || len(wasm) != 1 {
		return nil, integrityErr(ref, "has %d layers, %d of them Wasm (%s): a plugin artifact has exactly one Wasm layer and no other", len(m.Layers), len(wasm), LayerMediaType)
	}
	a.layer = wasm[0]
	if err := a.layer.Digest.Validate(); err != nil || a.layer.Digest.Algorithm() != digest.SHA256 {
		return nil, integrityErr(ref, "Wasm layer digest %q: expected sha256 (the plugin's pin)", a.layer.Digest)
	}
	if a.layer.Size <= 0 || a.layer.Size > MaxModuleBytes {
		return nil, integrityErr(ref, "Wasm layer of %d bytes: expected 1 to %d", a.layer.Size, MaxModuleBytes)
	}
	if a.describe, err = describeFrom(m.Annotations); err != nil {
		return nil, integrityErr(ref, "manifest %s: %v", desc.Digest, err)
	}
	return a, nil
}

// copyBlob copies desc from src to dst, checking its size and digest
// while reading (the store checks too; this does not rely on it).
func copyBlob(ctx context.Context, src content.Fetcher, dst content.Storage, ref Ref, desc ocispec.Descriptor) error {
	if ok, err := dst.Exists(ctx, desc); err == nil && ok {
		return nil
	}
	rc, err := src.Fetch(ctx, desc)
	if err != nil {
		return err
	}
	defer rc.Close()
	h := sha256.New()
	body := io.TeeReader(io.LimitReader(rc, desc.Size+1), h)
	if err := dst.Push(ctx, desc, body); err != nil {
		if errors.Is(err, errdef.ErrAlreadyExists) {
			return nil
		}
		if errors.Is(err, content.ErrMismatchedDigest) || errors.Is(err, content.ErrTrailingData) || errors.Is(err, io.ErrUnexpectedEOF) {
			return integrityErr(ref, "blob %s does not match its digest or size; refusing it", desc.Digest)
		}
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); desc.Digest.Algorithm() == digest.SHA256 && got != desc.Digest.Encoded() {
		return integrityErr(ref, "blob %s hashes to sha256:%s; refusing it", desc.Digest, got)
	}
	return nil
}

// resolved is the Resolved of an artifact already in the cache. Its
// module is the one its manifest describes, in size too: a module cached
// from another artifact is not copied again, so a layer that lies about
// its size is caught here, not by the copy.
func (c *Cache) resolved(ref Ref, a *artifact) (Resolved, error) {
	c.hold(a.wasmHex())
	path, err := c.Path(a.wasmHex())
	if err != nil {
		return Resolved{}, err
	}
	if fi, err := os.Stat(path); err != nil {
		return Resolved{}, fmt.Errorf("plugin cache: %w", err)
	} else if fi.Size() != a.layer.Size {
		return Resolved{}, integrityErr(ref, "manifest %s gives its Wasm layer %d bytes, but module sha256:%s has %d; refusing it", a.desc.Digest, a.layer.Size, a.wasmHex(), fi.Size())
	}
	return Resolved{
		Ref: ref, ManifestDigest: a.desc.Digest.String(), WasmDigest: a.wasmHex(), Size: a.layer.Size,
		ABIVersion: a.describe.ABIVersion, Kinds: a.describe.Kinds, Name: a.describe.Name, Version: a.describe.Version,
		Annotations: maps.Clone(a.manifest.Annotations), Path: path,
	}, nil
}

// Locked is the artifact of ref (a reference by manifest digest, as a lock
// records it) from the cache, its manifest and module checked against
// their digests: a *NotCachedError when either is not cached, a
// *CorruptError when either no longer matches its digest (Path is then
// the damaged file, to drop before fetching it again).
func (c *Cache) Locked(ctx context.Context, ref Ref) (Resolved, error) {
	var a *artifact
	err := c.view(ctx, func(s *oci.Store) error {
		desc, err := s.Resolve(ctx, ref.Digest)
		if err != nil {
			return &NotCachedError{Manifest: ref.Digest}
		}
		if a, err = readArtifact(ctx, s, ref, desc); err != nil {
			p := c.blobPath(desc.Digest.Encoded())
			if _, serr := os.Stat(p); serr != nil {
				return &NotCachedError{Manifest: ref.Digest}
			}
			got, _ := hashFile(p)
			return &CorruptError{Manifest: ref.Digest, Path: p, Got: got, Why: oneLine(err)}
		}
		return nil
	})
	if err != nil {
		return Resolved{}, err
	}
	return c.resolved(ref, a)
}

// holdsModule says whether a cached plugin's module has digest d
// ("sha256:<hex>").
func (c *Cache) holdsModule(d string) bool {
	entries, err := c.List(context.Background())
	if err != nil {
		return false
	}
	for _, e := range entries {
		if "sha256:"+e.WasmDigest == d {
			return true
		}
	}
	return false
}
