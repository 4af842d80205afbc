package share

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/wasmeval/wasmeval/plugins/pin"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
	"github.com/wasmeval/wasmeval/plugins/share/sharetest"
)

// Tests against the real registry process (sharetest), with a real plugin
// built from the host's test sources.

var (
	realOnce   sync.Once
	realPlugin string
	realErr    error
)

func builtPlugin(t *testing.T) string {
	t.Helper()
	realOnce.Do(func() {
		dir, err := os.MkdirTemp("", "wasmeval-share-*")
		if err != nil {
			realErr = err
			return
		}
		realPlugin = filepath.Join(dir, "minimal.wasm")
		realErr = pluginbuild.Build("../host/testdata/minimal", realPlugin)
	})
	if realErr != nil {
		t.Fatal(realErr)
	}
	return realPlugin
}

func dockerRemote(t *testing.T, opts RemoteOptions) *Remote {
	t.Helper()
	r, err := NewRemote(opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRealRegistryRoundTrip(t *testing.T) {
	reg := sharetest.StartRegistry(t, sharetest.RegistryOptions{})
	sharetest.WriteDockerConfig(t, "unrelated.example", "u", "p")
	file := builtPlugin(t)
	module, _ := os.ReadFile(file)
	r := dockerRemote(t, RemoteOptions{})
	ref := mustRef(t, "oci://"+reg.Host+"/team/verifier:1.4")
	pushed, err := Push(context.Background(), file, ref, PushOptions{Remote: r, Describe: testDescribe})
	if err != nil {
		t.Fatalf("%v\n%s", err, reg.Log())
	}
	if pushed.WasmDigest != pin.Digest(module) {
		t.Fatalf("layer digest %s is not the module's pin %s", pushed.WasmDigest, pin.Digest(module))
	}
	got, err := Pull(context.Background(), r, newCache(t), ref)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(got.Path)
	if got.ManifestDigest != pushed.ManifestDigest || string(data) != string(module) {
		t.Fatalf("pulled %+v, pushed %+v", got, pushed)
	}
	missing := mustRef(t, reg.Host+"/team/verifier:9.9")
	if _, err := Pull(context.Background(), r, newCache(t), missing); !IsKind(err, ErrNotFound) || !oneLineNaming(err, missing) {
		t.Fatalf("missing tag: %v", err)
	}
	closed := mustRef(t, sharetest.ClosedPort(t)+"/team/verifier:1")
	if _, err := Pull(context.Background(), r, newCache(t), closed); !IsKind(err, ErrUnreachable) || !oneLineNaming(err, closed) {
		t.Fatalf("closed port: %v", err)
	}
}

func oneLineNaming(err error, ref Ref) bool {
	return strings.HasPrefix(err.Error(), ref.String()+": ") && !strings.Contains(err.Error(), "\n")
}

func TestRealRegistryBasicAuth(t *testing.T) {
	reg := sharetest.StartRegistry(t, sharetest.RegistryOptions{Auth: true})
	file := builtPlugin(t)
	ref := mustRef(t, "oci://"+reg.Host+"/team/verifier:1.4")

	sharetest.WriteDockerConfig(t, reg.Host, reg.Username, "wrong-password")
	_, err := Push(context.Background(), file, ref, PushOptions{Remote: dockerRemote(t, RemoteOptions{}), Describe: testDescribe})
	if !IsKind(err, ErrAuth) || !oneLineNaming(err, ref) {
		t.Fatalf("wrong credentials: %v", err)
	}

	sharetest.WriteDockerConfig(t, reg.Host, reg.Username, reg.Password)
	r := dockerRemote(t, RemoteOptions{})
	pushed, err := Push(context.Background(), file, ref, PushOptions{Remote: r, Describe: testDescribe})
	if err != nil {
		t.Fatalf("%v\n%s", err, reg.Log())
	}
	got, err := Pull(context.Background(), r, newCache(t), ref)
	if err != nil || got.WasmDigest != pushed.WasmDigest {
		t.Fatalf("pull with credentials: %+v %v", got, err)
	}

	sharetest.WriteDockerConfig(t, "other.example", "u", "p")
	_, err = Pull(context.Background(), dockerRemote(t, RemoteOptions{}), newCache(t), ref)
	if !IsKind(err, ErrAuth) || !oneLineNaming(err, ref) {
		t.Fatalf("no credentials: %v", err)
	}
}

func TestRealRegistryTLS(t *testing.T) {
	reg := sharetest.StartRegistry(t, sharetest.RegistryOptions{TLS: true})
	sharetest.WriteDockerConfig(t, "unrelated.example", "u", "p")
	file := builtPlugin(t)
	ref := mustRef(t, "oci://"+reg.Host+"/team/verifier:1.4")

	_, err := Push(context.Background(), file, ref, PushOptions{Remote: dockerRemote(t, RemoteOptions{}), Describe: testDescribe})
	if !IsKind(err, ErrTLS) || !oneLineNaming(err, ref) || !strings.Contains(err.Error(), "--registry-ca") {
		t.Fatalf("untrusted certificate: %v", err)
	}
	r := dockerRemote(t, RemoteOptions{CAFile: reg.CAFile})
	pushed, err := Push(context.Background(), file, ref, PushOptions{Remote: r, Describe: testDescribe})
	if err != nil {
		t.Fatalf("%v\n%s", err, reg.Log())
	}
	got, err := Pull(context.Background(), r, newCache(t), ref)
	if err != nil || got.WasmDigest != pushed.WasmDigest {
		t.Fatalf("pull over TLS: %+v %v", got, err)
	}
	// An explicit --plain-http against an HTTPS registry fails clearly.
	_, err = Pull(context.Background(), dockerRemote(t, RemoteOptions{PlainHTTP: true}), newCache(t), ref)
	if err == nil || !oneLineNaming(err, ref) {
		t.Fatalf("plain HTTP to HTTPS: %v", err)
	}
}

// TestRealRegistryTamperedBlob changes a module in the registry's storage
// after it was pushed: the registry serves the changed bytes under the old
// digest, and the pull refuses them.
func TestRealRegistryTamperedBlob(t *testing.T) {
	reg := sharetest.StartRegistry(t, sharetest.RegistryOptions{})
	sharetest.WriteDockerConfig(t, "unrelated.example", "u", "p")
	r := dockerRemote(t, RemoteOptions{})
	ref := mustRef(t, "oci://"+reg.Host+"/team/verifier:1")
	pushed, err := Push(context.Background(), builtPlugin(t), ref, PushOptions{Remote: r, Describe: testDescribe})
	if err != nil {
		t.Fatal(err)
	}
	f := reg.BlobFile("sha256:" + pushed.WasmDigest)
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatalf("registry storage: %v", err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(f, data, 0o644); err != nil {
		t.Fatal(err)
	}
	c := newCache(t)
	if _, err := Pull(context.Background(), r, c, ref); !IsKind(err, ErrIntegrity) || !oneLineNaming(err, ref) {
		t.Fatalf("tampered blob: %v", err)
	}
	if _, err := c.Path(pushed.WasmDigest); err == nil {
		t.Fatal("tampered module was cached")
	}
}

// TestRealRegistryLegacyLayer pulls an artifact with the older Wasm layer
// media type from the real registry.
func TestRealRegistryLegacyLayer(t *testing.T) {
	reg := sharetest.StartRegistry(t, sharetest.RegistryOptions{})
	sharetest.WriteDockerConfig(t, "unrelated.example", "u", "p")
	r := dockerRemote(t, RemoteOptions{})
	module, err := os.ReadFile(builtPlugin(t))
	if err != nil {
		t.Fatal(err)
	}
	ref := mustRef(t, reg.Host+"/old/verifier:0.9")
	pushRaw(t, r, ref, []ocispec.Descriptor{blob(LegacyLayerMediaType, module)}, [][]byte{module})
	got, err := Pull(context.Background(), r, newCache(t), ref)
	if err != nil || got.WasmDigest != pin.Digest(module) {
		t.Fatalf("legacy layer: %+v %v", got, err)
	}
}

// TestRealRegistryLockedOffline locks a reference against the real
// registry, stops it, and resolves from the lock and the cache; an empty
// cache says what is missing until an export is imported.
func TestRealRegistryLockedOffline(t *testing.T) {
	ctx := context.Background()
	reg := sharetest.StartRegistry(t, sharetest.RegistryOptions{Auth: true})
	sharetest.WriteDockerConfig(t, reg.Host, reg.Username, reg.Password)
	r := dockerRemote(t, RemoteOptions{})
	ref := mustRef(t, "oci://"+reg.Host+"/team/verifier:1.4")
	pushed, err := Push(ctx, builtPlugin(t), ref, PushOptions{Remote: r, Describe: testDescribe})
	if err != nil {
		t.Fatal(err)
	}
	c := newCache(t)
	locker, _ := NewResolver(ResolverOptions{Cache: c, Remote: r, Live: true})
	if _, err := locker.Resolve(ref.String(), pushed.WasmDigest); err != nil {
		t.Fatal(err)
	}
	lock := locker.Recorded()
	export := filepath.Join(t.TempDir(), "plugins")
	if err := Export(ctx, c, nil, lock.Plugins, export); err != nil {
		t.Fatal(err)
	}
	reg.Stop()

	offline, _ := NewResolver(ResolverOptions{Cache: c, Lock: lock})
	if _, err := offline.Resolve(ref.String(), pushed.WasmDigest); err != nil {
		t.Fatalf("offline from the cache: %v", err)
	}
	empty := newCache(t)
	// Online but the registry is gone: the error names the registry.
	online, _ := NewResolver(ResolverOptions{Cache: empty, Lock: lock, Remote: r})
	if _, err := online.Resolve(ref.String(), pushed.WasmDigest); !IsKind(err, ErrUnreachable) {
		t.Fatalf("stopped registry: %v", err)
	}
	offline, _ = NewResolver(ResolverOptions{Cache: empty, Lock: lock})
	if _, err := offline.Resolve(ref.String(), pushed.WasmDigest); err == nil || !strings.Contains(err.Error(), pushed.ManifestDigest) {
		t.Fatalf("offline, empty cache: %v", err)
	}
	if _, err := Import(ctx, empty, export); err != nil {
		t.Fatal(err)
	}
	if _, err := offline.Resolve(ref.String(), pushed.WasmDigest); err != nil {
		t.Fatalf("offline after import: %v", err)
	}
}
