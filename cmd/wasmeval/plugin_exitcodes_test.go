package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/share"
	"github.com/wasmeval/wasmeval/plugins/share/sharetest"
)

// TestPluginSharingExitCodes: mistakes in what the user gives (a missing
// or malformed provenance file, a Docker config whose auth field is
// broken) exit 2, while a registry's refusal exits 1, each in one line
// naming the file.
func TestPluginSharingExitCodes(t *testing.T) {
	t.Setenv(share.CacheEnv, t.TempDir())
	reg := sharetest.StartRegistry(t, sharetest.RegistryOptions{Auth: true})
	plugin := "../../examples/inventory/plugins/inventory-verifier.wasm"
	ref := "oci://" + reg.Host + "/team-a/v:1"
	dir := t.TempDir()
	bad := filepath.Join(dir, "prov.json")
	os.WriteFile(bad, []byte("{"), 0o644)
	for _, prov := range []string{filepath.Join(dir, "none.json"), bad} {
		res := wasmeval(t, "plugin", "push", plugin, ref, "--provenance", prov)
		if res.code != exitUsage || strings.Count(res.stderr, "\n") != 1 || !strings.Contains(res.stderr, prov) {
			t.Fatalf("push --provenance %s: %d %s", prov, res.code, res.stderr)
		}
	}
	cfgDir := sharetest.WriteDockerConfig(t, reg.Host, reg.Username, "wrong")
	if res := wasmeval(t, "plugin", "push", plugin, ref); res.code != exitFail || strings.Count(res.stderr, "\n") != 1 {
		t.Fatalf("push with refused credentials: %d %s", res.code, res.stderr)
	}
	cfg := filepath.Join(cfgDir, "config.json")
	os.WriteFile(cfg, []byte(`{"auths":{"`+reg.Host+`":{"auth":"%%%"}}}`), 0o600)
	if res := wasmeval(t, "plugin", "push", plugin, ref); res.code != exitUsage || strings.Count(res.stderr, "\n") != 1 || !strings.Contains(res.stderr, cfg) {
		t.Fatalf("push with a broken auth field: %d %s", res.code, res.stderr)
	}
}
