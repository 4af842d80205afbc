package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/share"
	"github.com/wasmeval/wasmeval/plugins/share/sharetest"
)

// TestPluginExportImportInputs hands export and import the mistakes a user
// makes: a problem without a lock, a compressed archive name, an existing
// tarball, a directory that is not a layout, a file that does not exist.
// Each is a usage error (exit 2) in one line saying what is expected; a
// good export leaves no stray directory and says "1 plugin".
func TestPluginExportImportInputs(t *testing.T) {
	t.Setenv(share.CacheEnv, t.TempDir())
	reg := sharetest.StartRegistry(t, sharetest.RegistryOptions{})
	ref := "oci://" + reg.Host + "/team-a/inventory-verifier:1.0"
	res := wasmeval(t, "plugin", "push", "../../examples/inventory/plugins/inventory-verifier.wasm", ref)
	if res.code != 0 {
		t.Fatalf("push: %d %s", res.code, res.stderr)
	}
	manifest, module := field(t, res.stdout, "manifest"), field(t, res.stdout, "sha256")
	problem := t.TempDir()
	lock := filepath.Join(problem, share.LockFileName)
	out := t.TempDir()

	oneUsageLine := func(what string, res cliResult, want ...string) {
		t.Helper()
		if res.code != exitUsage || strings.Count(res.stderr, "\n") != 1 {
			t.Fatalf("%s: exit %d, expected 2 and one line: %s", what, res.code, res.stderr)
		}
		for _, w := range want {
			if !strings.Contains(res.stderr, w) {
				t.Fatalf("%s: %q does not say %q", what, res.stderr, w)
			}
		}
	}
	oneUsageLine("export without a lock", wasmeval(t, "plugin", "export", problem, filepath.Join(out, "p.tar")),
		lock+": the problem has no lock file", "wasmeval plugin lock "+problem)
	if err := share.WriteLock(lock, &share.Lock{Plugins: []share.LockEntry{{Ref: ref, Manifest: manifest, SHA256: module, Size: 1, ABIVersion: 1, Kinds: []string{"verifier"}}}}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"x.tgz", "x.tar.gz", "x.zip"} {
		oneUsageLine("export to "+name, wasmeval(t, "plugin", "export", problem, filepath.Join(out, name)), "archives are not written", ".tar")
		if _, err := os.Stat(filepath.Join(out, name)); err == nil {
			t.Fatalf("export to %s created it", name)
		}
	}

	tarball := filepath.Join(out, "p.tar")
	if res := wasmeval(t, "plugin", "export", problem, tarball); res.code != 0 || res.stdout != "exported 1 plugin to "+tarball+"\n" {
		t.Fatalf("export: %d %q %s", res.code, res.stdout, res.stderr)
	}
	oneUsageLine("export over a tarball", wasmeval(t, "plugin", "export", problem, tarball), "the file exists; pass --force")
	if res := wasmeval(t, "plugin", "export", problem, tarball, "--force"); res.code != 0 {
		t.Fatalf("export --force: %d %s", res.code, res.stderr)
	}
	layout := filepath.Join(out, "layout")
	if res := wasmeval(t, "plugin", "export", problem, layout); res.code != 0 {
		t.Fatalf("export to a directory: %d %s", res.code, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(layout, "ingest")); err == nil {
		t.Fatal("export left an ingest directory")
	}

	oneUsageLine("import of a plain directory", wasmeval(t, "plugin", "import", problem),
		"not an OCI image layout", "a directory or a .tar written by `wasmeval plugin export`")
	oneUsageLine("import of a missing file", wasmeval(t, "plugin", "import", filepath.Join(out, "nothing.tar")), "nothing.tar")
	if res := wasmeval(t, "plugin", "import", layout, "--cache-dir", t.TempDir()); res.code != 0 || !strings.Contains(res.stdout, "1 imported") {
		t.Fatalf("import: %d %s %s", res.code, res.stdout, res.stderr)
	}
}
