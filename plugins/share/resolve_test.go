package share

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content/memory"
)

// published pushes a fake module to a fresh in-process registry.
func published(t *testing.T, tag string) (*Remote, Ref, Pushed) {
	t.Helper()
	host := inProcessRegistry(t)
	r := testRemote(t)
	ref := mustRef(t, "oci://"+host+"/team/verifier:"+tag)
	p, err := Push(context.Background(), writeModule(t, fakeModule(tag)), ref, PushOptions{Remote: r, Describe: testDescribe})
	if err != nil {
		t.Fatal(err)
	}
	return r, ref, p
}

func newCache(t *testing.T) *Cache {
	t.Helper()
	c, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestLockThenRunOfflineAndExportImport(t *testing.T) {
	ctx := context.Background()
	r, ref, pushed := published(t, "1.4")
	c := newCache(t)
	locker, err := NewResolver(ResolverOptions{Cache: c, Remote: r, Live: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := locker.Resolve(ref.String(), pushed.WasmDigest); err != nil {
		t.Fatal(err)
	}
	lockPath := filepath.Join(t.TempDir(), LockFileName)
	if err := WriteLock(lockPath, locker.Recorded()); err != nil {
		t.Fatal(err)
	}
	lock, err := ReadLock(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	e, ok := lock.Find(ref.Name()) // without the scheme, as on the CLI
	if !ok || e.Manifest != pushed.ManifestDigest || e.SHA256 != pushed.WasmDigest || e.Size != pushed.Size || e.ABIVersion != 1 {
		t.Fatalf("lock entry %+v, pushed %+v", e, pushed)
	}

	// Offline from the lock and the cache.
	run, _ := NewResolver(ResolverOptions{Cache: c, Lock: lock, LockPath: lockPath, Problem: "p"})
	path, err := run.Resolve(ref.String(), pushed.WasmDigest)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := hashFile(path); got != pushed.WasmDigest {
		t.Fatalf("resolved %s hashes to %s", path, got)
	}
	// The lock no longer matches the problem.
	if _, err := run.Resolve(ref.String(), strings.Repeat("0", 64)); err == nil || !strings.Contains(err.Error(), "no longer matches") {
		t.Fatalf("pin mismatch: %v", err)
	}
	// Not locked.
	if _, err := run.Resolve(ref.Host+"/team/other:1", ""); err == nil || !strings.Contains(err.Error(), "wasmeval plugin lock p") {
		t.Fatalf("unlocked ref: %v", err)
	}

	// Export, then import into an empty cache and resolve offline.
	for _, dest := range []string{filepath.Join(t.TempDir(), "layout"), filepath.Join(t.TempDir(), "plugins.tar")} {
		if err := Export(ctx, c, nil, lock.Plugins, dest); err != nil {
			t.Fatal(err)
		}
		empty := newCache(t)
		offline, _ := NewResolver(ResolverOptions{Cache: empty, Lock: lock})
		if _, err := offline.Resolve(ref.String(), pushed.WasmDigest); err == nil || !strings.Contains(err.Error(), "offline") || !strings.Contains(err.Error(), pushed.WasmDigest) {
			t.Fatalf("offline miss: %v", err)
		}
		if got := empty.Missing(context.Background(), lock); len(got) != 1 {
			t.Fatalf("missing %+v", got)
		}
		imported, err := Import(ctx, empty, dest)
		if err != nil {
			t.Fatal(err)
		}
		if len(imported) != 1 || imported[0].ManifestDigest != pushed.ManifestDigest {
			t.Fatalf("imported %+v", imported)
		}
		if _, err := offline.Resolve(ref.String(), pushed.WasmDigest); err != nil {
			t.Fatalf("after import: %v", err)
		}
	}
}

func TestCorruptCacheEntry(t *testing.T) {
	r, ref, pushed := published(t, "2.0")
	c := newCache(t)
	got, err := Pull(context.Background(), r, c, ref)
	if err != nil {
		t.Fatal(err)
	}
	corrupt := func() {
		os.Chmod(got.Path, 0o644)
		data, _ := os.ReadFile(got.Path)
		data[len(data)-1] ^= 0xff
		if err := os.WriteFile(got.Path, data, 0o444); err != nil {
			t.Fatal(err)
		}
	}
	corrupt()
	var ce *CorruptError
	if _, err := c.Path(pushed.WasmDigest); !errors.As(err, &ce) || !strings.Contains(err.Error(), pushed.WasmDigest) || !strings.Contains(err.Error(), "prune") {
		t.Fatalf("corrupt entry: %v", err)
	}
	lock := &Lock{Version: LockVersion, Plugins: []LockEntry{{Ref: ref.String(), Manifest: pushed.ManifestDigest, SHA256: pushed.WasmDigest, Size: pushed.Size}}}
	offline, _ := NewResolver(ResolverOptions{Cache: c, Lock: lock})
	if _, err := offline.Resolve(ref.String(), pushed.WasmDigest); err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Fatalf("offline, corrupt: %v", err)
	}
	// Online, a corrupt entry is a miss: fetched again by digest.
	online, _ := NewResolver(ResolverOptions{Cache: c, Lock: lock, Remote: r})
	if _, err := online.Resolve(ref.String(), pushed.WasmDigest); err != nil {
		t.Fatalf("online, corrupt: %v", err)
	}
	// Prune drops corrupt entries even when asked to keep everything.
	corrupt()
	entries, _ := c.List(context.Background())
	if len(entries) != 1 || !entries[0].Corrupt {
		t.Fatalf("ls: %+v", entries)
	}
	removed, _, err := c.Prune(context.Background(), func(CacheEntry) bool { return true })
	if err != nil || len(removed) != 1 {
		t.Fatalf("prune: %+v %v", removed, err)
	}
	var nc *NotCachedError
	if _, err := c.Path(pushed.WasmDigest); !errors.As(err, &nc) {
		t.Fatalf("after prune: %v", err)
	}
}

// TestTamperedBlob serves a module whose bytes do not match the layer
// digest its manifest names: the pull is refused and nothing is cached.
func TestTamperedBlob(t *testing.T) {
	reg := registry.New(registry.Logger(nilLogger()))
	var layer string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if layer != "" && req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/blobs/"+layer) {
			rec := httptest.NewRecorder()
			reg.ServeHTTP(rec, req)
			body := rec.Body.Bytes()
			body[len(body)-1] ^= 0xff
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			w.Write(body)
			return
		}
		reg.ServeHTTP(w, req)
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	r := testRemote(t)
	ref := mustRef(t, "oci://"+u.Host+"/team/verifier:1")
	pushed, err := Push(context.Background(), writeModule(t, fakeModule("tamper")), ref, PushOptions{Remote: r, Describe: testDescribe})
	if err != nil {
		t.Fatal(err)
	}
	layer = "sha256:" + pushed.WasmDigest
	c := newCache(t)
	_, err = Pull(context.Background(), r, c, ref)
	if !IsKind(err, ErrIntegrity) || !strings.Contains(err.Error(), ref.String()) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("tampered blob: %v", err)
	}
	if _, err := c.Path(pushed.WasmDigest); err == nil {
		t.Fatal("tampered module cached")
	}
}

// pushRaw pushes an arbitrary artifact built by hand (for layouts wasmeval
// itself never writes).
func pushRaw(t *testing.T, r *Remote, ref Ref, layers []ocispec.Descriptor, blobs [][]byte) {
	t.Helper()
	ctx := context.Background()
	mem := memory.New()
	for i, l := range layers {
		if err := mem.Push(ctx, l, bytes.NewReader(blobs[i])); err != nil {
			t.Fatal(err)
		}
	}
	cfg := []byte(`{"architecture":"wasm","os":"wasip1"}`)
	cd := ocispec.Descriptor{MediaType: ConfigMediaType, Digest: digest.FromBytes(cfg), Size: int64(len(cfg))}
	mem.Push(ctx, cd, bytes.NewReader(cfg))
	m, err := oras.PackManifest(ctx, mem, oras.PackManifestVersion1_1, "", oras.PackManifestOptions{Layers: layers, ConfigDescriptor: &cd})
	if err != nil {
		t.Fatal(err)
	}
	mem.Tag(ctx, m, ref.Tag)
	repo, _ := r.repository(ctx, ref)
	if _, err := oras.Copy(ctx, mem, ref.Tag, repo, ref.Tag, oras.DefaultCopyOptions); err != nil {
		t.Fatal(err)
	}
}

func blob(mediaType string, data []byte) ocispec.Descriptor {
	return ocispec.Descriptor{MediaType: mediaType, Digest: digest.FromBytes(data), Size: int64(len(data))}
}

func TestLayerMediaTypes(t *testing.T) {
	host := inProcessRegistry(t)
	r := testRemote(t)
	mod, other := fakeModule("legacy"), []byte("not wasm")
	legacy := mustRef(t, host+"/old/verifier:1")
	pushRaw(t, r, legacy, []ocispec.Descriptor{blob(LegacyLayerMediaType, mod)}, [][]byte{mod})
	got, err := Pull(context.Background(), r, newCache(t), legacy)
	if err != nil || got.WasmDigest != digest.FromBytes(mod).Encoded() {
		t.Fatalf("legacy layer: %+v %v", got, err)
	}
	two := mustRef(t, host+"/odd/verifier:2")
	pushRaw(t, r, two, []ocispec.Descriptor{blob(LayerMediaType, mod), blob("text/plain", other)}, [][]byte{mod, other})
	if _, err := Pull(context.Background(), r, newCache(t), two); !IsKind(err, ErrIntegrity) || !strings.Contains(err.Error(), "exactly one Wasm layer") {
		t.Fatalf("two layers: %v", err)
	}
	none := mustRef(t, host+"/odd/verifier:3")
	pushRaw(t, r, none, []ocispec.Descriptor{blob("text/plain", other)}, [][]byte{other})
	if _, err := Pull(context.Background(), r, newCache(t), none); !IsKind(err, ErrIntegrity) {
		t.Fatalf("no wasm layer: %v", err)
	}
	missing := mustRef(t, host+"/odd/verifier:404")
	if _, err := Pull(context.Background(), r, newCache(t), missing); !IsKind(err, ErrNotFound) || !strings.Contains(err.Error(), missing.String()) {
		t.Fatalf("missing tag: %v", err)
	}
}

// A run uses a cached module only through the manifest its lock records:
// a lock edited to pair one artifact's module with another's manifest
// (a signed one, say) is refused whether the module is cached or not; a
// lock whose manifest the cache lacks is fetched by digest online and
// refused offline; a damaged cached manifest is fetched again online.
func TestLockedModuleGoesWithItsManifest(t *testing.T) {
	ctx := context.Background()
	host := inProcessRegistry(t)
	r := testRemote(t)
	push := func(tag string) (Ref, Pushed) {
		ref := mustRef(t, "oci://"+host+"/team/verifier:"+tag)
		p, err := Push(ctx, writeModule(t, fakeModule(tag)), ref, PushOptions{Remote: r, Describe: testDescribe})
		if err != nil {
			t.Fatal(err)
		}
		return ref, p
	}
	refA, a := push("a")
	refB, b := push("b")
	c := newCache(t)
	for _, ref := range []Ref{refA, refB} {
		if _, err := Pull(ctx, r, c, ref); err != nil {
			t.Fatal(err)
		}
	}
	resolve := func(remote *Remote, e LockEntry) (string, error) {
		lock := &Lock{Version: LockVersion, Plugins: []LockEntry{e}}
		res, err := NewResolver(ResolverOptions{Cache: c, Lock: lock, Remote: remote, Problem: "p"})
		if err != nil {
			t.Fatal(err)
		}
		return res.Resolve(refA.String(), a.WasmDigest)
	}
	edited := LockEntry{Ref: refA.String(), Manifest: b.ManifestDigest, SHA256: a.WasmDigest, Size: a.Size, ABIVersion: 1}
	for name, remote := range map[string]*Remote{"offline": nil, "online": r} {
		_, err := resolve(remote, edited)
		if want := "holds module sha256:" + b.WasmDigest + " but wasmeval.lock records sha256:" + a.WasmDigest; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s, module cached, lock naming another manifest: %v, want %q", name, err, want)
		}
	}
	right := LockEntry{Ref: refA.String(), Manifest: a.ManifestDigest, SHA256: a.WasmDigest, Size: a.Size, ABIVersion: 1}
	for key, e := range map[string]LockEntry{
		"size":        {Ref: right.Ref, Manifest: right.Manifest, SHA256: right.SHA256, Size: right.Size + 1, ABIVersion: 1},
		"abi_version": {Ref: right.Ref, Manifest: right.Manifest, SHA256: right.SHA256, Size: right.Size, ABIVersion: 7},
		"kinds":       {Ref: right.Ref, Manifest: right.Manifest, SHA256: right.SHA256, Size: right.Size, ABIVersion: 1, Kinds: []string{"loader"}},
	} {
		if _, err := resolve(nil, e); err == nil || !strings.Contains(err.Error(), "records "+key+" ") {
			t.Errorf("offline, module cached, lock with another %s: %v, want it refused", key, err)
		}
	}
	if _, err := resolve(nil, right); err != nil {
		t.Fatalf("offline, the lock as written: %v", err)
	}

	// The manifest damaged in the cache: refused offline, fetched again
	// online, and then there for the next offline run.
	mp := c.blobPath(digest.Digest(a.ManifestDigest).Encoded())
	if err := os.Truncate(mp, 10); err != nil {
		t.Fatal(err)
	}
	// (The cache takes a damaged manifest out of its index when opened.)
	if _, err := resolve(nil, right); err == nil || !strings.Contains(err.Error(), "manifest "+a.ManifestDigest+" (module sha256:"+a.WasmDigest+") is not in the plugin cache") {
		t.Errorf("offline, manifest damaged: %v", err)
	}
	if _, err := resolve(r, right); err != nil {
		t.Fatalf("online, manifest damaged: %v", err)
	}
	if _, err := resolve(nil, right); err != nil {
		t.Fatalf("offline after the online run fetched the manifest again: %v", err)
	}

	// A cache that holds the module but not the lock's manifest (it came
	// through another artifact): offline names the manifest.
	c2 := newCache(t)
	if _, err := Pull(ctx, r, c2, refA); err != nil {
		t.Fatal(err)
	}
	other := LockEntry{Ref: refB.String(), Manifest: b.ManifestDigest, SHA256: b.WasmDigest, Size: b.Size, ABIVersion: 1}
	res, _ := NewResolver(ResolverOptions{Cache: c2, Lock: &Lock{Version: LockVersion, Plugins: []LockEntry{other}}, Problem: "p"})
	if _, err := res.Resolve(refB.String(), b.WasmDigest); err == nil || !strings.Contains(err.Error(), "manifest "+b.ManifestDigest+" (module sha256:"+b.WasmDigest+") is not in the plugin cache") {
		t.Errorf("offline, manifest not cached: %v", err)
	}
}

