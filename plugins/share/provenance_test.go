package share

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/pin"
	"github.com/wasmeval/wasmeval/plugins/provenance"
)

// TestProvenanceRoundTrip: the provenance file beside a module becomes
// manifest annotations on push and is read back on pull, through the
// real registry.
func TestProvenanceRoundTrip(t *testing.T) {
	ctx := context.Background()
	reg := distributionRegistry(t)
	r := testRemote(t)
	module := writeModule(t, fakeModule("provenance"))
	want := provenance.Provenance{Version: 1, SHA256: pin.Digest(fakeModule("provenance")), Source: "examples/x/lib.rs", Repository: "https://example.com/team/x.git",
		Commit: strings.Repeat("ab", 20), Dirty: true, Language: "rust", Toolchain: "rustc 1.63.0", ToolchainPath: "/usr/bin/rustc",
		SDK: "sdk/rust", SDKVersion: "1.0.0"}
	if err := provenance.Write(provenance.FileFor(module), want); err != nil {
		t.Fatal(err)
	}
	ref := mustRef(t, "oci://"+reg.host+"/team/prov:1")
	if _, err := Push(ctx, module, ref, PushOptions{Remote: r, Describe: testDescribe}); err != nil {
		t.Fatal(err)
	}
	got, err := Pull(ctx, r, newCache(t), ref)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := got.Provenance()
	p.SHA256 = want.SHA256 // the layer digest is the module's; not an annotation
	if !ok || p != want {
		t.Fatalf("provenance read back: %+v (%v); want %+v", p, ok, want)
	}
	if got.Annotations[provenance.AnnotationRevision] != want.Commit || got.Annotations[provenance.AnnotationToolchain] != "rustc 1.63.0" {
		t.Fatalf("annotations: %v", got.Annotations)
	}

	// An explicit provenance file that is bad is refused, naming it.
	bad := filepath.Join(t.TempDir(), "p.json")
	os.WriteFile(bad, []byte(`{"version":1,"commit":5}`), 0o644)
	_, err = Push(ctx, module, mustRef(t, "oci://"+reg.host+"/team/prov:2"), PushOptions{Remote: r, Provenance: bad})
	if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "commit") {
		t.Fatalf("bad provenance file: %v", err)
	}
	// A provenance file of another build of the module is refused.
	stale := want
	stale.SHA256 = strings.Repeat("0", 64)
	if err := provenance.Write(provenance.FileFor(module), stale); err != nil {
		t.Fatal(err)
	}
	_, err = Push(ctx, module, mustRef(t, "oci://"+reg.host+"/team/prov:4"), PushOptions{Remote: r})
	if err == nil || !strings.Contains(err.Error(), provenance.FileFor(module)) || !strings.Contains(err.Error(), "describes module sha256:"+stale.SHA256) {
		t.Fatalf("stale provenance file: %v", err)
	}
	// No provenance file: no provenance annotations.
	plain := writeModule(t, fakeModule("no provenance"))
	if _, err := Push(ctx, plain, mustRef(t, "oci://"+reg.host+"/team/prov:3"), PushOptions{Remote: r}); err != nil {
		t.Fatal(err)
	}
	got, err = Pull(ctx, r, newCache(t), mustRef(t, "oci://"+reg.host+"/team/prov:3"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got.Provenance(); ok {
		t.Fatalf("provenance without a file: %v", got.Annotations)
	}
}
