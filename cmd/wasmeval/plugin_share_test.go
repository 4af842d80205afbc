package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/pin"
	"github.com/wasmeval/wasmeval/plugins/share"
	"github.com/wasmeval/wasmeval/plugins/share/sharetest"
)

// TestPluginShareCommands publishes an example plugin to a real registry
// behind basic auth and TLS, pulls it, carries it to an empty cache by
// export and import, and prunes it.
func TestPluginShareCommands(t *testing.T) {
	reg := sharetest.StartRegistry(t, sharetest.RegistryOptions{Auth: true, TLS: true})
	sharetest.WriteDockerConfig(t, reg.Host, reg.Username, reg.Password)
	cache := t.TempDir()
	t.Setenv(share.CacheEnv, cache)
	plugin := "../../examples/inventory/plugins/inventory-verifier.wasm"
	ref := "oci://" + reg.Host + "/team/inventory-verifier:1.0"
	ca := "--registry-ca=" + reg.CAFile

	// Without the CA the self-signed registry is refused, in one line.
	res := wasmeval(t, "plugin", "push", plugin, ref)
	if res.code != exitFail || !strings.Contains(res.stderr, ref+": push: the TLS certificate") || strings.Count(res.stderr, "\n") != 1 {
		t.Fatalf("push without CA: %d %s", res.code, res.stderr)
	}
	res = wasmeval(t, "plugin", "push", plugin, ref, ca)
	if res.code != 0 {
		t.Fatalf("push: %d %s", res.code, res.stderr)
	}
	manifest := field(t, res.stdout, "manifest")
	digest := field(t, res.stdout, "sha256")
	module, err := os.ReadFile(plugin)
	if err != nil {
		t.Fatal(err)
	}
	want := pin.Digest(module)
	if digest != want {
		t.Fatalf("pushed sha256 %s, the plugin's pin is %s", digest, want)
	}

	res = wasmeval(t, "plugin", "pull", strings.TrimPrefix(ref, "oci://"), ca)
	if res.code != 0 || field(t, res.stdout, "manifest") != manifest || field(t, res.stdout, "name") != "inventory-verifier 1.0.0" {
		t.Fatalf("pull: %d %s %s", res.code, res.stdout, res.stderr)
	}
	if p := field(t, res.stdout, "path"); !strings.HasPrefix(p, filepath.Join(cache, "oci")) {
		t.Fatalf("cached at %s, not under $%s", p, share.CacheEnv)
	}
	res = wasmeval(t, "plugin", "cache", "ls")
	if res.code != 0 || !strings.Contains(res.stdout, reg.Host+"/team/inventory-verifier:1.0") || !strings.Contains(res.stdout, digest) {
		t.Fatalf("cache ls: %d %s %s", res.code, res.stdout, res.stderr)
	}
	missing := "oci://" + reg.Host + "/team/inventory-verifier:9"
	if res = wasmeval(t, "plugin", "pull", missing, ca); res.code != exitFail || !strings.HasPrefix(res.stderr, "wasmeval: "+missing+": resolve: not found") {
		t.Fatalf("missing tag: %d %s", res.code, res.stderr)
	}

	// Export what a lock names; import it into an empty cache.
	lock := filepath.Join(t.TempDir(), share.LockFileName)
	size, _ := os.Stat(plugin)
	if err := share.WriteLock(lock, &share.Lock{Plugins: []share.LockEntry{{Ref: ref, Manifest: manifest, SHA256: digest, Size: size.Size(), ABIVersion: 1, Kinds: []string{"verifier"}}}}); err != nil {
		t.Fatal(err)
	}
	tarball := filepath.Join(t.TempDir(), "plugins.tar")
	reg.Stop()
	if res = wasmeval(t, "plugin", "export", filepath.Dir(lock), tarball, "--offline"); res.code != 0 {
		t.Fatalf("export: %d %s", res.code, res.stderr)
	}
	if res = wasmeval(t, "plugin", "pull", ref, ca); res.code != exitFail || !strings.Contains(res.stderr, "cannot reach registry") {
		t.Fatalf("pull from a stopped registry: %d %s", res.code, res.stderr)
	}
	other := t.TempDir()
	if res = wasmeval(t, "plugin", "import", tarball, "--cache-dir", other); res.code != 0 || !strings.Contains(res.stdout, "1 imported") {
		t.Fatalf("import: %d %s %s", res.code, res.stdout, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(other, "blobs", "sha256", digest)); err != nil {
		t.Fatalf("imported module: %v", err)
	}
	if res = wasmeval(t, "plugin", "cache", "prune", "--cache-dir", other, "--keep", lock); res.code != 0 || !strings.Contains(res.stdout, "0 removed") {
		t.Fatalf("prune --keep: %d %s %s", res.code, res.stdout, res.stderr)
	}
	if res = wasmeval(t, "plugin", "cache", "prune", "--cache-dir", other); res.code != 0 || !strings.Contains(res.stdout, "1 removed") {
		t.Fatalf("prune: %d %s %s", res.code, res.stdout, res.stderr)
	}
	if res = wasmeval(t, "plugin", "push", plugin, "oci://"+reg.Host+"/Bad"); res.code != exitUsage {
		t.Fatalf("bad reference: %d %s", res.code, res.stderr)
	}
}

// field is the value of a "key: value" line of a command's output.
func field(t *testing.T, out, key string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + key + `:\s+(.*)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no %s: line in\n%s", key, out)
	}
	return strings.TrimSpace(m[1])
}
