package conformance

import (
	"os"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/host"
)

func TestMain(m *testing.M) {
	host.ServeWorker() // this test binary also serves as the plugin worker
	os.Exit(m.Run())
}
