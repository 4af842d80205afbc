package conformance

import (
	"os"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/host"
)

// buildDirs are the directories Reference built plugins into, removed
// when the tests end.
var buildDirs []string

func TestMain(m *testing.M) {
	host.ServeWorker() // this test binary also serves as the plugin worker
	code := m.Run()
	for _, dir := range buildDirs {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}
