//go:build !unix

package share

import (
	"fmt"
	"os"
)

// lockFile cannot lock on this system (there is no flock): it only checks
// that the lock file can be created, and two wasmeval processes writing
// the same cache at once is up to the user to avoid.
func lockFile(path string, exclusive bool) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock the plugin cache: %w", err)
	}
	return func() { f.Close() }, nil
}

// holdFile cannot lock on this system: nothing is held.
func holdFile(path string) *os.File { return nil }

// inUse cannot tell on this system: nothing is in use.
func inUse(path string) bool { return false }
