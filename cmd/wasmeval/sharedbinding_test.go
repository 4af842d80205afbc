package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/pin"
	"github.com/wasmeval/wasmeval/plugins/share"
	"github.com/wasmeval/wasmeval/plugins/share/sharetest"
)

// A run whose plugin bound by reference cannot be had as locked stops
// before anything runs, with one line naming the binding (file, line,
// key) and the reference: whatever went wrong with the registry, the
// credentials, the lock, the cache or the trust policy.
func TestSharedPluginBindingErrors(t *testing.T) {
	reg := sharetest.StartRegistry(t, sharetest.RegistryOptions{Auth: true})
	sharetest.WriteDockerConfig(t, reg.Host, reg.Username, reg.Password)
	t.Setenv(share.CacheEnv, t.TempDir())
	plugin := "../../examples/inventory/plugins/inventory-verifier.wasm"
	digest := pin.Digest(mustRead(t, plugin))
	ref := "oci://" + reg.Host + "/team-a/inventory-verifier:1.0"
	if res := wasmeval(t, "plugin", "push", plugin, ref); res.code != 0 {
		t.Fatalf("push: %d %s", res.code, res.stderr)
	}

	// A small problem whose verifier is the pushed plugin, locked.
	problemFor := func(ref, sha string) string {
		return "name: p\nentry_file: main.sh\ncommand: sh {entry_file}\nadapter: {type: cli}\n" +
			"verifier:\n  ref: " + ref + "\n  sha256: " + sha + "\n  config: {output: json}\n" +
			"checkpoints:\n  c1:\n    groups: {g: {type: Core}}\n"
	}
	dir := writeTree(t, map[string]string{"config.yaml": problemFor(ref, digest),
		"c1/g/a/case.yaml": "expected: {status_code: 0, output: {\"ok\": true}}\n"})
	sub := writeTree(t, map[string]string{"main.sh": "echo '{\"ok\": true}'\n"})
	if res := wasmeval(t, "plugin", "lock", dir); res.code != 0 {
		t.Fatalf("lock: %d %s", res.code, res.stderr)
	}
	lockFile := filepath.Join(dir, share.LockFileName)
	locked := mustRead(t, lockFile)
	run := func(extra ...string) cliResult {
		t.Helper()
		return wasmeval(t, append([]string{"run", dir, "--submission", sub, "--out", filepath.Join(t.TempDir(), "run")}, extra...)...)
	}
	if res := run(); res.code != 0 {
		t.Fatalf("locked run: %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	at := filepath.Join(dir, "config.yaml") + ":6: verifier."

	for _, tc := range []struct {
		name  string
		setup func(t *testing.T)
		want  string
	}{
		{"the lock no longer matches the problem", func(t *testing.T) {
			other := strings.Repeat("ab", 32)
			os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(problemFor(ref, other)), 0o644)
		}, at + "ref: " + ref + ": " + lockFile + " records module sha256:" + digest + " but the problem pins sha256:" + strings.Repeat("ab", 32) + ": the lock no longer matches the problem"},
		{"a reference the lock does not hold", func(t *testing.T) {
			os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(problemFor("oci://"+reg.Host+"/team-a/other:2", digest)), 0o644)
		}, at + "ref: oci://" + reg.Host + "/team-a/other:2: not in " + lockFile + "; run `wasmeval plugin lock"},
		{"a lock file that is not one", func(t *testing.T) {
			os.WriteFile(lockFile, []byte(`{"version": 1, "plugins": [{"ref": 7}]}`), 0o644)
		}, lockFile},
		{"refused credentials", func(t *testing.T) {
			t.Setenv(share.CacheEnv, t.TempDir())
			sharetest.WriteDockerConfig(t, reg.Host, reg.Username, "wrong")
		}, "resolve: registry " + reg.Host + " refused the credentials (401 Unauthorized)"},
		{"an unknown registry", func(t *testing.T) {
			t.Setenv(share.CacheEnv, t.TempDir())
			gone := strings.ReplaceAll(ref, reg.Host, sharetest.ClosedPort(t))
			os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(problemFor(gone, digest)), 0o644)
			os.WriteFile(lockFile, []byte(strings.ReplaceAll(string(locked), reg.Host, strings.TrimPrefix(strings.Split(gone, "/")[2], ""))), 0o644)
		}, "resolve: cannot reach registry 127.0.0.1:"},
		{"a manifest the registry does not have", func(t *testing.T) {
			t.Setenv(share.CacheEnv, t.TempDir())
			e, _ := mustLock(t, locked).Find(ref)
			os.WriteFile(lockFile, []byte(strings.ReplaceAll(string(locked), e.Manifest, "sha256:"+strings.Repeat("0", 64))), 0o644)
		}, at + "ref: oci://" + reg.Host + "/team-a/inventory-verifier@sha256:" + strings.Repeat("0", 64) + ": resolve: not found in registry"},
		{"an unsigned plugin under a policy that requires a signature", func(t *testing.T) {
			if res := wasmeval(t, "plugin", "keygen", filepath.Join(dir, "team-a")); res.code != 0 {
				t.Fatal(res.stderr)
			}
			os.WriteFile(filepath.Join(dir, share.DefaultPolicyName), []byte("version: 1\nkeys: {team-a: team-a.pub}\npolicies:\n  - repositories: [\""+reg.Host+"/team-a/*\"]\n    signed_by: [team-a]\n"), 0o644)
		}, at + "ref: " + ref + ": unsigned; trust policy"},
		{"a trust policy that is not one", func(t *testing.T) {
			os.WriteFile(filepath.Join(dir, share.DefaultPolicyName), []byte("version: 1\npolicies:\n  - repositories: [x]\n    signed_by: [nobody]\n"), 0o644)
		}, share.DefaultPolicyName},
	} {
		t.Run(tc.name, func(t *testing.T) {
			config := mustRead(t, filepath.Join(dir, "config.yaml"))
			defer func() {
				os.WriteFile(filepath.Join(dir, "config.yaml"), config, 0o644)
				os.WriteFile(lockFile, locked, 0o644)
				os.Remove(filepath.Join(dir, share.DefaultPolicyName))
			}()
			tc.setup(t)
			res := run()
			if !strings.HasPrefix(tc.want, at) && !strings.Contains(tc.want, share.LockFileName) && !strings.Contains(tc.want, share.DefaultPolicyName) &&
				!strings.Contains(res.stderr, at+"ref: oci://") {
				t.Errorf("the error does not name the binding (%sref): %s", at, res.stderr)
			}
			if res.code != exitUsage || !strings.Contains(res.stderr, tc.want) || strings.Contains(res.stdout, "PASS") {
				t.Fatalf("exit %d, want %d and an error containing %q:\n%s%s", res.code, exitUsage, tc.want, res.stdout, res.stderr)
			}
			// One line for the binding: the message does not spill.
			for _, line := range strings.Split(strings.TrimSpace(res.stderr), "\n") {
				if strings.Contains(line, tc.want) && strings.Count(line, "verifier.") > 1 {
					t.Errorf("the error repeats itself: %s", line)
				}
			}
			if lines := strings.Count(strings.TrimSpace(res.stderr), "\n"); lines != 1 {
				t.Errorf("want the heading and one line, got %d lines:\n%s", lines+1, res.stderr)
			}
		})
	}
}

func mustLock(t *testing.T, data []byte) *share.Lock {
	t.Helper()
	p := filepath.Join(t.TempDir(), share.LockFileName)
	os.WriteFile(p, data, 0o644)
	l, err := share.ReadLock(p)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
