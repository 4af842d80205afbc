package pluginbuild

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// ErrToolchain marks a missing compiler, so tests can tell "cannot build
// here" (a skip outside CI, a failure in CI) from a build error.
var ErrToolchain = errors.New("toolchain missing")

// RustTarget is the target Rust plugins are built for: no WASI; the SDK
// speaks the native transport (or Extism's, see BuildRustExtism).
const RustTarget = "wasm32-unknown-unknown"

// RustSDK is the Rust SDK crate's root source file, relative to the module
// root.
const RustSDK = "sdk/rust/src/lib.rs"

// rustc finds a rustc that has the wasm32 standard library: $WASMEVAL_RUSTC,
// then every rustc on the PATH, then Debian's /usr/bin/rustc (a rustup
// toolchain first on the PATH often lacks the wasm32 target).
func rustc() (string, error) {
	var candidates []string
	if env := os.Getenv("WASMEVAL_RUSTC"); env != "" {
		candidates = append(candidates, env)
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		candidates = append(candidates, filepath.Join(dir, "rustc"))
	}
	candidates = append(candidates, "/usr/bin/rustc")
	for _, c := range candidates {
		out, err := exec.Command(c, "--print", "sysroot").Output()
		if err != nil {
			continue
		}
		sysroot := strings.TrimSpace(string(out))
		if _, err := os.Stat(filepath.Join(sysroot, "lib", "rustlib", RustTarget)); err == nil {
			return c, nil
		}
	}
	return "", fmt.Errorf("%w: no rustc with the %s standard library (Debian: apt-get install rustc libstd-rust-dev-wasm32 lld-14)", ErrToolchain, RustTarget)
}

// wasmLinker names a wasm-ld to link with, or "" for rustc's default.
func wasmLinker() string {
	for _, name := range []string{"wasm-ld-14", "wasm-ld"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// BuildRust compiles a Rust plugin from its crate root (src, a lib.rs)
// into out, with the Rust SDK (crate name wasmeval) compiled first. The
// build needs no Cargo and no crates.io, and is reproducible: paths are
// remapped and the crate metadata is fixed.
func BuildRust(src, out string) error { return buildRust(src, out) }

// BuildRustExtism is BuildRust with the SDK compiled for Extism's ABI
// (--cfg wasmeval_extism) instead of the native transport.
func BuildRustExtism(src, out string) error { return buildRust(src, out, "wasmeval_extism") }

func buildRust(src, out string, cfgs ...string) error {
	rc, err := rustc()
	if err != nil {
		return err
	}
	root, err := ModuleRoot()
	if err != nil {
		return err
	}
	sdkDir, err := rustSDK(rc, root, cfgs)
	if err != nil {
		return err
	}
	sdk := filepath.Join(sdkDir, "libwasmeval.rlib")
	// Link-time optimisation across the plugin, the SDK and the standard
	// library: the SDK's JSON work inlined into the plugin's calls.
	args := append(rustFlags(root), "--crate-type", "cdylib", "--crate-name", "plugin", "-C", "strip=symbols", "-C", "lto=fat",
		"--extern", "wasmeval="+sdk, "-L", sdkDir, "-o", out, src)
	if l := wasmLinker(); l != "" {
		args = append(args, "-C", "linker="+l)
	}
	if err := run(rc, "", args...); err != nil {
		return fmt.Errorf("build Rust plugin %s: %w", src, err)
	}
	return nil
}

func run(bin, dir string, args ...string) error {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, stderr.String())
	}
	return nil
}

// rustFlags are the flags of the SDK's and the plugin's compilation. A
// plugin's time is nearly all JSON work in tight loops, and a worker pays
// for every instruction: optimised for speed in one codegen unit (the
// Rust conformance verifier's CPU time per call 88 -> 67 µs with LTO, for
// a module a fifth larger), not for size.
func rustFlags(root string) []string {
	return []string{"--edition", "2021", "--target", RustTarget, "-C", "opt-level=3", "-C", "codegen-units=1", "-C", "panic=abort",
		"--remap-path-prefix", root + "=.", "-C", "metadata=wasmeval", "-C", "debuginfo=0"}
}

var (
	rustSDKMu    sync.Mutex
	rustSDKBuilt = map[string]string{} // rustc and cfgs → directory holding libwasmeval.rlib
)

