package run

import (
	"testing"

	"github.com/wasmeval/wasmeval/engine/run/runtest"
)

func TestMain(m *testing.M) { runtest.Main(m) }
