package share

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/memory"
	"oras.land/oras-go/v2/content/oci"
	"oras.land/oras-go/v2/registry"
)

// Signatures are referrer artifacts of a plugin's manifest: an image
// manifest whose subject is the plugin manifest, whose artifactType is
// SignatureArtifactType and whose one layer (SignatureMediaType) is a
// signature envelope. RATIONALE.md says why the payload is what it is.
const (
	SignatureArtifactType = "application/vnd.wasmeval.signature.v1+json"
	SignatureMediaType    = "application/vnd.wasmeval.signature.v1+json"
	// SignaturePayloadType is the type field of every signed payload.
	SignaturePayloadType = "wasmeval plugin signature v1"
	// MaxSignatureBytes caps a signature layer (a real one is ~400 bytes).
	MaxSignatureBytes = 64 << 10
	// maxSignatures caps how many signature referrers are examined.
	maxSignatures = 64
)

// ErrSignature is the ErrorKind of a plugin refused by a trust policy:
// unsigned, signed by no trusted key, or carrying a signature that does
// not verify.
const ErrSignature ErrorKind = 100

// SignedPayload is what a signature signs: the manifest digest and the
// repository it is published in. Its bytes are the JSON encoding of this
// struct, fields in this order, no white space — see CanonicalPayload.
type SignedPayload struct {
	Type string `json:"type"`
	// Manifest is the plugin manifest's digest, "sha256:<hex>".
	Manifest string `json:"manifest"`
	// Repository is HOST/REPOSITORY the signer published the plugin in.
	Repository string `json:"repository"`
}

// CanonicalPayload is the exact bytes signed for a manifest in a
// repository (HOST/REPOSITORY).
func CanonicalPayload(manifestDigest, repository string) []byte {
	b, _ := json.Marshal(SignedPayload{Type: SignaturePayloadType, Manifest: manifestDigest, Repository: repository})
	return b
}

// SignatureEnvelope is the signature layer's content.
type SignatureEnvelope struct {
	// KeyID is the signer's key id (KeyID of PublicKey).
	KeyID string `json:"keyid"`
	// PublicKey is the raw ed25519 public key, base64. It is informative:
	// a trust policy verifies with its own copy of the key.
	PublicKey string `json:"publicKey"`
	// Payload is the signed bytes, base64 (a CanonicalPayload).
	Payload string `json:"payload"`
	// Signature is the ed25519 signature of Payload's bytes, base64.
	Signature string `json:"signature"`
}

// KeyID is a short fingerprint of an ed25519 public key: "ed25519:" and
// the first 16 hex digits of the sha256 of the raw key.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return "ed25519:" + hex.EncodeToString(sum[:])[:16]
}

// GenerateKey writes a new ed25519 key pair: name+".key" (PKCS#8 PEM,
// mode 0600) and name+".pub" (PKIX PEM). It refuses to overwrite either.
func GenerateKey(name string) (id string, err error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return "", err
	}
	privDER, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return "", err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", err
	}
	keyFile, pubFile := name+".key", name+".pub"
	for _, f := range []string{keyFile, pubFile} {
		if _, err := os.Lstat(f); err == nil {
			return "", fmt.Errorf("%s already exists; not overwriting a key", f)
		}
	}
	if err := writeNew(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: privDER}), 0o600); err != nil {
		return "", err
	}
	if err := writeNew(pubFile, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), 0o644); err != nil {
		os.Remove(keyFile)
		return "", err
	}
	return KeyID(pub), nil
}

func writeNew(file string, data []byte, mode os.FileMode) error {
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(file)
		return err
	}
	return f.Close()
}

// readPEM reads the one PEM block of type typ in file.
func readPEM(file, typ, what string) ([]byte, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if len(data) > 64<<10 {
		return nil, fmt.Errorf("%s %s: %d bytes; expected a PEM %s block", what, file, len(data), typ)
	}
	block, rest := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("%s %s: no PEM block; expected a PEM %q block (wasmeval plugin keygen writes one)", what, file, typ)
	}
	if block.Type != typ {
		return nil, fmt.Errorf("%s %s: PEM block %q; expected %q", what, file, block.Type, typ)
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		return nil, fmt.Errorf("%s %s: more than one PEM block; expected one %q block", what, file, typ)
	}
	return block.Bytes, nil
}

// LoadPrivateKey reads an ed25519 private key (PEM PKCS#8) from file.
func LoadPrivateKey(file string) (ed25519.PrivateKey, error) {
	der, err := readPEM(file, "PRIVATE KEY", "private key")
	if err != nil {
		return nil, err
	}
	k, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, fmt.Errorf("private key %s: not PKCS#8: %v", file, err)
	}
	priv, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("private key %s: a %T key; expected ed25519", file, k)
	}
	return priv, nil
}