// A manifest whose Wasm layer gives another size than its module's is
// refused even when the module is cached already (from another artifact),
// where nothing is copied that would notice.
func TestLayerSizeIsTheModules(t *testing.T) {
	ctx := context.Background()
	r, ref, pushed := published(t, "1")
	c := newCache(t)
	if _, err := Pull(ctx, r, c, ref); err != nil {
		t.Fatal(err)
	}
	repo, err := r.repository(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	cfg := []byte(`{"architecture":"wasm","os":"wasip1"}`)
	cd := blob(ConfigMediaType, cfg)
	if err := repo.Push(ctx, cd, bytes.NewReader(cfg)); err != nil {
		t.Fatal(err)
	}
	layer := ocispec.Descriptor{MediaType: LayerMediaType, Digest: digest.Digest("sha256:" + pushed.WasmDigest), Size: 1000}
	m, err := json.Marshal(ocispec.Manifest{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest, Config: cd, Layers: []ocispec.Descriptor{layer}})
	if err != nil {
		t.Fatal(err)
	}
	lie := mustRef(t, ref.Host+"/"+ref.Repository+":sizelie")
	if err := repo.PushReference(ctx, blob(ocispec.MediaTypeImageManifest, m), bytes.NewReader(m), lie.Tag); err != nil {
		t.Fatal(err)
	}
	got, err := Pull(ctx, r, c, lie)
	if want := "gives its Wasm layer 1000 bytes, but module sha256:" + pushed.WasmDigest + " has " + fmt.Sprint(pushed.Size); !IsKind(err, ErrIntegrity) || !strings.Contains(err.Error(), want) {
		t.Fatalf("Pull = %+v, %v; want %q", got, err, want)
	}
}

// One module published under two references (two manifests): with only
// the first fetched, export fetches the second's manifest online, and
// offline names it, rather than failing inside the copy.
func TestExportFetchesEachLockedManifest(t *testing.T) {
	ctx := context.Background()
	host := inProcessRegistry(t)
	r := testRemote(t)
	mod := writeModule(t, fakeModule("shared"))
	var entries []LockEntry
	for i, name := range []string{"ev", "ev2"} {
		ref := mustRef(t, "oci://"+host+"/team-c/"+name+":1")
		d := testDescribe
		d.Version = fmt.Sprintf("1.%d", i) // another manifest for the same module
		p, err := Push(ctx, mod, ref, PushOptions{Remote: r, Describe: d})
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, LockEntry{Ref: ref.String(), Manifest: p.ManifestDigest, SHA256: p.WasmDigest, Size: p.Size, ABIVersion: 1})
	}
	if entries[0].Manifest == entries[1].Manifest {
		t.Fatal("the two references share a manifest; the test needs two")
	}
	c := newCache(t)
	if _, err := Pull(ctx, r, c, mustRef(t, entries[0].Ref)); err != nil {
		t.Fatal(err)
	}
	err := Export(ctx, c, nil, entries, filepath.Join(t.TempDir(), "offline"))
	if want := "manifest " + entries[1].Manifest + " is not in the plugin cache; pull it first"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("export offline: %v, want %q", err, want)
	}
	dest := filepath.Join(t.TempDir(), "online")
	if err := Export(ctx, c, r, entries, dest); err != nil {
		t.Fatalf("export online: %v", err)
	}
	index, err := readIndex(dest)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range index.Manifests {
		got = append(got, d.Digest.String())
	}
	for _, e := range entries {
		if !slices.Contains(got, e.Manifest) {
			t.Errorf("the export holds %v, not %s", got, e.Manifest)
		}
	}
}
