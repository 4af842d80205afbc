package share

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/wasmeval/wasmeval/plugins/share/sharetest"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/memory"
)

// signTestRegistry is a registry the signature tests run against.
type signTestRegistry struct {
	host string
	// stop stops it.
	stop func()
}

// inProcessSigRegistry serves the referrers API (go-containerregistry).
func inProcessSigRegistry(t *testing.T) signTestRegistry {
	return signTestRegistry{host: inProcessRegistry(t)}
}

// distributionRegistry is Debian's docker-registry (distribution 2.8, no
// referrers API: oras falls back to the referrers tag).
func distributionRegistry(t *testing.T) signTestRegistry {
	reg := sharetest.StartRegistry(t, sharetest.RegistryOptions{})
	return signTestRegistry{host: reg.Host, stop: reg.Stop}
}

// pushTestPlugin pushes a minimal module (its bytes vary with body) to ref.
func pushTestPlugin(t *testing.T, r *Remote, ref string, body string) Pushed {
	t.Helper()
	file := filepath.Join(t.TempDir(), "p.wasm")
	if err := os.WriteFile(file, append([]byte("\x00asm\x01\x00\x00\x00"), body...), 0o644); err != nil {
		t.Fatal(err)
	}
	pr, err := ParseRef(ref)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Push(context.Background(), file, pr, PushOptions{Remote: r})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func genKey(t *testing.T, dir, name string) (ed25519.PrivateKey, string) {
	t.Helper()
	if _, err := GenerateKey(filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
	k, err := LoadPrivateKey(filepath.Join(dir, name+".key"))
	if err != nil {
		t.Fatal(err)
	}
	return k, KeyID(k.Public().(ed25519.PublicKey))
}

func writePolicy(t *testing.T, dir, text string) *Policy {
	t.Helper()
	f := filepath.Join(dir, "wasmeval.trust.yaml")
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := LoadPolicy(f)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// pushReferrer pushes a hand-made signature referrer of subject into
// ref's repository, as an attacker could.
func pushReferrer(t *testing.T, r *Remote, ref Ref, subject ocispec.Descriptor, envelope []byte) {
	t.Helper()
	ctx := context.Background()
	repo, err := r.repository(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.New()
	layer := content.NewDescriptorFromBytes(SignatureMediaType, envelope)
	if err := mem.Push(ctx, layer, bytes.NewReader(envelope)); err != nil {
		t.Fatal(err)
	}
	m, err := oras.PackManifest(ctx, mem, oras.PackManifestVersion1_1, SignatureArtifactType, oras.PackManifestOptions{Subject: &subject, Layers: []ocispec.Descriptor{layer}})
	if err != nil {
		t.Fatal(err)
	}
	if err := oras.CopyGraph(ctx, mem, repo, m, oras.DefaultCopyGraphOptions); err != nil {
		t.Fatal(err)
	}
}

func subjectOf(t *testing.T, r *Remote, ref Ref) ocispec.Descriptor {
	t.Helper()
	repo, err := r.repository(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	d, err := repo.Resolve(context.Background(), ref.Reference())
	if err != nil {
		t.Fatal(err)
	}
	return ocispec.Descriptor{MediaType: d.MediaType, Digest: d.Digest, Size: d.Size}
}

// envelopeOf fetches the one signature envelope of ref's manifest.
func envelopeOf(t *testing.T, r *Remote, ref Ref) SignatureEnvelope {
	t.Helper()
	ctx := context.Background()
	repo, _ := r.repository(ctx, ref)
	d := subjectOf(t, r, ref)
	var refs []ocispec.Descriptor
	if err := repo.Referrers(ctx, d, SignatureArtifactType, func(rs []ocispec.Descriptor) error { refs = append(refs, rs...); return nil }); err != nil || len(refs) != 1 {
		t.Fatalf("referrers of %s: %v %v", ref, refs, err)
	}
	raw, err := content.FetchAll(ctx, repo, refs[0])
	if err != nil {
		t.Fatal(err)
	}
	var m ocispec.Manifest
	json.Unmarshal(raw, &m)
	body, err := content.FetchAll(ctx, repo, m.Layers[0])
	if err != nil {
		t.Fatal(err)
	}
	var env SignatureEnvelope
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatal(err)
	}
	return env
}

func wantSigErr(t *testing.T, err error, ref string, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: accepted; want a refusal mentioning %q", ref, parts)
	}
	if !IsKind(err, ErrSignature) {
		t.Fatalf("%s: error of another kind: %v", ref, err)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, ref) {
		t.Fatalf("error is not one line naming %s: %q", ref, msg)
	}
	for _, p := range parts {
		if !strings.Contains(msg, p) {
			t.Fatalf("error %q does not say %q", msg, p)
		}
	}
}

// TestSignVerify signs and verifies against both registries: the
// in-process one (referrers API) and distribution 2.8 (referrers tag).
func TestSignVerify(t *testing.T) {
	for name, start := range map[string]func(*testing.T) signTestRegistry{"in-process": inProcessSigRegistry, "distribution": distributionRegistry} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			reg := start(t)
			r := testRemote(t)
			dir := t.TempDir()
			keyA, idA := genKey(t, dir, "team-a")
			keyB, _ := genKey(t, dir, "team-b")
			pol := writePolicy(t, dir, fmt.Sprintf(`version: 1
keys:
  team-a: team-a.pub
  team-b: team-b.pub
policies:
  - repositories: ["%[1]s/team-a/*"]
    signed_by: [team-a]
  - repositories: ["%[1]s/team-b/*"]
    signed_by: [team-b]
  - repositories: ["%[1]s/open/*"]
    signed_by: []
`, reg.host))

			signed := mustRef(t, "oci://"+reg.host+"/team-a/verifier:1.0")
			p := pushTestPlugin(t, r, signed.String(), "signed")
			s, err := Sign(ctx, r, signed, keyA)
			if err != nil {
				t.Fatal(err)
			}
			if s.KeyID != idA || s.ManifestDigest != p.ManifestDigest {
				t.Fatalf("signed %+v; want key %s manifest %s", s, idA, p.ManifestDigest)
			}
			who, err := pol.Check(ctx, r, signed, p.ManifestDigest)
			if err != nil || who.Name != "team-a" || who.KeyID != idA {
				t.Fatalf("check of a signed plugin: %v %v", who, err)
			}

			// Unsigned, under a policy requiring a signature.
			unsigned := mustRef(t, "oci://"+reg.host+"/team-a/other:1.0")
			pu := pushTestPlugin(t, r, unsigned.String(), "unsigned")
			_, err = pol.Check(ctx, r, unsigned, pu.ManifestDigest)
			wantSigErr(t, err, unsigned.String(), "unsigned", "team-a")

			// Signed by a key the policy does not trust for the repository.
			wrong := mustRef(t, "oci://"+reg.host+"/team-a/wrongkey:1.0")
			pw := pushTestPlugin(t, r, wrong.String(), "wrong key")
			if _, err := Sign(ctx, r, wrong, keyB); err != nil {
				t.Fatal(err)
			}
			_, err = pol.Check(ctx, r, wrong, pw.ManifestDigest)
			wantSigErr(t, err, wrong.String(), "does not trust")

			// A repository that requires nothing, and one no policy matches.
			open := mustRef(t, "oci://"+reg.host+"/open/x:1")
			po := pushTestPlugin(t, r, open.String(), "open")
			if who, err := pol.Check(ctx, r, open, po.ManifestDigest); err != nil || who != (Signer{}) {
				t.Fatalf("open repository: %v %v", who, err)
			}
			stray := mustRef(t, "oci://"+reg.host+"/elsewhere/x:1")
			_, err = pol.Check(ctx, r, stray, po.ManifestDigest)
			wantSigErr(t, err, stray.String(), "matches no policy")

			// A signature copied from another manifest: its subject is
			// rewritten to point here, but its payload signs the other.
			copied := mustRef(t, "oci://"+reg.host+"/team-a/copied:1.0")
			pc := pushTestPlugin(t, r, copied.String(), "copied")
			env := envelopeOf(t, r, signed)
			body, _ := json.Marshal(env)
			pushReferrer(t, r, copied, subjectOf(t, r, copied), body)
			_, err = pol.Check(ctx, r, copied, pc.ManifestDigest)
			wantSigErr(t, err, copied.String(), "signs manifest "+p.ManifestDigest)

			// The same plugin and signature copied into another
			// repository trusting the same key: the payload names the
			// repository it was signed for.
			moved := mustRef(t, "oci://"+reg.host+"/team-b/verifier:1.0")
			pm := pushTestPlugin(t, r, moved.String(), "signed")
			if pm.ManifestDigest != p.ManifestDigest {
				t.Fatalf("the same plugin pushed twice has manifests %s and %s: a push must be reproducible", p.ManifestDigest, pm.ManifestDigest)
			}
			pushReferrer(t, r, moved, subjectOf(t, r, moved), body)
			polB := writePolicy(t, t.TempDir(), fmt.Sprintf("version: 1\nkeys:\n  a: %s\npolicies:\n  - repositories: [\"*\"]\n    signed_by: [a]\n", filepath.Join(dir, "team-a.pub")))
			_, err = polB.Check(ctx, r, moved, pm.ManifestDigest)
			wantSigErr(t, err, moved.String(), "signs the plugin in repository "+reg.host+"/team-a/verifier")

			// Tampered: a valid signature of this plugin by a trusted key
			// with its signature bytes flipped, or its payload edited.
			for what, tamper := range map[string]func(e *SignatureEnvelope){
				"signature": func(e *SignatureEnvelope) {
					sig, _ := base64.StdEncoding.DecodeString(e.Signature)
					sig[3] ^= 1
					e.Signature = base64.StdEncoding.EncodeToString(sig)
				},
				"payload": func(e *SignatureEnvelope) {
					e.Payload = base64.StdEncoding.EncodeToString(CanonicalPayload(pc.ManifestDigest, reg.host+"/team-a/copied"))
				},
			} {
				ref := mustRef(t, "oci://"+reg.host+"/team-a/tampered-"+what+":1.0")
				pt := pushTestPlugin(t, r, ref.String(), "tampered "+what)
				e := makeEnvelope(keyA, pt.ManifestDigest, reg.host+"/"+ref.Repository)
				if _, _, err := VerifyEnvelope(mustJSON(e), pt.ManifestDigest, reg.host+"/"+ref.Repository); err != nil {
					t.Fatalf("untampered envelope: %v", err)
				}
				tamper(&e)
				pushReferrer(t, r, ref, subjectOf(t, r, ref), mustJSON(e))
				_, err = pol.Check(ctx, r, ref, pt.ManifestDigest)
				wantSigErr(t, err, ref.String(), "tampered")
			}
		})
	}
}

