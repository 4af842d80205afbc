//go:build linux

package local

import (
	"fmt"
	"os"
	"sync"
)

var (
	probeOnce sync.Once
	probeErr  error
)

// namespacesAvailable starts one launcher in new namespaces that sets up
// its mounts and exits, once per process: the answer is the kernel's and
// does not change during a run.
func namespacesAvailable() error {
	probeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "wasmeval-probe-")
		if err != nil {
			probeErr = err
			return
		}
		defer os.RemoveAll(dir)
		l, err := startLauncher(launchSetup{Namespaces: true, Probe: true, Hide: []string{dir}}, dir, "")
		if err != nil {
			probeErr = err
			return
		}
		l.close()
	})
	return probeErr
}

// resolveIsolation picks the isolation for a runtime.
func resolveIsolation(want Isolation) (Isolation, error) {
	switch want {
	case IsolationProcess:
		return IsolationProcess, nil
	case IsolationNamespaces:
		if err := namespacesAvailable(); err != nil {
			return "", fmt.Errorf("local runtime: namespaces are not available here: %w", err)
		}
		return IsolationNamespaces, nil
	case IsolationAuto:
		if namespacesAvailable() == nil {
			return IsolationNamespaces, nil
		}
		return IsolationProcess, nil
	}
	return "", fmt.Errorf("local runtime: unknown isolation %q (want %q or %q)", want, IsolationNamespaces, IsolationProcess)
}

// NamespaceError says why namespaces are not available here (nil when
// they are).
func NamespaceError() error { return namespacesAvailable() }
