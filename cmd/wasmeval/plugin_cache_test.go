package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/share"
	"github.com/wasmeval/wasmeval/plugins/share/sharetest"
)

// TestPluginCacheCommands fills a cache from a real registry and checks
// what `plugin cache ls` and `prune` tell the user: an empty cache says so,
// ages must be positive (days accepted), registry flags are not offered
// where no registry is reached, and --corrupt drops only the corrupt entry.
func TestPluginCacheCommands(t *testing.T) {
	cache := t.TempDir()
	t.Setenv(share.CacheEnv, cache)
	res := wasmeval(t, "plugin", "cache", "ls")
	if res.code != 0 || res.stdout != "plugin cache "+filepath.Join(cache, "oci")+": empty\n" {
		t.Fatalf("ls of an empty cache: %d %q %s", res.code, res.stdout, res.stderr)
	}
	for _, cmd := range [][]string{{"cache", "ls"}, {"cache", "prune"}, {"import", "x.tar"}} {
		args := append(append([]string{"plugin"}, cmd...), "--plain-http")
		if res := wasmeval(t, args...); res.code != exitUsage || !strings.Contains(res.stderr, "unknown flag: --plain-http") {
			t.Fatalf("%v: %d %s", args, res.code, res.stderr)
		}
	}

	reg := sharetest.StartRegistry(t, sharetest.RegistryOptions{})
	modules := map[string]string{}
	for _, name := range []string{"inventory-verifier", "inventory-loader"} {
		ref := "oci://" + reg.Host + "/team-a/" + name + ":1.0"
		res := wasmeval(t, "plugin", "push", "../../examples/inventory/plugins/"+name+".wasm", ref)
		if res.code != 0 {
			t.Fatalf("push: %d %s", res.code, res.stderr)
		}
		if res = wasmeval(t, "plugin", "pull", ref); res.code != 0 {
			t.Fatalf("pull: %d %s", res.code, res.stderr)
		}
		modules[name] = field(t, res.stdout, "sha256")
	}

	for _, bad := range []string{"-1h", "0", "30x", "-2d"} {
		res := wasmeval(t, "plugin", "cache", "prune", "--older-than", bad)
		if res.code != exitUsage || !strings.Contains(res.stderr, "--older-than: \""+bad+"\"") || !strings.Contains(res.stderr, "720h") {
			t.Fatalf("--older-than %s: %d %s", bad, res.code, res.stderr)
		}
	}
	if res := wasmeval(t, "plugin", "cache", "prune", "--older-than", "30d"); res.code != 0 || res.stdout != "0 removed\n" {
		t.Fatalf("--older-than 30d: %d %q %s", res.code, res.stdout, res.stderr)
	}

	blob := filepath.Join(cache, "oci", "blobs", "sha256", modules["inventory-verifier"])
	if err := os.WriteFile(blob, []byte("not the module"), 0o644); err != nil {
		t.Fatal(err)
	}
	res = wasmeval(t, "plugin", "cache", "ls")
	if res.code != 0 || !strings.Contains(res.stdout, "CORRUPT: module sha256:"+modules["inventory-verifier"]+" hashes to") || !strings.Contains(res.stdout, "(run `wasmeval plugin cache prune --corrupt`)") || strings.Count(res.stdout, "CORRUPT") != 1 {
		t.Fatalf("ls with a corrupt module: %d %s %s", res.code, res.stdout, res.stderr)
	}
	if res := wasmeval(t, "plugin", "cache", "prune", "--corrupt", "--older-than", "1h"); res.code != exitUsage {
		t.Fatalf("--corrupt with --older-than: %d %s", res.code, res.stderr)
	}
	res = wasmeval(t, "plugin", "cache", "prune", "--corrupt")
	if res.code != 0 || !strings.HasSuffix(res.stdout, "1 removed\n") || !strings.Contains(res.stdout, modules["inventory-verifier"]) {
		t.Fatalf("prune --corrupt: %d %s %s", res.code, res.stdout, res.stderr)
	}
	res = wasmeval(t, "plugin", "cache", "ls")
	if res.code != 0 || !strings.Contains(res.stdout, reg.Host+"/team-a/inventory-loader:1.0") || strings.Contains(res.stdout, "inventory-verifier") {
		t.Fatalf("ls after prune --corrupt: %d %s %s", res.code, res.stdout, res.stderr)
	}
}