func makeEnvelope(key ed25519.PrivateKey, manifest, repository string) SignatureEnvelope {
	pub := key.Public().(ed25519.PublicKey)
	payload := CanonicalPayload(manifest, repository)
	return SignatureEnvelope{KeyID: KeyID(pub), PublicKey: base64.StdEncoding.EncodeToString(pub),
		Payload: base64.StdEncoding.EncodeToString(payload), Signature: base64.StdEncoding.EncodeToString(ed25519.Sign(key, payload))}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// TestVerifyOfflineFromCache pulls a signed plugin, stops the registry,
// and verifies from the cache; export and import keep the signatures.
func TestVerifyOfflineFromCache(t *testing.T) {
	ctx := context.Background()
	reg := distributionRegistry(t)
	r := testRemote(t)
	dir := t.TempDir()
	key, id := genKey(t, dir, "team-a")
	pol := writePolicy(t, dir, fmt.Sprintf("version: 1\nkeys:\n  team-a: team-a.pub\npolicies:\n  - repositories: [\"%s/team-a/*\"]\n    signed_by: [team-a]\n", reg.host))
	ref := mustRef(t, "oci://"+reg.host+"/team-a/verifier:2.0")
	p := pushTestPlugin(t, r, ref.String(), "offline")
	if _, err := Sign(ctx, r, ref, key); err != nil {
		t.Fatal(err)
	}
	unsignedRef := mustRef(t, "oci://"+reg.host+"/team-a/unsigned:1")
	pu := pushTestPlugin(t, r, unsignedRef.String(), "offline unsigned")

	c, err := OpenCache(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	for _, rf := range []Ref{ref, unsignedRef} {
		if _, err := Pull(ctx, r, c, rf); err != nil {
			t.Fatal(err)
		}
	}
	reg.stop()
	if _, err := pol.Check(ctx, r, ref, p.ManifestDigest); !IsKind(err, ErrUnreachable) {
		t.Fatalf("the registry is stopped, yet: %v", err)
	}
	// A fresh Cache value: nothing kept in memory from the pull.
	c, err = OpenCache(c.Dir())
	if err != nil {
		t.Fatal(err)
	}
	who, err := pol.Check(ctx, c, ref, p.ManifestDigest)
	if err != nil || who.KeyID != id {
		t.Fatalf("offline check from the cache: %v %v", who, err)
	}
	_, err = pol.Check(ctx, c, unsignedRef, pu.ManifestDigest)
	wantSigErr(t, err, unsignedRef.String(), "unsigned")
	// What a lock records.
	if s, err := pol.SignerOf(ctx, c, ref, p.ManifestDigest); err != nil || s != "team-a ("+id+")" {
		t.Fatalf("signer for the lock: %q %v", s, err)
	}
	var none *Policy
	if s, err := none.SignerOf(ctx, c, unsignedRef, pu.ManifestDigest); err != nil || s != "" {
		t.Fatalf("no policy: %q %v", s, err)
	}

	for _, dest := range []string{filepath.Join(t.TempDir(), "out"), filepath.Join(t.TempDir(), "out.tar")} {
		entries := []LockEntry{{Ref: ref.String(), Manifest: p.ManifestDigest, SHA256: p.WasmDigest, Size: p.Size}}
		if err := Export(ctx, c, nil, entries, dest); err != nil {
			t.Fatal(err)
		}
		c2, err := OpenCache(filepath.Join(t.TempDir(), "cache2"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Import(ctx, c2, dest); err != nil {
			t.Fatal(err)
		}
		if who, err := pol.Check(ctx, c2, ref, p.ManifestDigest); err != nil || who.KeyID != id {
			t.Fatalf("check after export to %s and import: %v %v", dest, who, err)
		}
	}
}

func TestKeys(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "k")
	id, err := GenerateKey(base)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(base + ".key")
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("private key mode: %v %v", fi.Mode(), err)
	}
	pub, err := LoadPublicKey(base + ".pub")
	if err != nil || KeyID(pub) != id || !strings.HasPrefix(id, "ed25519:") || len(id) != len("ed25519:")+16 {
		t.Fatalf("public key: %v %v %s", pub, err, id)
	}
	if _, err := GenerateKey(base); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("overwrote a key: %v", err)
	}
	bad := func(name, text string) string {
		f := filepath.Join(dir, name)
		os.WriteFile(f, []byte(text), 0o600)
		return f
	}
	for _, tc := range []struct {
		file string
		load func(string) error
		want string
	}{
		{bad("empty.key", ""), func(f string) error { _, err := LoadPrivateKey(f); return err }, "no PEM block"},
		{base + ".pub", func(f string) error { _, err := LoadPrivateKey(f); return err }, `expected "PRIVATE KEY"`},
		{base + ".key", func(f string) error { _, err := LoadPublicKey(f); return err }, `expected "PUBLIC KEY"`},
		{bad("junk.pub", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"), func(f string) error { _, err := LoadPublicKey(f); return err }, "not PKIX"},
		{filepath.Join(dir, "missing.pub"), func(f string) error { _, err := LoadPublicKey(f); return err }, "no such file"},
	} {
		err := tc.load(tc.file)
		if err == nil || !strings.Contains(err.Error(), tc.file) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want the file and %q", tc.file, err, tc.want)
		}
	}
}

func TestVerifyEnvelopeRefusesOddPayloads(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	m := "sha256:" + strings.Repeat("a", 64)
	envelope := func(payload []byte) []byte {
		b, _ := json.Marshal(SignatureEnvelope{KeyID: KeyID(pub), PublicKey: base64.StdEncoding.EncodeToString(pub),
			Payload: base64.StdEncoding.EncodeToString(payload), Signature: base64.StdEncoding.EncodeToString(ed25519.Sign(priv, payload))})
		return b
	}
	if _, _, err := VerifyEnvelope(envelope(CanonicalPayload(m, "h/r")), m, "h/r"); err != nil {
		t.Fatal(err)
	}
	// Validly signed, but not the canonical bytes: white space, an extra
	// field, another type.
	for _, p := range []string{
		`{"type": "wasmeval plugin signature v1","manifest":"` + m + `","repository":"h/r"}`,
		`{"type":"wasmeval plugin signature v1","manifest":"` + m + `","repository":"h/r","x":1}`,
		`{"type":"something else","manifest":"` + m + `","repository":"h/r"}`,
	} {
		if _, _, err := VerifyEnvelope(envelope([]byte(p)), m, "h/r"); err == nil || !strings.Contains(err.Error(), "canonical") {
			t.Errorf("payload %s: %v", p, err)
		}
	}
	e := envelope(CanonicalPayload(m, "h/r"))
	var env SignatureEnvelope
	json.Unmarshal(e, &env)
	env.KeyID = "ed25519:0000000000000000"
	b, _ := json.Marshal(env)
	if _, _, err := VerifyEnvelope(b, m, "h/r"); err == nil || !strings.Contains(err.Error(), "does not match its public key") {
		t.Errorf("wrong key id: %v", err)
	}
	if _, _, err := VerifyEnvelope([]byte(`{"keyid":"x","extra":1}`), m, "h/r"); err == nil {
		t.Error("unknown envelope field accepted")
	}
	if _, _, err := VerifyEnvelope(append(e, []byte(`{}`)...), m, "h/r"); err == nil {
		t.Error("trailing data accepted")
	}
}

// TestSignatureAfterPull: a plugin signed after it was cached gets its
// signature into the cache when it is pulled again.
func TestSignatureAfterPull(t *testing.T) {
	ctx := context.Background()
	reg := inProcessSigRegistry(t)
	r := testRemote(t)
	dir := t.TempDir()
	key, id := genKey(t, dir, "k")
	pol := writePolicy(t, dir, "version: 1\nkeys:\n  k: k.pub\npolicies:\n  - repositories: [\"*\"]\n    signed_by: [k]\n")
	ref := mustRef(t, "oci://"+reg.host+"/team/late:1")
	p := pushTestPlugin(t, r, ref.String(), "late")
	c := newCache(t)
	if _, err := Pull(ctx, r, c, ref); err != nil {
		t.Fatal(err)
	}
	_, err := pol.Check(ctx, c, ref, p.ManifestDigest)
	wantSigErr(t, err, ref.String(), "unsigned")
	if _, err := Sign(ctx, r, ref, key); err != nil {
		t.Fatal(err)
	}
	if _, err := Pull(ctx, r, c, ref); err != nil {
		t.Fatal(err)
	}
	if who, err := pol.Check(ctx, c, ref, p.ManifestDigest); err != nil || who.KeyID != id {
		t.Fatalf("after pulling again: %v %v", who, err)
	}
	// Signing something that is not there, or with the wrong reference.
	if _, err := Sign(ctx, r, mustRef(t, "oci://"+reg.host+"/team/none:1"), key); !IsKind(err, ErrNotFound) {
		t.Fatalf("sign a missing tag: %v", err)
	}
}
