package distribute

import (
	"testing"

	"github.com/wasmeval/wasmeval/engine/run/runtest"
)

// TestMain lets the plugin host start this test binary as its workers.
func TestMain(m *testing.M) { runtest.Main(m) }
