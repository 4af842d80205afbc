package share

import (
	"context"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/plugins/share/sharetest"
)

// TestRepushIsReproducible pushes the same module twice to a real
// registry: without a creation time the manifest digest is the same (so a
// signature of the first push still applies); with SOURCE_DATE_EPOCH's
// time, it is recorded.
func TestRepushIsReproducible(t *testing.T) {
	ctx := context.Background()
	reg := sharetest.StartRegistry(t, sharetest.RegistryOptions{})
	r := dockerRemote(t, RemoteOptions{})
	module := builtPlugin(t)
	first, err := Push(ctx, module, mustRef(t, "oci://"+reg.Host+"/team-a/v:1.4"), PushOptions{Remote: r, Describe: testDescribe})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // a creation time would now differ
	again, err := Push(ctx, module, mustRef(t, "oci://"+reg.Host+"/team-a/v:1.4.0"), PushOptions{Remote: r, Describe: testDescribe})
	if err != nil {
		t.Fatal(err)
	}
	if again.ManifestDigest != first.ManifestDigest {
		t.Fatalf("re-push gave manifest %s, the first %s", again.ManifestDigest, first.ManifestDigest)
	}
	got, err := Pull(ctx, r, newCache(t), mustRef(t, "oci://"+reg.Host+"/team-a/v:1.4"))
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := got.Annotations[AnnotationCreated]; ok {
		t.Fatalf("manifest carries a creation time %q nobody asked for", c)
	}
	dated, err := Push(ctx, module, mustRef(t, "oci://"+reg.Host+"/team-a/v:dated"), PushOptions{Remote: r, Describe: testDescribe, Created: time.Unix(1700000000, 0)})
	if err != nil {
		t.Fatal(err)
	}
	got, err = Pull(ctx, r, newCache(t), mustRef(t, "oci://"+reg.Host+"/team-a/v:dated"))
	if err != nil || got.Annotations[AnnotationCreated] != "2023-11-14T22:13:20Z" || dated.ManifestDigest == first.ManifestDigest {
		t.Fatalf("dated push: %v %v", got.Annotations, err)
	}
}