// LoadPublicKey reads an ed25519 public key (PEM PKIX) from file.
func LoadPublicKey(file string) (ed25519.PublicKey, error) {
	der, err := readPEM(file, "PUBLIC KEY", "public key")
	if err != nil {
		return nil, err
	}
	k, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		return nil, fmt.Errorf("public key %s: not PKIX: %v", file, err)
	}
	pub, ok := k.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("public key %s: a %T key; expected ed25519", file, k)
	}
	return pub, nil
}

// Signed describes a pushed signature.
type Signed struct {
	Ref            Ref
	ManifestDigest string
	KeyID          string
	// SignatureDigest is the signature manifest's digest.
	SignatureDigest string
}

// Sign resolves ref (a tag or a digest) to its manifest, checks that it
// is a plugin artifact, signs CanonicalPayload(manifest, HOST/REPOSITORY)
// with key and pushes the signature as a referrer of the manifest. A
// registry without the referrers API (e.g. distribution 2.8) gets the
// referrers tag (sha256-<hex>) oras maintains instead.
func Sign(ctx context.Context, r *Remote, ref Ref, key ed25519.PrivateKey) (Signed, error) {
	repo, err := r.repository(ctx, ref)
	if err != nil {
		return Signed{}, err
	}
	desc, err := repo.Resolve(ctx, ref.Reference())
	if err != nil {
		return Signed{}, remoteErr(ref, "resolve", err)
	}
	if ref.Digest != "" && desc.Digest.String() != ref.Digest {
		return Signed{}, integrityErr(ref, "the registry answered with manifest %s", desc.Digest)
	}
	// Only a plugin artifact is signed: a signature vouches for a module.
	if _, err := readArtifact(ctx, repo, ref, desc); err != nil {
		return Signed{}, remoteErr(ref, "sign", err)
	}
	pub := key.Public().(ed25519.PublicKey)
	payload := CanonicalPayload(desc.Digest.String(), ref.Host+"/"+ref.Repository)
	env, _ := json.Marshal(SignatureEnvelope{
		KeyID:     KeyID(pub),
		PublicKey: base64.StdEncoding.EncodeToString(pub),
		Payload:   base64.StdEncoding.EncodeToString(payload),
		Signature: base64.StdEncoding.EncodeToString(ed25519.Sign(key, payload)),
	})
	mem := memory.New()
	layer := content.NewDescriptorFromBytes(SignatureMediaType, env)
	if err := mem.Push(ctx, layer, bytes.NewReader(env)); err != nil {
		return Signed{}, err
	}
	subject := ocispec.Descriptor{MediaType: desc.MediaType, Digest: desc.Digest, Size: desc.Size}
	manifest, err := oras.PackManifest(ctx, mem, oras.PackManifestVersion1_1, SignatureArtifactType, oras.PackManifestOptions{
		Subject: &subject, Layers: []ocispec.Descriptor{layer},
		ManifestAnnotations: map[string]string{"dev.wasmeval.signature.keyid": KeyID(pub)},
	})
	if err != nil {
		return Signed{}, fmt.Errorf("sign %s: pack the signature: %w", ref, err)
	}
	// CopyGraph pushes the empty config, the layer, then the manifest;
	// the subject is already there and is skipped.
	if err := oras.CopyGraph(ctx, mem, repo, manifest, oras.DefaultCopyGraphOptions); err != nil {
		return Signed{}, remoteErr(ref, "push the signature", err)
	}
	return Signed{Ref: ref, ManifestDigest: desc.Digest.String(), KeyID: KeyID(pub), SignatureDigest: manifest.Digest.String()}, nil
}

// Signature is one signature found for a manifest, checked on its own
// (not yet against a trust policy).
type Signature struct {
	// Digest is the signature manifest's digest.
	Digest string
	// KeyID is the key id the envelope names (set even when Err is).
	KeyID string
	// PublicKey is the key the signature verified with.
	PublicKey ed25519.PublicKey
	// Err says why the signature is invalid (nil: valid for this
	// manifest and repository).
	Err error
}

// SignatureSource lists the signatures of a plugin manifest: a registry
// (*Remote) or the local cache (*Cache), which keeps the signatures
// fetched with a plugin so that it can be verified offline.
type SignatureSource interface {
	Signatures(ctx context.Context, ref Ref, manifestDigest string) ([]Signature, error)
}

