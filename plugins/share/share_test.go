package share

import (
	"context"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/pin"
)

// fakeModule is a minimal valid Wasm module (header only) with some
// distinguishing bytes in a custom section.
func fakeModule(tag string) []byte {
	name := "x"
	payload := append([]byte{byte(len(name))}, name...)
	payload = append(payload, tag...)
	m := []byte("\x00asm\x01\x00\x00\x00")
	m = append(m, 0, byte(len(payload)))
	return append(m, payload...)
}

// inProcessRegistry starts go-containerregistry's registry on loopback
// HTTP and returns its host.
func inProcessRegistry(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(registry.New(registry.Logger(nilLogger())))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	return u.Host
}

func testRemote(t *testing.T) *Remote {
	t.Helper()
	r, err := NewRemote(RemoteOptions{Credentials: auth.StaticCredential("", auth.EmptyCredential)})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func writeModule(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "plugin.wasm")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func mustRef(t *testing.T, s string) Ref {
	t.Helper()
	r, err := ParseRef(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var testDescribe = abi.Describe{ABIVersion: 1, Name: "team-verifier", Version: "1.4.0", Kinds: []string{"verifier"}}

func TestPushPullRoundTrip(t *testing.T) {
	ctx := context.Background()
	host := inProcessRegistry(t)
	r := testRemote(t)
	module := fakeModule("round-trip")
	ref := mustRef(t, "oci://"+host+"/team/verifier:1.4")
	pushed, err := Push(ctx, writeModule(t, module), ref, PushOptions{Remote: r, Describe: testDescribe,
		Annotations: map[string]string{"dev.wasmeval.test": "yes"}, Created: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if pushed.WasmDigest != pin.Digest(module) {
		t.Fatalf("pushed digest %s, want the module's pin %s", pushed.WasmDigest, pin.Digest(module))
	}
	c, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	got, err := Pull(ctx, r, c, ref)
	if err != nil {
		t.Fatal(err)
	}
	if got.ManifestDigest != pushed.ManifestDigest || got.WasmDigest != pushed.WasmDigest || got.Size != int64(len(module)) {
		t.Fatalf("pulled %+v, pushed %+v", got, pushed)
	}
	if got.Name != "team-verifier" || got.Version != "1.4.0" || got.ABIVersion != 1 || len(got.Kinds) != 1 || got.Kinds[0] != "verifier" {
		t.Fatalf("describe not carried: %+v", got)
	}
	if got.Annotations["dev.wasmeval.test"] != "yes" {
		t.Fatalf("extra annotation lost: %v", got.Annotations)
	}
	data, err := os.ReadFile(got.Path)
	if err != nil || string(data) != string(module) {
		t.Fatalf("cached module differs (%v)", err)
	}
	// By digest too.
	byDigest, err := Pull(ctx, r, c, ref.AtDigest(pushed.ManifestDigest))
	if err != nil || byDigest.WasmDigest != pushed.WasmDigest {
		t.Fatalf("pull by digest: %+v, %v", byDigest, err)
	}
	// The same module and time push to the same manifest.
	again, err := Push(ctx, writeModule(t, module), ref, PushOptions{Remote: r, Describe: testDescribe,
		Annotations: map[string]string{"dev.wasmeval.test": "yes"}, Created: time.Unix(0, 0)})
	if err != nil || again.ManifestDigest != pushed.ManifestDigest {
		t.Fatalf("re-push: %+v, %v; want manifest %s", again, err, pushed.ManifestDigest)
	}
	entries, err := c.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].WasmDigest != pushed.WasmDigest || len(entries[0].Refs) != 1 || entries[0].Refs[0] != ref.Name() || entries[0].LastUsed.IsZero() {
		t.Fatalf("cache ls: %+v", entries)
	}
	removed, _, err := c.Prune(ctx, nil)
	if err != nil || len(removed) != 1 {
		t.Fatalf("prune: %+v, %v", removed, err)
	}
	if _, err := c.Path(pushed.WasmDigest); err == nil {
		t.Fatal("module still cached after prune")
	}
}
