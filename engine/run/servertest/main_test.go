package servertest

import (
	"testing"

	"github.com/wasmeval/wasmeval/engine/run/runtest"
)

// TestMain builds the example plugins first (the notes example uses a
// loader plugin).
func TestMain(m *testing.M) { runtest.Main(m) }