// Signatures fetches and checks the signatures of ref's manifest
// manifestDigest from its registry.
func (r *Remote) Signatures(ctx context.Context, ref Ref, manifestDigest string) ([]Signature, error) {
	repo, err := r.repository(ctx, ref)
	if err != nil {
		return nil, err
	}
	at := ref.AtDigest(manifestDigest)
	desc, err := repo.Resolve(ctx, manifestDigest)
	if err != nil {
		return nil, remoteErr(at, "resolve", err)
	}
	sigs, err := signaturesIn(ctx, repo, at, desc)
	if err != nil {
		return nil, remoteErr(at, "fetch the signatures", err)
	}
	return sigs, nil
}

// Signatures lists the signatures of manifestDigest kept in the cache
// (copied beside the plugin when it was pulled or imported).
func (c *Cache) Signatures(ctx context.Context, ref Ref, manifestDigest string) ([]Signature, error) {
	at := ref.AtDigest(manifestDigest)
	var sigs []Signature
	err := c.view(ctx, func(s *oci.Store) error {
		desc, err := s.Resolve(ctx, manifestDigest)
		if err != nil {
			if why := c.corruptWhy(manifestDigest); why != "" {
				return &Error{Ref: at.String(), Kind: ErrNotFound, Msg: fmt.Sprintf("manifest %s in the plugin cache %s is corrupt (%s); run `wasmeval plugin pull %s` (or `wasmeval plugin import`)", manifestDigest, c.dir, why, at), Err: err}
			}
			return &Error{Ref: at.String(), Kind: ErrNotFound, Msg: fmt.Sprintf("manifest %s is not in the plugin cache %s; run `wasmeval plugin pull %s` (or `wasmeval plugin import`) first", manifestDigest, c.dir, at), Err: err}
		}
		sigs, err = signaturesIn(ctx, s, at, desc)
		return err
	})
	return sigs, err
}

// signaturesIn lists and checks the signature referrers of desc in store.
func signaturesIn(ctx context.Context, store content.ReadOnlyGraphStorage, ref Ref, desc ocispec.Descriptor) ([]Signature, error) {
	refs, err := registry.Referrers(ctx, store, desc, SignatureArtifactType)
	if err != nil {
		return nil, err
	}
	if len(refs) > maxSignatures {
		refs = refs[:maxSignatures]
	}
	repository := ref.Host + "/" + ref.Repository
	var out []Signature
	for _, d := range refs {
		s := Signature{Digest: d.Digest.String()}
		s.KeyID, s.PublicKey, s.Err = checkSignature(ctx, store, d, desc.Digest.String(), repository)
		out = append(out, s)
	}
	return out, nil
}

// checkSignature fetches the signature manifest d and checks that it
// refers to manifest, and that its envelope's signature verifies over the
// canonical payload of manifest in repository. A failure to fetch is an
// invalid signature too, named by its digest.
func checkSignature(ctx context.Context, store content.Fetcher, d ocispec.Descriptor, manifest, repository string) (string, ed25519.PublicKey, error) {
	if d.MediaType != ocispec.MediaTypeImageManifest || d.Size <= 0 || d.Size > MaxManifestBytes {
		return "", nil, fmt.Errorf("signature %s: a %s of %d bytes; expected an image manifest", d.Digest, d.MediaType, d.Size)
	}
	raw, err := content.FetchAll(ctx, store, d)
	if err != nil {
		return "", nil, fmt.Errorf("signature %s: %v", d.Digest, oneLine(err))
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", nil, fmt.Errorf("signature %s: manifest is not valid JSON", d.Digest)
	}
	// A referrers listing (the fallback tag, above all) is only an
	// index: the manifest's own subject must name this manifest.
	if m.Subject == nil || m.Subject.Digest.String() != manifest {
		return "", nil, fmt.Errorf("signature %s: refers to another manifest, not %s", d.Digest, manifest)
	}
	if m.ArtifactType != SignatureArtifactType || len(m.Layers) != 1 || m.Layers[0].MediaType != SignatureMediaType {
		return "", nil, fmt.Errorf("signature %s: expected artifactType %s and one %s layer", d.Digest, SignatureArtifactType, SignatureMediaType)
	}
	l := m.Layers[0]
	if l.Size <= 0 || l.Size > MaxSignatureBytes {
		return "", nil, fmt.Errorf("signature %s: layer of %d bytes; expected 1 to %d", d.Digest, l.Size, MaxSignatureBytes)
	}
	body, err := content.FetchAll(ctx, store, l)
	if err != nil {
		return "", nil, fmt.Errorf("signature %s: layer: %v", d.Digest, oneLine(err))
	}
	return VerifyEnvelope(body, manifest, repository)
}

