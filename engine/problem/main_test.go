package problem

import (
	"fmt"
	"os"
	"testing"

	"github.com/wasmeval/wasmeval/plugins/pluginbuild"
)

// TestMain builds the example problem's plugins, which its config pins by
// digest, so the example loads on a fresh clone.
func TestMain(m *testing.M) {
	if err := pluginbuild.BuildExamples(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}
