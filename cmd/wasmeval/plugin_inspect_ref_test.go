package main

import (
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/share"
	"github.com/wasmeval/wasmeval/plugins/share/sharetest"
)

// TestInspectReferenceWithoutScheme: oci:// is optional on the command
// line, so `plugin inspect HOST/REPO:TAG` inspects the published artifact
// of a real registry, while a path that does not exist and is no
// reference stays a missing file.
func TestInspectReferenceWithoutScheme(t *testing.T) {
	t.Setenv(share.CacheEnv, t.TempDir())
	reg := sharetest.StartRegistry(t, sharetest.RegistryOptions{})
	ref := reg.Host + "/team-a/stats-verifier:1.4"
	res := wasmeval(t, "plugin", "push", "../../examples/inventory/plugins/inventory-verifier.wasm", ref)
	if res.code != 0 {
		t.Fatalf("push: %d %s", res.code, res.stderr)
	}
	manifest := field(t, res.stdout, "manifest")
	res = wasmeval(t, "plugin", "inspect", ref)
	if res.code != 0 || field(t, res.stdout, "manifest") != manifest {
		t.Fatalf("inspect %s: %d %s %s", ref, res.code, res.stdout, res.stderr)
	}
	if res = wasmeval(t, "plugin", "inspect", "nothere/verifier.wasm"); res.code != exitUsage || !strings.Contains(res.stderr, "nothere/verifier.wasm") {
		t.Fatalf("inspect of a missing file: %d %s", res.code, res.stderr)
	}
}