// VerifyEnvelope checks a signature envelope: that its key id is its
// public key's, that the signature verifies over exactly the payload
// bytes it carries, and that those bytes are the canonical payload of
// manifest in repository. It returns the key id and key.
func VerifyEnvelope(body []byte, manifest, repository string) (string, ed25519.PublicKey, error) {
	var env SignatureEnvelope
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil {
		return "", nil, fmt.Errorf("signature envelope: %v; expected {keyid, publicKey, payload, signature}", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return "", nil, errors.New("signature envelope: data after the JSON object")
	}
	bad := func(format string, a ...any) (string, ed25519.PublicKey, error) {
		return env.KeyID, nil, fmt.Errorf("signature by %s: "+format, append([]any{orUnknown(env.KeyID)}, a...)...)
	}
	pub, err := base64.StdEncoding.DecodeString(env.PublicKey)
	if err != nil || len(pub) != ed25519.PublicKeySize {
		return bad("publicKey: expected %d bytes of base64", ed25519.PublicKeySize)
	}
	if id := KeyID(pub); id != env.KeyID {
		return bad("keyid does not match its public key (%s)", id)
	}
	payload, err := base64.StdEncoding.DecodeString(env.Payload)
	if err != nil {
		return bad("payload: expected base64")
	}
	sig, err := base64.StdEncoding.DecodeString(env.Signature)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return bad("signature: expected %d bytes of base64", ed25519.SignatureSize)
	}
	if !ed25519.Verify(pub, payload, sig) {
		return bad("the signature does not verify over its payload (tampered)")
	}
	// The bytes verified must be the canonical payload of this manifest
	// here, byte for byte: nothing else in them is interpreted.
	if !bytes.Equal(payload, CanonicalPayload(manifest, repository)) {
		var p SignedPayload
		if json.Unmarshal(payload, &p) == nil && p.Type == SignaturePayloadType {
			if p.Manifest != manifest {
				return bad("signs manifest %s, not %s", p.Manifest, manifest)
			}
			if p.Repository != repository {
				return bad("signs the plugin in repository %s, not %s", p.Repository, repository)
			}
		}
		return bad("payload is not the canonical %q payload for %s in %s", SignaturePayloadType, manifest, repository)
	}
	return env.KeyID, ed25519.PublicKey(pub), nil
}

func orUnknown(s string) string {
	if s == "" || len(s) > 40 || strings.ContainsAny(s, " \t\r\n") {
		return "an unnamed key"
	}
	return s
}

// isReferrer reports whether the manifest desc in store has a subject: a
// signature or another referrer, which is not a plugin artifact itself.
func isReferrer(ctx context.Context, store content.Fetcher, desc ocispec.Descriptor) bool {
	if desc.MediaType != ocispec.MediaTypeImageManifest || desc.Size <= 0 || desc.Size > MaxManifestBytes {
		return false
	}
	raw, err := content.FetchAll(ctx, store, desc)
	if err != nil {
		return false
	}
	var m struct {
		Subject *ocispec.Descriptor `json:"subject"`
	}
	return json.Unmarshal(raw, &m) == nil && m.Subject != nil
}

// ResolveManifest resolves ref (a tag or a digest) in its registry to its
// manifest digest.
func (r *Remote) ResolveManifest(ctx context.Context, ref Ref) (string, error) {
	repo, err := r.repository(ctx, ref)
	if err != nil {
		return "", err
	}
	desc, err := repo.Resolve(ctx, ref.Reference())
	if err != nil {
		return "", remoteErr(ref, "resolve", err)
	}
	if ref.Digest != "" && desc.Digest.String() != ref.Digest {
		return "", integrityErr(ref, "the registry answered with manifest %s", desc.Digest)
	}
	return desc.Digest.String(), nil
}

// ResolveManifest finds ref in the cache, offline: a digest as is, a tag
// by the reference it was pulled with.
func (c *Cache) ResolveManifest(ctx context.Context, ref Ref) (string, error) {
	key := ref.Digest
	if key == "" {
		key = ref.Name()
	}
	var got string
	err := c.view(ctx, func(s *oci.Store) error {
		desc, err := s.Resolve(ctx, key)
		if err != nil {
			return &Error{Ref: ref.String(), Kind: ErrNotFound, Msg: fmt.Sprintf("not in the plugin cache %s; pull it (or import it) first", c.dir), Err: err}
		}
		got = desc.Digest.String()
		return nil
	})
	return got, err
}
