package share

import (
	"context"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/share/sharetest"
)

// TestLockRecordsAreChecked resolves, through a real registry and then
// offline from the cache, a lock whose size, kinds or ABI version were
// edited by hand: each is refused naming the lock, the key and both
// values. A missing lock file is said to be missing.
func TestLockRecordsAreChecked(t *testing.T) {
	reg, r, ref, pushed := pushedToRegistry(t)
	good := LockEntry{Ref: ref.String(), Manifest: pushed.ManifestDigest, SHA256: pushed.WasmDigest, Size: pushed.Size, ABIVersion: testDescribe.ABIVersion, Kinds: testDescribe.Kinds}
	resolve := func(c *Cache, remote *Remote, e LockEntry) error {
		res, _ := NewResolver(ResolverOptions{Cache: c, Remote: remote, LockPath: "p/wasmeval.lock", Problem: "p", Lock: &Lock{Version: LockVersion, Plugins: []LockEntry{e}}})
		_, err := res.Resolve(ref.String(), pushed.WasmDigest)
		return err
	}
	for _, tc := range []struct {
		key  string
		edit func(*LockEntry)
	}{
		{"size", func(e *LockEntry) { e.Size++ }},
		{"abi_version", func(e *LockEntry) { e.ABIVersion = 7 }},
		{"kinds", func(e *LockEntry) { e.Kinds = []string{"loader"} }},
	} {
		e := good
		tc.edit(&e)
		err := resolve(newCache(t), r, e)
		if err == nil || !strings.Contains(err.Error(), "p/wasmeval.lock records "+tc.key+" ") || !strings.Contains(err.Error(), "the lock was edited or is damaged") {
			t.Fatalf("online, edited %s: %v", tc.key, err)
		}
	}
	c := newCache(t)
	if err := resolve(c, r, good); err != nil {
		t.Fatal(err)
	}
	reg.Stop()
	edited := good
	edited.Size = 3
	if err := resolve(c, nil, edited); err == nil || !strings.Contains(err.Error(), "records size 3 but the module's is ") {
		t.Fatalf("offline, edited size: %v", err)
	}
	if err := resolve(c, nil, good); err != nil {
		t.Fatalf("offline, intact lock: %v", err)
	}

	res, _ := NewResolver(ResolverOptions{Cache: c, LockPath: "p/wasmeval.lock", Problem: "p", Lock: &Lock{Version: LockVersion}, LockMissing: true})
	if _, err := res.Resolve(ref.String(), pushed.WasmDigest); err == nil || !strings.Contains(err.Error(), "the problem has no lock file (p/wasmeval.lock does not exist); run `wasmeval plugin lock p`") {
		t.Fatalf("missing lock: %v", err)
	}
}

// TestPullByModuleDigest pulls, from a real registry, by the module's
// digest (the pin) instead of the manifest's: the error says which digest
// @sha256: takes.
func TestPullByModuleDigest(t *testing.T) {
	ctx := context.Background()
	_, r, ref, pushed := pushedToRegistry(t)
	for _, c := range []*Cache{newCache(t), nil} {
		if c == nil { // the cache knows it as a module digest too
			c = newCache(t)
			if _, err := Pull(ctx, r, c, ref); err != nil {
				t.Fatal(err)
			}
		}
		_, err := Pull(ctx, r, c, ref.AtDigest("sha256:"+pushed.WasmDigest))
		if err == nil || !strings.Contains(err.Error(), "sha256:"+pushed.WasmDigest+" is a module digest") || !strings.Contains(err.Error(), "@sha256: takes the manifest digest") || strings.Contains(err.Error(), "500") {
			t.Fatalf("pull by module digest: %v", err)
		}
	}
	// A digest the registry does not know at all stays "not found".
	_, err := Pull(ctx, r, newCache(t), ref.AtDigest("sha256:"+strings.Repeat("0", 64)))
	if err == nil || strings.Contains(err.Error(), "module digest") {
		t.Fatalf("pull by an unknown digest: %v", err)
	}
}

// pushedToRegistry starts a real registry and pushes the built test plugin
// to it as team-a/stats-verifier:1.4.
func pushedToRegistry(t *testing.T) (*sharetest.Registry, *Remote, Ref, Pushed) {
	t.Helper()
	reg := sharetest.StartRegistry(t, sharetest.RegistryOptions{})
	r := dockerRemote(t, RemoteOptions{})
	ref := mustRef(t, "oci://"+reg.Host+"/team-a/stats-verifier:1.4")
	pushed, err := Push(context.Background(), builtPlugin(t), ref, PushOptions{Remote: r, Describe: testDescribe})
	if err != nil {
		t.Fatal(err)
	}
	return reg, r, ref, pushed
}
