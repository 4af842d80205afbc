package share

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/share/sharetest"
)

// TestCorruptManifestIsOneMiss corrupts, in a cache filled from a real
// registry, one plugin's manifest blob and another's signature manifest:
// the cache still opens, lists both as CORRUPT naming the digest, keeps
// the third plugin working, refetches a corrupt entry by digest online,
// names the digest and the pull command offline, and prune forgets them.
func TestCorruptManifestIsOneMiss(t *testing.T) {
	ctx := context.Background()
	reg := sharetest.StartRegistry(t, sharetest.RegistryOptions{})
	r := dockerRemote(t, RemoteOptions{})
	push := func(name string) (Ref, Pushed) {
		ref := mustRef(t, "oci://"+reg.Host+"/team-a/"+name+":1")
		p, err := Push(ctx, writeModule(t, fakeModule(name)), ref, PushOptions{Remote: r, Describe: testDescribe})
		if err != nil {
			t.Fatal(err)
		}
		return ref, p
	}
	badRef, bad := push("bad")
	signedRef, signed := push("signed")
	goodRef, good := push("good")
	pushReferrer(t, r, signedRef, subjectOf(t, r, signedRef), []byte(`{"not":"checked here"}`))
	c := newCache(t)
	for _, ref := range []Ref{badRef, signedRef, goodRef} {
		if _, err := Pull(ctx, r, c, ref); err != nil {
			t.Fatal(err)
		}
	}
	var sigDigest string
	index, _ := readIndex(c.Dir())
	for _, d := range index.Manifests {
		if s := d.Digest.String(); s != bad.ManifestDigest && s != signed.ManifestDigest && s != good.ManifestDigest {
			sigDigest = s
		}
	}
	if sigDigest == "" {
		t.Fatal("the signature was not cached")
	}
	corrupt := func(manifest string) {
		t.Helper()
		p := c.blobPath(strings.TrimPrefix(manifest, "sha256:"))
		if err := os.WriteFile(p, []byte(`{"schemaVersion":2}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	corrupt(bad.ManifestDigest)
	corrupt(sigDigest)

	entries, err := c.List(ctx)
	if err != nil {
		t.Fatalf("a corrupt manifest breaks the whole cache: %v", err)
	}
	byDigest := map[string]CacheEntry{}
	for _, e := range entries {
		byDigest[e.ManifestDigest] = e
	}
	if e := byDigest[bad.ManifestDigest]; !e.Corrupt || !strings.Contains(e.Problem, "hashes to") || len(e.Refs) != 1 || e.Refs[0] != badRef.Name() {
		t.Fatalf("corrupt manifest listed as %+v", e)
	}
	if e := byDigest[sigDigest]; !e.Corrupt || !strings.Contains(e.Problem, "hashes to") {
		t.Fatalf("corrupt signature listed as %+v", e)
	}
	if e := byDigest[good.ManifestDigest]; e.Corrupt || e.WasmDigest != good.WasmDigest {
		t.Fatalf("intact plugin listed as %+v", e)
	}
	if sigs, err := c.Signatures(ctx, goodRef, good.ManifestDigest); err != nil || len(sigs) != 0 {
		t.Fatalf("signatures of the intact plugin: %v %v", sigs, err)
	}
	// Offline: the error names the digest and how to fetch it again.
	_, err = c.Signatures(ctx, badRef, bad.ManifestDigest)
	if err == nil || !strings.Contains(err.Error(), "manifest "+bad.ManifestDigest+" in the plugin cache") || !strings.Contains(err.Error(), "is corrupt") ||
		!strings.Contains(err.Error(), "wasmeval plugin pull "+badRef.AtDigest(bad.ManifestDigest).String()) {
		t.Fatalf("offline, corrupt manifest: %v", err)
	}
	// Online: a pull by digest (what a run does) fetches it again.
	if _, err := Pull(ctx, r, c, badRef.AtDigest(bad.ManifestDigest)); err != nil {
		t.Fatalf("refetch by digest: %v", err)
	}
	if sigs, err := c.Signatures(ctx, badRef, bad.ManifestDigest); err != nil || len(sigs) != 0 {
		t.Fatalf("after refetch: %v %v", sigs, err)
	}
	removed, _, err := c.Prune(ctx, func(CacheEntry) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range removed {
		names = append(names, e.ManifestDigest)
		if !e.Corrupt {
			t.Fatalf("prune removed an intact entry: %+v", e)
		}
	}
	if len(names) != 1 || names[0] != sigDigest {
		t.Fatalf("prune removed %v, expected the corrupt signature %s", names, sigDigest)
	}
	if entries, err = c.List(ctx); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Corrupt {
			t.Fatalf("after prune: %+v", e)
		}
	}
	if len(entries) != 3 {
		t.Fatalf("after prune: %d entries, expected the three plugins", len(entries))
	}
}
