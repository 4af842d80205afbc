package share

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/opencontainers/go-digest"
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
		if got := empty.Missing(lock); len(got) != 1 {
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
	removed, err := c.Prune(context.Background(), func(CacheEntry) bool { return true })
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