// rustSDK compiles the SDK crate once per rustc and SDK source into the
// user cache directory (wasmeval/rust-sdk/KEY), so building plugins — in
// one process or many — neither rebuilds it each time nor leaves a
// directory behind.
func rustSDK(rc, root string, cfgs []string) (string, error) {
	rustSDKMu.Lock()
	defer rustSDKMu.Unlock()
	built := rc + "\x00" + strings.Join(cfgs, "\x00")
	if dir, ok := rustSDKBuilt[built]; ok { // known in this process: no rustc run
		return dir, nil
	}
	key, err := rustSDKKey(rc, root, sdkFlags(root, cfgs))
	if err != nil {
		return "", err
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "wasmeval", "rust-sdk", key)
	rlib := filepath.Join(dir, "libwasmeval.rlib")
	if _, err := os.Stat(rlib); err == nil {
		rustSDKBuilt[built] = dir
		return dir, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	// Build next to the final place and rename, so no process ever sees a
	// half-written library; if another one got there first, use its.
	tmp, err := os.MkdirTemp(filepath.Dir(dir), key+".build-")
	if err != nil {
		return "", err
	}
	args := append(sdkFlags(root, cfgs), "--crate-type", "rlib", "--crate-name", "wasmeval",
		"-o", filepath.Join(tmp, "libwasmeval.rlib"), filepath.Join(root, RustSDK))
	if err := run(rc, "", args...); err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("build the Rust SDK: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		if _, serr := os.Stat(rlib); serr != nil {
			return "", fmt.Errorf("build the Rust SDK: %w", err)
		}
	}
	rustSDKBuilt[built] = dir
	return dir, nil
}

// sdkFlags are the SDK crate's flags: the plugins' and its cfgs.
func sdkFlags(root string, cfgs []string) []string {
	flags := rustFlags(root)
	for _, c := range cfgs {
		flags = append(flags, "--cfg", c)
	}
	return flags
}

// rustSDKKey names one build of the SDK: the compiler (its path and full
// version), the flags and every source file of the crate.
func rustSDKKey(rc, root string, flags []string) (string, error) {
	h := sha256.New()
	version, err := exec.Command(rc, "--version", "--verbose").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", rc, err)
	}
	fmt.Fprintf(h, "%s\n%s\n%q\n", rc, version, flags)
	srcDir := filepath.Dir(filepath.Join(root, RustSDK))
	entries, err := os.ReadDir(srcDir)
	if err != nil {
		return "", fmt.Errorf("read the Rust SDK: %w", err)
	}
	for _, e := range entries { // ReadDir sorts by name
		data, err := os.ReadFile(filepath.Join(srcDir, e.Name()))
		if err != nil {
			return "", fmt.Errorf("read the Rust SDK: %w", err)
		}
		fmt.Fprintf(h, "%s %d\n", e.Name(), len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// BuildRustNative compiles a Rust program (main, its root file) for the
// machine this runs on, with the Rust SDK compiled for it too, both with
// the flags plugins are built with: for benchmarks that tell the SDK's own
// cost from what running it as WebAssembly adds. Nothing is cached.
func BuildRustNative(main, out string) error {
	rc, err := rustc()
	if err != nil {
		return err
	}
	root, err := ModuleRoot()
	if err != nil {
		return err
	}
	var flags []string
	for _, f := range rustFlags(root) {
		if f == "--target" || f == RustTarget {
			continue
		}
		flags = append(flags, f)
	}
	dir, err := os.MkdirTemp("", "wasmeval-rust-native-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := run(rc, "", append(flags, "--crate-type", "rlib", "--crate-name", "wasmeval",
		"-o", filepath.Join(dir, "libwasmeval.rlib"), filepath.Join(root, RustSDK))...); err != nil {
		return fmt.Errorf("build the Rust SDK natively: %w", err)
	}
	if err := run(rc, "", append(flags, "--crate-type", "bin", "-C", "lto=fat", "--extern",
		"wasmeval="+filepath.Join(dir, "libwasmeval.rlib"), "-L", dir, "-o", out, main)...); err != nil {
		return fmt.Errorf("build %s natively: %w", main, err)
	}
	return nil
}
