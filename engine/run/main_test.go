package run

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/host"
	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// TestMain builds the example problem's plugins from source first: the
// tests always verify with plugins compiled from this repository's code.
func TestMain(m *testing.M) {
	host.ServeWorker() // this test binary also serves as the plugin worker
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
