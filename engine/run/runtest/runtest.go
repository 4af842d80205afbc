// Package runtest holds what the engine's end-to-end test packages share:
// a TestMain that builds the example plugins from source (so tests always
// verify with plugins compiled from this repository) and lets the test
// binary serve as the plugin worker, a plugin host for the tests, the
// check that the examples' submissions can run, and a progress that
// interrupts a run at a known point.
package runtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// Main is a test package's TestMain.
func Main(m *testing.M) {
	host.ServeWorker() // this test binary also serves as the plugin worker
	if err := pluginbuild.BuildExamples(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// Host returns a plugin host with worker processes and a compilation cache
// shared by the test packages, closed when the test ends. opts may set
// limits; its CacheDir and Isolation are filled in.
func Host(t testing.TB, opts host.Options) *host.Host {
	t.Helper()
	opts.CacheDir = filepath.Join(os.TempDir(), "wasmeval-test-cache")
	opts.Isolation = host.Process
	h, err := host.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// RequirePython fails the test when python3, which the examples'
// submissions are written in, is missing.
func RequirePython(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("python3 is required for the examples' submissions")
	}
}
