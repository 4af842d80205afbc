package workspace

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/wasmeval/wasmeval/engine/diag"
)

var unsafeLabel = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// NewSessionDir checks that submission is a directory and creates a fresh,
// absolute session directory under base named after label (made safe for
// a file name). Runtimes put the group's workspace copy inside it.
func NewSessionDir(base, label, submission string) (string, error) {
	st, err := os.Stat(submission)
	if err != nil {
		return "", fmt.Errorf("submission %s: %w", submission, diag.UnwrapPathError(err))
	}
	if !st.IsDir() {
		return "", fmt.Errorf("submission %s is not a directory", submission)
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", fmt.Errorf("workspace base %s: %w", base, err)
	}
	dir, err := os.MkdirTemp(base, SafeLabel(label)+"-")
	if err != nil {
		return "", fmt.Errorf("create workspace: %w", err)
	}
	return filepath.Abs(dir)
}

// SafeLabel makes a session label ("checkpoint/group one") usable in file
// and container names.
func SafeLabel(label string) string {
	label = unsafeLabel.ReplaceAllString(label, "_")
	if label == "" {
		label = "session"
	}
	return label
}

// RemoveAll removes a tree even when a submission made parts of it
// read-only.
func RemoveAll(dir string) error {
	if err := os.RemoveAll(dir); err == nil {
		return nil
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}
