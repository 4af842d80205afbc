package share

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content/memory"
)

// TestConcurrentPullsKeepEveryEntry pulls different plugins into one cache
// directory through separate Cache values (as separate processes would):
// the file lock keeps index.json whole, and no pull loses another's tag.
func TestConcurrentPullsKeepEveryEntry(t *testing.T) {
	host := inProcessRegistry(t)
	r := testRemote(t)
	const n = 6
	refs := make([]Ref, n)
	for i := range refs {
		refs[i] = mustRef(t, fmt.Sprintf("oci://%s/team/p%d:1", host, i))
		if _, err := Push(context.Background(), writeModule(t, fakeModule(fmt.Sprint("concurrent", i))), refs[i], PushOptions{Remote: r, Describe: testDescribe}); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range refs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := OpenCache(dir)
			if err == nil {
				_, err = Pull(context.Background(), r, c, refs[i])
			}
			if err == nil {
				_, err = c.List(context.Background())
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	c, _ := OpenCache(dir)
	entries, err := c.List(context.Background())
	if err != nil || len(entries) != n {
		t.Fatalf("%d entries after %d concurrent pulls (%v): %+v", len(entries), n, err, entries)
	}
}

// TestReferrersTravel pushes a referrer (as a signature is) and checks
// that pull brings it into the cache and export and import carry it.
func TestReferrersTravel(t *testing.T) {
	ctx := context.Background()
	r, ref, pushed := published(t, "1")
	repo, _ := r.repository(ctx, ref)
	subject, err := repo.Resolve(ctx, ref.Tag)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.New()
	payload := []byte(`{"signature":"test"}`)
	layer := ocispec.Descriptor{MediaType: "application/vnd.example.signature", Digest: digest.FromBytes(payload), Size: int64(len(payload))}
	mem.Push(ctx, layer, bytes.NewReader(payload))
	sig, err := oras.PackManifest(ctx, mem, oras.PackManifestVersion1_1, "application/vnd.example.signature", oras.PackManifestOptions{Subject: &subject, Layers: []ocispec.Descriptor{layer}})
	if err != nil {
		t.Fatal(err)
	}
	if err := oras.CopyGraph(ctx, mem, repo, sig, oras.DefaultCopyGraphOptions); err != nil {
		t.Fatal(err)
	}
	c := newCache(t)
	if _, err := Pull(ctx, r, c, ref); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(c.blobPath(sig.Digest.Encoded())); err != nil {
		t.Fatalf("referrer not pulled: %v", err)
	}
	dest := filepath.Join(t.TempDir(), "out.tar")
	entries := []LockEntry{{Ref: ref.String(), Manifest: pushed.ManifestDigest, SHA256: pushed.WasmDigest, Size: pushed.Size}}
	if err := Export(ctx, c, nil, entries, dest); err != nil {
		t.Fatal(err)
	}
	other := newCache(t)
	if _, err := Import(ctx, other, dest); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(other.blobPath(sig.Digest.Encoded())); err != nil {
		t.Fatalf("referrer not carried by export/import: %v", err)
	}
	if es, _ := other.List(ctx); len(es) != 1 {
		t.Fatalf("a referrer is listed as a plugin: %+v", es)
	}
}

func TestImportRefusesHostileTarballs(t *testing.T) {
	write := func(hdrs ...*tar.Header) string {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		for _, h := range hdrs {
			tw.WriteHeader(h)
			if h.Typeflag == tar.TypeReg {
				tw.Write(make([]byte, h.Size))
			}
		}
		tw.Close()
		p := filepath.Join(t.TempDir(), "x.tar")
		os.WriteFile(p, buf.Bytes(), 0o644)
		return p
	}
	cases := map[string]struct {
		src  string
		want string
	}{
		"dot-dot":  {write(&tar.Header{Name: "../escape", Typeflag: tar.TypeReg, Size: 1, Mode: 0o644}), "leads outside"},
		"absolute": {write(&tar.Header{Name: "/etc/x", Typeflag: tar.TypeReg, Size: 1, Mode: 0o644}), "leads outside"},
		"symlink":  {write(&tar.Header{Name: "index.json", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}), "not a regular file"},
		"no index": {write(&tar.Header{Name: "oci-layout", Typeflag: tar.TypeReg, Size: 1, Mode: 0o644}), "index.json"},
		"garbage":  {writeModule(t, []byte("not a tarball at all, clearly")), "import"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Import(context.Background(), newCache(t), tc.src)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestOversizedArtifactsAreRefusedUnread(t *testing.T) {
	ctx := context.Background()
	mem := memory.New()
	ref := mustRef(t, "oci://r.example/t/v:1")
	huge := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromString("x"), Size: MaxManifestBytes + 1}
	if _, err := readArtifact(ctx, mem, ref, huge); !IsKind(err, ErrIntegrity) || !strings.Contains(err.Error(), "expected at most") {
		t.Fatalf("huge manifest: %v", err)
	}
	index := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageIndex, Digest: digest.FromString("x"), Size: 10}
	if _, err := readArtifact(ctx, mem, ref, index); !IsKind(err, ErrIntegrity) || !strings.Contains(err.Error(), "image index") {
		t.Fatalf("index: %v", err)
	}
	bigLayer := ocispec.Descriptor{MediaType: LayerMediaType, Digest: digest.FromString("m"), Size: MaxModuleBytes + 1}
	cfg := ocispec.Descriptor{MediaType: ConfigMediaType, Digest: digest.FromString("{}"), Size: 2}
	m, _ := oras.PackManifest(ctx, mem, oras.PackManifestVersion1_1, "", oras.PackManifestOptions{Layers: []ocispec.Descriptor{bigLayer}, ConfigDescriptor: &cfg})
	if _, err := readArtifact(ctx, mem, ref, m); !IsKind(err, ErrIntegrity) || !strings.Contains(err.Error(), "Wasm layer of") {
		t.Fatalf("huge layer: %v", err)
	}
}

func TestPlainHTTPOnlyForLoopback(t *testing.T) {
	r := testRemote(t)
	for _, h := range []string{"registry.example.com", "10.1.2.3:5000", "example.com:80"} {
		if r.speaksHTTP(context.Background(), h) {
			t.Errorf("%s: plain HTTP without --plain-http", h)
		}
	}
}

func TestConfigMustBeJSON(t *testing.T) {
	ctx := context.Background()
	mem := memory.New()
	mod := fakeModule("config")
	layer := blob(LayerMediaType, mod)
	mem.Push(ctx, layer, bytes.NewReader(mod))
	cfgData := []byte("not json")
	cfg := blob(ConfigMediaType, cfgData)
	mem.Push(ctx, cfg, bytes.NewReader(cfgData))
	m, err := oras.PackManifest(ctx, mem, oras.PackManifestVersion1_1, "", oras.PackManifestOptions{Layers: []ocispec.Descriptor{layer}, ConfigDescriptor: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	ref := mustRef(t, "oci://r.example/t/v:1")
	a, err := readArtifact(ctx, mem, ref, m)
	if err != nil {
		t.Fatal(err)
	}
	c := newCache(t)
	if err := c.add(ctx, mem, ref, a); !IsKind(err, ErrIntegrity) || !strings.Contains(err.Error(), "JSON object") {
		t.Fatalf("config not JSON: %v", err)
	}
	if es, _ := c.List(ctx); len(es) != 0 {
		t.Fatalf("listed: %+v", es)
	}
}
