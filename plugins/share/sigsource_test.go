package share

import (
	"context"
	"testing"
	"time"
)

// TestOnlineCheckAsksTheRegistry signs, on a real registry, a plugin
// after it was cached: offline, the refusal says the cache holds no
// signature (not that the plugin is unsigned); online, the check finds the
// signature in the registry and stores it, so the next offline check
// accepts. A plugin the registry has no signature for is unsigned.
func TestOnlineCheckAsksTheRegistry(t *testing.T) {
	ctx := context.Background()
	reg := distributionRegistry(t)
	r := testRemote(t)
	dir := t.TempDir()
	key, id := genKey(t, dir, "k")
	pol := writePolicy(t, dir, "version: 1\nkeys:\n  k: k.pub\npolicies:\n  - repositories: [\"*\"]\n    signed_by: [k]\n")
	ref := mustRef(t, "oci://"+reg.host+"/team/late:1")
	p := pushTestPlugin(t, r, ref.String(), "late")
	other := mustRef(t, "oci://"+reg.host+"/team/never:1")
	q := pushTestPlugin(t, r, other.String(), "never")
	c := newCache(t)
	for _, x := range []Ref{ref, other} {
		if _, err := Pull(ctx, r, c, x); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Sign(ctx, r, ref, key); err != nil {
		t.Fatal(err)
	}
	offline := CachedSignatures{Cache: c}
	_, err := pol.Check(ctx, offline, ref, p.ManifestDigest)
	wantSigErr(t, err, ref.String(), "the plugin cache holds no signature for manifest "+p.ManifestDigest, "offline", "wasmeval plugin pull "+ref.AtDigest(p.ManifestDigest).String())
	online := CachedSignatures{Cache: c, Remote: r}
	if who, err := pol.Check(ctx, online, ref, p.ManifestDigest); err != nil || who.KeyID != id {
		t.Fatalf("online check: %v %v", who, err)
	}
	if reg.stop != nil {
		reg.stop()
	}
	if who, err := pol.Check(ctx, offline, ref, p.ManifestDigest); err != nil || who.KeyID != id {
		t.Fatalf("offline, after the online check stored the signature: %v %v", who, err)
	}
	_, err = pol.Check(ctx, offline, other, q.ManifestDigest)
	wantSigErr(t, err, other.String(), "the plugin cache holds no signature")
}

// TestUnsignedOnline: online, with no signature in the cache nor the
// registry, the plugin is unsigned.
func TestUnsignedOnline(t *testing.T) {
	ctx := context.Background()
	reg := distributionRegistry(t)
	r := testRemote(t)
	dir := t.TempDir()
	genKey(t, dir, "k")
	pol := writePolicy(t, dir, "version: 1\nkeys:\n  k: k.pub\npolicies:\n  - repositories: [\"*\"]\n    signed_by: [k]\n")
	ref := mustRef(t, "oci://"+reg.host+"/team/never:1")
	p := pushTestPlugin(t, r, ref.String(), "never")
	c := newCache(t)
	if _, err := Pull(ctx, r, c, ref); err != nil {
		t.Fatal(err)
	}
	_, err := pol.Check(ctx, CachedSignatures{Cache: c, Remote: r}, ref, p.ManifestDigest)
	wantSigErr(t, err, ref.String(), "unsigned; trust policy")
}

// TestUnsignedRepushNamesTheSignedTwin: on a real registry, a plugin is
// signed, then the same module is pushed again with a different manifest
// (another creation time) under a new tag; checking the new manifest says
// it is unsigned and names the signed manifest holding the same module.
func TestUnsignedRepushNamesTheSignedTwin(t *testing.T) {
	ctx := context.Background()
	reg := distributionRegistry(t)
	r := testRemote(t)
	dir := t.TempDir()
	key, _ := genKey(t, dir, "k")
	pol := writePolicy(t, dir, "version: 1\nkeys:\n  k: k.pub\npolicies:\n  - repositories: [\"*\"]\n    signed_by: [k]\n")
	module := writeModule(t, fakeModule("twin"))
	first := mustRef(t, "oci://"+reg.host+"/team/twin:1.0")
	signed, err := Push(ctx, module, first, PushOptions{Remote: r, Describe: testDescribe, Created: time.Unix(1, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Sign(ctx, r, first, key); err != nil {
		t.Fatal(err)
	}
	again := mustRef(t, "oci://"+reg.host+"/team/twin:1.1")
	repushed, err := Push(ctx, module, again, PushOptions{Remote: r, Describe: testDescribe, Created: time.Unix(2, 0)})
	if err != nil || repushed.ManifestDigest == signed.ManifestDigest {
		t.Fatalf("re-push: %v %v", repushed, err)
	}
	_, err = pol.Check(ctx, r, again, repushed.ManifestDigest)
	wantSigErr(t, err, again.String(), "unsigned (manifest "+signed.ManifestDigest+", tag 1.0, holds the same module sha256:"+signed.WasmDigest+" and is signed by k")
}
