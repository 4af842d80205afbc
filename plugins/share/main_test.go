package share

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMain removes the plugin the real-registry tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if realPlugin != "" {
		os.RemoveAll(filepath.Dir(realPlugin))
	}
	os.Exit(code)
}
