package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/manifest"
	"github.com/wasmeval/wasmeval/plugins/pin"
	"github.com/wasmeval/wasmeval/plugins/share"
	"github.com/wasmeval/wasmeval/plugins/share/sharetest"
)

// exampleCopy copies examples/shared-verifier into a temporary directory,
// with the registry the README runs on localhost:5000 replaced by host.
func exampleCopy(t *testing.T, host string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "shared-verifier")
	if err := os.CopyFS(dir, os.DirFS("../../examples/shared-verifier")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"team-b/stats/config.yaml", "team-b/stats/wasmeval.trust.yaml"} {
		p := filepath.Join(dir, f)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "localhost:5000") {
			t.Fatalf("%s does not name localhost:5000", f)
		}
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(data), "localhost:5000", host)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestSharedVerifierExample is examples/shared-verifier/README.md, step by
// step, against a real registry behind basic auth: Team A publishes and
// signs its verifier; Team B binds it by reference, locks it, runs its
// problem with it, then runs again offline with the registry stopped; a
// moved tag, a tampered module and a missing cache entry are refused
// before anything runs.
func TestSharedVerifierExample(t *testing.T) {
	reg := sharetest.StartRegistry(t, sharetest.RegistryOptions{Auth: true})
	sharetest.WriteDockerConfig(t, reg.Host, reg.Username, reg.Password)
	t.Setenv(share.CacheEnv, t.TempDir())
	dir := exampleCopy(t, reg.Host)
	teamA, teamB := filepath.Join(dir, "team-a"), filepath.Join(dir, "team-b")
	problemDir := filepath.Join(teamB, "stats")
	ref := "oci://" + reg.Host + "/team-a/stats-verifier:1.4"
	module, err := os.ReadFile(filepath.Join(teamA, "stats-verifier.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	pinned := pin.Digest(module)
	if config, _ := os.ReadFile(filepath.Join(problemDir, "config.yaml")); !strings.Contains(string(config), "sha256: "+pinned) {
		t.Fatalf("the example's problem does not pin the verifier the build made (sha256 %s): run `task plugins:pin`", pinned)
	}

	// Team A: a key, the push, the signature.
	must := func(args ...string) cliResult {
		t.Helper()
		res := wasmeval(t, args...)
		if res.code != 0 {
			t.Fatalf("wasmeval %s: exit %d\n%s%s", strings.Join(args, " "), res.code, res.stdout, res.stderr)
		}
		return res
	}
	key := filepath.Join(teamA, "team-a")
	must("plugin", "keygen", key)
	pushed := must("plugin", "push", filepath.Join(teamA, "stats-verifier.wasm"), ref)
	if field(t, pushed.stdout, "sha256") != pinned {
		t.Fatalf("pushed module sha256 %s, want %s", field(t, pushed.stdout, "sha256"), pinned)
	}
	manifestDigest := field(t, pushed.stdout, "manifest")

	// Team B gets Team A's public key and binds the reference, but
	// nothing is locked yet, and the plugin is not signed: the lock is
	// refused under Team B's policy.
	if err := os.MkdirAll(filepath.Join(problemDir, "keys"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(problemDir, "keys", "team-a.pub"), mustRead(t, key+".pub"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(teamB, "submission")
	out := filepath.Join(t.TempDir(), "run")
	res := wasmeval(t, "run", problemDir, "--submission", sub, "--out", out)
	if res.code != exitUsage || !strings.Contains(res.stderr, "verifier.ref: "+ref+": there is no "+filepath.Join(problemDir, share.LockFileName)+", and runs find plugins bound by reference only through it; run `wasmeval plugin lock") {
		t.Fatalf("run before lock: %d %s", res.code, res.stderr)
	}
	res = wasmeval(t, "plugin", "lock", problemDir)
	if res.code != exitUsage || !strings.Contains(res.stderr, "verifier.ref: "+ref+": unsigned; trust policy") {
		t.Fatalf("lock of an unsigned plugin: %d %s", res.code, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(problemDir, share.LockFileName)); err == nil {
		t.Fatal("a refused lock was written")
	}
	must("plugin", "sign", ref, "--key", key+".key")

	// Team B locks and runs.
	locked := must("plugin", "lock", problemDir)
	if !strings.Contains(locked.stdout, "signed by team-a (ed25519:") {
		t.Errorf("lock output: %s", locked.stdout)
	}
	lock, err := share.ReadLock(filepath.Join(problemDir, share.LockFileName))
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := lock.Find(ref); !ok || e.Manifest != manifestDigest || e.SHA256 != pinned || !strings.HasPrefix(e.Signer, "team-a (") {
		t.Fatalf("lock: %+v", lock)
	}
	runOK := func(name string, extra ...string) string {
		t.Helper()
		out := filepath.Join(t.TempDir(), name)
		res := wasmeval(t, append([]string{"run", problemDir, "--submission", sub, "--out", out}, extra...)...)
		if res.code != 0 || !strings.Contains(res.stdout, "4/4") {
			t.Fatalf("%s run: exit %d\n%s%s", name, res.code, res.stdout, res.stderr)
		}
		data, err := os.ReadFile(filepath.Join(out, manifest.FileName))
		if err != nil {
			t.Fatal(err)
		}
		var m manifest.Manifest
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		if got := m.Shared[ref]; got.Manifest != manifestDigest || got.SHA256 != pinned || !strings.HasPrefix(got.Signer, "team-a (") || m.Plugins[ref] != pinned {
			t.Errorf("%s run's manifest: shared %+v, plugins %v", name, m.Shared, m.Plugins)
		}
		return out
	}
	online := runOK("online")

	// The finished run rescored with the verifier named by reference.
	rescored := filepath.Join(t.TempDir(), "rescored")
	res = wasmeval(t, "rescore", online, "--verifier", ref, "--out", rescored)
	if res.code != 0 || !strings.Contains(res.stdout, "4/4") {
		t.Fatalf("rescore --verifier %s: exit %d\n%s%s", ref, res.code, res.stdout, res.stderr)
	}
	var m manifest.Manifest
	if err := json.Unmarshal(mustRead(t, filepath.Join(rescored, manifest.FileName)), &m); err != nil {
		t.Fatal(err)
	}
	if m.RescoredFrom == nil || m.RescoredFrom.Verifier == nil || m.RescoredFrom.Verifier.SHA256 != pinned ||
		m.RescoredFrom.Verifier.Path != "oci://"+reg.Host+"/team-a/stats-verifier@"+manifestDigest {
		t.Errorf("rescored manifest: %+v", m.RescoredFrom)
	}
	if got := m.Shared[ref]; got.Manifest != manifestDigest || got.SHA256 != pinned || !strings.HasPrefix(got.Signer, "team-a (") {
		t.Errorf("rescored manifest's shared plugins: %+v", m.Shared)
	}

	// Team A moves the tag to another module: the lock still runs what was
	// locked; locking again refuses the module the problem does not pin.
	must("plugin", "push", "../../examples/inventory/plugins/inventory-verifier.wasm", ref)
	runOK("after the tag moved")
	if res := wasmeval(t, "plugin", "lock", problemDir); res.code != exitUsage || !strings.Contains(res.stderr, "but the problem pins sha256:"+pinned) {
		t.Fatalf("lock after the tag moved: %d %s", res.code, res.stderr)
	}
	// Rescoring with the tag, which now names an unsigned module, is held
	// to Team B's trust policy as the problem's own binding is.
	res = wasmeval(t, "rescore", online, "--verifier", ref, "--out", filepath.Join(t.TempDir(), "unsigned"))
	if res.code != exitUsage || !strings.Contains(res.stderr, ref+": unsigned; trust policy") {
		t.Fatalf("rescore --verifier with an unsigned module: %d %s", res.code, res.stderr)
	}

	// A module changed in the registry's storage is refused when fetched
	// into an empty cache, and nothing runs.
	empty := t.TempDir()
	t.Setenv(share.CacheEnv, empty)
	blob := reg.BlobFile("sha256:" + pinned)
	original := mustRead(t, blob)
	tampered := append([]byte{}, original...)
	tampered[len(tampered)-1] ^= 0xff
	os.WriteFile(blob, tampered, 0o644)
	res = wasmeval(t, "run", problemDir, "--submission", sub, "--out", filepath.Join(t.TempDir(), "tampered"))
	if res.code != exitUsage || !strings.Contains(res.stderr, "verifier.ref: oci://"+reg.Host+"/team-a/stats-verifier@"+manifestDigest+": blob sha256:"+pinned+" does not match its digest") || strings.Contains(res.stdout, "PASS") {
		t.Fatalf("run with a tampered module in the registry: %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	os.WriteFile(blob, original, 0o644)

	// Offline with the registry stopped: the cache holding the locked
	// module and its signature is enough; an empty one names what is
	// missing.
	cache := t.TempDir()
	t.Setenv(share.CacheEnv, cache)
	must("plugin", "pull", "oci://"+reg.Host+"/team-a/stats-verifier@"+manifestDigest)
	reg.Stop()
	runOK("offline", "--offline")
	t.Setenv(share.CacheEnv, t.TempDir())
	res = wasmeval(t, "run", problemDir, "--submission", sub, "--out", filepath.Join(t.TempDir(), "missing"), "--offline")
	if res.code != exitUsage || !strings.Contains(res.stderr, "manifest "+manifestDigest+" (module sha256:"+pinned+") is not in the plugin cache") {
		t.Fatalf("offline run with an empty cache: %d %s", res.code, res.stderr)
	}

	// A cache entry changed on disk is refused too.
	t.Setenv(share.CacheEnv, cache)
	cached := filepath.Join(cache, "oci", "blobs", "sha256", pinned)
	os.WriteFile(cached, tampered, 0o644)
	res = wasmeval(t, "run", problemDir, "--submission", sub, "--out", filepath.Join(t.TempDir(), "corrupt"), "--offline")
	if res.code != exitUsage || !strings.Contains(res.stderr, "verifier.ref: "+ref) {
		t.Fatalf("offline run with a corrupt cache entry: %d %s", res.code, res.stderr)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
