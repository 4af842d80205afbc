package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// runDirPrefix starts the name of every run directory:
// wasmeval-work-PID-RANDOM in the temporary directory.
const runDirPrefix = "wasmeval-work-"

// NewRunDir creates the temporary directory a run keeps its workspaces in.
// The run removes it when it ends; its name carries the run's process id
// so that CleanRunDirs can tell one left by a run that was killed (and had
// no chance to remove it) from one in use.
func NewRunDir() (string, error) {
	return os.MkdirTemp("", fmt.Sprintf("%s%d-", runDirPrefix, os.Getpid()))
}

// CleanRunDirs removes the run directories in the temporary directory whose
// run is no longer alive, or, with all, every one but this process's own
// (directories named before names carried a process id are only removed
// with all). It returns the paths it removed.
func CleanRunDirs(all bool) ([]string, error) {
	tmp := os.TempDir()
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", tmp, err)
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, runDirPrefix) {
			continue
		}
		pidText, _, hasPID := strings.Cut(strings.TrimPrefix(name, runDirPrefix), "-")
		pid, err := strconv.Atoi(pidText)
		switch {
		case !hasPID || err != nil || pid <= 0:
			if !all {
				continue
			}
		case pid == os.Getpid():
			continue
		case !all && processAlive(pid):
			continue
		}
		path := filepath.Join(tmp, name)
		if err := os.RemoveAll(path); err != nil {
			errs = append(errs, fmt.Errorf("remove %s: %w", path, err))
			continue
		}
		removed = append(removed, path)
	}
	return removed, errors.Join(errs...)
}
