package servertest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// TestMain builds the example plugins from source first (the notes example
// uses a loader plugin); the test binary also serves as the plugin worker.
func TestMain(m *testing.M) {
	host.ServeWorker()
	if err := pluginbuild.BuildExamples(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func testHost(t testing.TB) *host.Host {
	t.Helper()
	h, err := host.New(host.Options{CacheDir: filepath.Join(os.TempDir(), "wasmeval-test-cache"), Isolation: host.Process})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func requirePython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("python3 is required for the examples' submissions")
	}
}
