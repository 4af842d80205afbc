package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/provenance"
	"github.com/wasmeval/wasmeval/plugins/share"
	"github.com/wasmeval/wasmeval/plugins/share/sharetest"
)

// TestPluginSignCommands: keygen, push with provenance, sign, verify
// (trusted, untrusted, unsigned), inspect REF showing provenance and the
// signature, and verify --offline from the cache with the registry
// stopped — against the real registry, which has no referrers API.
func TestPluginSignCommands(t *testing.T) {
	reg := sharetest.StartRegistry(t, sharetest.RegistryOptions{})
	sharetest.WriteDockerConfig(t, "unrelated.example", "u", "p")
	t.Setenv(share.CacheEnv, t.TempDir())
	dir := t.TempDir()

	// A copy of an example plugin with its provenance file, as the build
	// writes it.
	plugin := filepath.Join(dir, "verifier.wasm")
	module, err := os.ReadFile("../../examples/answers/plugins/answercheck.wasm")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(plugin, module, 0o644)
	prov := provenance.Provenance{Version: 1, Source: "examples/answers/plugins/answercheck", Commit: strings.Repeat("1234", 10),
		Language: "go", Toolchain: "go version go1.26 linux/amd64", ToolchainPath: "/usr/local/go/bin/go", SDK: "sdk/go", SDKVersion: "abi 1"}
	if err := provenance.Write(provenance.FileFor(plugin), prov); err != nil {
		t.Fatal(err)
	}

	teamA, teamB := filepath.Join(dir, "team-a"), filepath.Join(dir, "team-b")
	for _, k := range []string{teamA, teamB} {
		res := wasmeval(t, "plugin", "keygen", k)
		if res.code != 0 || !strings.HasPrefix(field(t, res.stdout, "key id"), "ed25519:") {
			t.Fatalf("keygen: %d %s %s", res.code, res.stdout, res.stderr)
		}
	}
	if res := wasmeval(t, "plugin", "keygen", teamA); res.code != exitUsage || !strings.Contains(res.stderr, "already exists") {
		t.Fatalf("keygen over an existing key: %d %s", res.code, res.stderr)
	}

	signed := "oci://" + reg.Host + "/team-a/verifier:1.0"
	unsigned := "oci://" + reg.Host + "/team-a/unsigned:1.0"
	for _, ref := range []string{signed, unsigned} {
		if res := wasmeval(t, "plugin", "push", plugin, ref); res.code != 0 {
			t.Fatalf("push %s: %d %s", ref, res.code, res.stderr)
		}
	}
	res := wasmeval(t, "plugin", "sign", signed, "--key", teamA+".key")
	if res.code != 0 {
		t.Fatalf("sign: %d %s", res.code, res.stderr)
	}
	keyID := field(t, res.stdout, "key id")
	manifest := field(t, res.stdout, "manifest")
	if res := wasmeval(t, "plugin", "sign", signed, "--key", teamA+".pub"); res.code != exitUsage || !strings.Contains(res.stderr, teamA+".pub") {
		t.Fatalf("sign with a public key: %d %s", res.code, res.stderr)
	}

	policy := filepath.Join(dir, "trust.yaml")
	os.WriteFile(policy, []byte("version: 1\nkeys:\n  team-a: team-a.pub\n  team-b: team-b.pub\npolicies:\n  - repositories: [\""+reg.Host+"/team-a/*\"]\n    signed_by: [team-a]\n"), 0o644)
	res = wasmeval(t, "plugin", "verify", signed, "--trust-policy", policy)
	if res.code != 0 || !strings.Contains(res.stdout, "signed by team-a ("+keyID+")") || !strings.Contains(res.stdout, manifest) {
		t.Fatalf("verify: %d %s %s", res.code, res.stdout, res.stderr)
	}
	res = wasmeval(t, "plugin", "verify", signed, "--key", teamB+".pub")
	if res.code != exitFail || strings.Count(res.stderr, "\n") != 1 || !strings.Contains(res.stderr, signed) ||
		!strings.Contains(res.stderr, "not one of the keys given with --key") || !strings.Contains(res.stderr, "given with --key ("+teamB+".pub) is required") || strings.Contains(res.stderr, "policies[") {
		t.Fatalf("verify with another key: %d %s", res.code, res.stderr)
	}
	res = wasmeval(t, "plugin", "verify", unsigned, "--trust-policy", policy)
	if res.code != exitFail || strings.Count(res.stderr, "\n") != 1 || !strings.Contains(res.stderr, unsigned+": unsigned") {
		t.Fatalf("verify unsigned: %d %s", res.code, res.stderr)
	}
	if res = wasmeval(t, "plugin", "verify", signed); res.code != exitUsage || !strings.Contains(res.stderr, "no trust policy") {
		t.Fatalf("verify without a policy: %d %s", res.code, res.stderr)
	}

	// inspect REF pulls it (with its signature) and shows the provenance.
	res = wasmeval(t, "plugin", "inspect", signed)
	if res.code != 0 {
		t.Fatalf("inspect: %d %s", res.code, res.stderr)
	}
	for _, want := range []string{"commit:    " + prov.Commit, "toolchain: " + prov.Toolchain, "sdk:       sdk/go abi 1",
		provenance.AnnotationRevision + ": " + prov.Commit, "by " + keyID, "manifest: " + manifest} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("inspect does not show %q:\n%s", want, res.stdout)
		}
	}
	if res = wasmeval(t, "plugin", "inspect", plugin); res.code != 0 || !strings.Contains(res.stdout, "toolchain: "+prov.Toolchain) {
		t.Fatalf("inspect FILE: %d %s %s", res.code, res.stdout, res.stderr)
	}
	if res = wasmeval(t, "plugin", "pull", unsigned); res.code != 0 {
		t.Fatalf("pull: %d %s", res.code, res.stderr)
	}

	// Offline, from the cache, with the registry stopped.
	reg.Stop()
	if res = wasmeval(t, "plugin", "verify", signed, "--trust-policy", policy); res.code != exitFail || !strings.Contains(res.stderr, "cannot reach registry") {
		t.Fatalf("verify online with the registry stopped: %d %s", res.code, res.stderr)
	}
	res = wasmeval(t, "plugin", "verify", signed, "--trust-policy", policy, "--offline")
	if res.code != 0 || !strings.Contains(res.stdout, "signed by team-a") {
		t.Fatalf("verify --offline: %d %s %s", res.code, res.stdout, res.stderr)
	}
	res = wasmeval(t, "plugin", "verify", unsigned, "--trust-policy", policy, "--offline")
	if res.code != exitFail || !strings.Contains(res.stderr, "unsigned") {
		t.Fatalf("verify --offline unsigned: %d %s", res.code, res.stderr)
	}
	if res = wasmeval(t, "plugin", "inspect", signed, "--offline"); res.code != 0 || !strings.Contains(res.stdout, "by "+keyID) {
		t.Fatalf("inspect --offline: %d %s %s", res.code, res.stdout, res.stderr)
	}
}
