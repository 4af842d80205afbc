package pluginbuild

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRustSDKCompilesWithEveryRustc type-checks and compiles the Rust SDK,
// warnings as errors, with every rustc found (Debian's 1.63 and, where
// installed, a current rustup toolchain), for the host target — a rustup
// toolchain often lacks the wasm32 standard library, and the SDK's code is
// the same for both targets apart from the host imports.
func TestRustSDKCompilesWithEveryRustc(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var versions []string
	for _, dir := range append(filepath.SplitList(os.Getenv("PATH")), "/usr/bin") {
		rc := filepath.Join(dir, "rustc")
		out, err := exec.Command(rc, "--version").Output()
		if err != nil || seen[string(out)] {
			continue
		}
		seen[string(out)] = true
		versions = append(versions, strings.TrimSpace(string(out)))
		lib := filepath.Join(t.TempDir(), "libwasmeval.rlib")
		cmd := exec.Command(rc, "--edition", "2021", "--crate-type", "rlib", "--crate-name", "wasmeval", "-D", "warnings",
			"-o", lib, filepath.Join(root, RustSDK))
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: %v\n%s", strings.TrimSpace(string(out)), err, msg)
		}
	}
	if len(versions) == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("no rustc on the PATH (CI installs Debian's: see .ci/toolchains)")
		}
		t.Skip("no rustc on the PATH")
	}
	t.Logf("compiled with: %s", strings.Join(versions, "; "))
}

// The SDK is built once into the user cache directory and found there by
// the next build, in this process or another, with nothing left behind.
func TestRustSDKIsCachedByContent(t *testing.T) {
	rc, err := rustc()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	forget := func() {
		rustSDKMu.Lock()
		clear(rustSDKBuilt)
		rustSDKMu.Unlock()
	}
	forget()
	dir, err := rustSDK(rc, root, nil)
	if err != nil {
		t.Fatal(err)
	}
	cache, _ := os.UserCacheDir()
	if !strings.HasPrefix(dir, cache) {
		t.Fatalf("built in %s, not under the cache %s", dir, cache)
	}
	rlib := filepath.Join(dir, "libwasmeval.rlib")
	first, err := os.Stat(rlib)
	if err != nil {
		t.Fatal(err)
	}
	forget() // as a new process would
	again, err := rustSDK(rc, root, nil)
	if err != nil || again != dir {
		t.Fatalf("second build: %s, %v; want %s", again, err, dir)
	}
	if second, _ := os.Stat(rlib); !second.ModTime().Equal(first.ModTime()) {
		t.Error("the SDK was rebuilt")
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Errorf("left behind in %s: %v", filepath.Dir(dir), entries)
	}
}
