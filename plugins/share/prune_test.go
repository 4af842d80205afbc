package share

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPruneKeepsWhatARunFetchedByDigest fills a cache the way a run does
// (the lock's manifest digest, no tag) from a real registry, prunes it
// keeping that lock's plugins, and checks that the plugin is still there,
// blobs and index agreeing, listed under its repository and the reference
// the lock names, and usable offline.
func TestPruneKeepsWhatARunFetchedByDigest(t *testing.T) {
	ctx := context.Background()
	reg, r, ref, pushed := pushedToRegistry(t)
	lock := &Lock{Version: LockVersion, Plugins: []LockEntry{{Ref: ref.String(), Manifest: pushed.ManifestDigest, SHA256: pushed.WasmDigest, Size: pushed.Size, ABIVersion: 1, Kinds: []string{"verifier"}}}}
	c := newCache(t)
	run, _ := NewResolver(ResolverOptions{Cache: c, Lock: lock, Remote: r})
	if _, err := run.Resolve(ref.String(), pushed.WasmDigest); err != nil {
		t.Fatal(err)
	}
	// An unrelated plugin pulled by tag, which the prune removes.
	other := mustRef(t, "oci://"+reg.Host+"/team-a/other:1")
	if _, err := Push(ctx, writeModule(t, fakeModule("other")), other, PushOptions{Remote: r, Describe: testDescribe}); err != nil {
		t.Fatal(err)
	}
	if _, err := Pull(ctx, r, c, other); err != nil {
		t.Fatal(err)
	}

	removed, _, err := c.Prune(ctx, func(e CacheEntry) bool { return e.ManifestDigest == pushed.ManifestDigest })
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 || removed[0].Refs[0] != other.Name() {
		t.Fatalf("removed %+v, expected only %s", removed, other)
	}
	entries, err := c.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := ref.AtDigest(pushed.ManifestDigest).Name()
	if len(entries) != 1 || entries[0].Corrupt || len(entries[0].Refs) != 1 || entries[0].Refs[0] != want ||
		len(entries[0].LockedAs) != 1 || entries[0].LockedAs[0] != ref.Name() {
		t.Fatalf("after prune: %+v, expected one entry named %s", entries, want)
	}
	index, err := readIndex(c.Dir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range index.Manifests {
		if _, err := os.Stat(c.blobPath(d.Digest.Encoded())); err != nil {
			t.Fatalf("index.json lists %s whose blob is gone: %v", d.Digest, err)
		}
	}
	reg.Stop()
	offline, _ := NewResolver(ResolverOptions{Cache: c, Lock: lock})
	if p, err := offline.Resolve(ref.String(), pushed.WasmDigest); err != nil || !strings.HasPrefix(p, filepath.Join(c.Dir(), "blobs")) {
		t.Fatalf("offline after prune: %q %v", p, err)
	}
	// A second prune has nothing to remove and keeps working.
	if removed, _, err := c.Prune(ctx, func(CacheEntry) bool { return true }); err != nil || len(removed) != 0 {
		t.Fatalf("second prune: %+v %v", removed, err)
	}
}

// TestRefHostIsCaseInsensitive: a registry's host name has no case, so
// references that differ only there are one reference.
func TestRefHostIsCaseInsensitive(t *testing.T) {
	a := mustRef(t, "oci://LOCALHOST:5391/team/v:1")
	b := mustRef(t, "localhost:5391/team/v:1")
	if a != b || a.Host != "localhost:5391" {
		t.Fatalf("%+v and %+v differ", a, b)
	}
	l := &Lock{Plugins: []LockEntry{{Ref: "oci://Localhost:5391/team/v:1"}}}
	if _, ok := l.Find("localhost:5391/team/v:1"); !ok {
		t.Fatal("a lock written with an uppercase host is not found")
	}
}

// A prune keeps the modules another process is using (it resolved them
// for a run and may still load them, or start plugin workers that read
// them), says so, and removes them once that process lets go.
func TestPruneKeepsWhatARunningProcessHolds(t *testing.T) {
	ctx := context.Background()
	r, ref, pushed := published(t, "held")
	dir := t.TempDir()
	running, err := OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	lock := &Lock{Version: LockVersion, Plugins: []LockEntry{{Ref: ref.String(), Manifest: pushed.ManifestDigest, SHA256: pushed.WasmDigest, Size: pushed.Size, ABIVersion: 1}}}
	run, _ := NewResolver(ResolverOptions{Cache: running, Lock: lock, Remote: r})
	path, err := run.Resolve(ref.String(), pushed.WasmDigest)
	if err != nil {
		t.Fatal(err)
	}
	// The pruning process: its own Cache, its own open file, so the
	// operating system's lock is what tells it the module is in use.
	pruner, err := OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	removed, inUse, err := pruner.Prune(ctx, nil)
	if err != nil || len(removed) != 0 || len(inUse) != 1 || inUse[0].WasmDigest != pushed.WasmDigest {
		t.Fatalf("prune while held: removed %+v, in use %+v, %v; want it kept as in use", removed, inUse, err)
	}
	if got, err := hashFile(path); err != nil || got != pushed.WasmDigest {
		t.Fatalf("the running process's module after the prune: %s, %v", got, err)
	}
	running.release(pushed.WasmDigest)
	removed, inUse, err = pruner.Prune(ctx, nil)
	if err != nil || len(removed) != 1 || len(inUse) != 0 {
		t.Fatalf("prune once released: removed %+v, in use %+v, %v; want it removed", removed, inUse, err)
	}
}
