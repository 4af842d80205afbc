//go:build !linux

package local

import (
	"fmt"
	"os"
	goruntime "runtime"

	"github.com/wasmeval/wasmeval/engine/runtime"
)

// The local runtime contains a case's processes with a launcher that needs
// Linux (subreapers, /proc, namespaces); without it a case could leave
// processes behind, so it refuses to run rather than run unsafely.
func newSession(dir, _ string, _ runtime.SessionSpec, _ int64, _ bool) (runtime.Session, error) {
	os.RemoveAll(dir)
	return nil, fmt.Errorf("the local runtime needs Linux (this is %s); use the Docker runtime", goruntime.GOOS)
}

func resolveIsolation(want Isolation) (Isolation, error) { return want, nil }

// NamespaceError says why namespaces are not available here.
func NamespaceError() error {
	return fmt.Errorf("the local runtime needs Linux (this is %s)", goruntime.GOOS)
}
