package problem

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/wasmeval/wasmeval/engine/workspace/confine"
)

// pathKind is what a path named in a problem must lead to.
type pathKind int

const (
	isFile pathKind = iota
	isDir
	isFileOrDir
)

// resolve checks a path the problem names — relative to the problem
// directory, or absolute under a mount root — through the loader's
// confine.Tree, and that it leads to what is expected. It returns the
// resolved path; callers keep the path as written (Tree.Abs), whose file
// name a runtime may use, and open it through the tree again. Every path a
// problem's configuration names goes through here, so none can reach
// outside the problem: not with `..`, not as an absolute path, not through
// a symlink.
func (l *loader) resolve(name string, kind pathKind) (string, error) {
	return resolveIn(l.files, name, kind)
}

func resolveIn(files *confine.Tree, name string, kind pathKind) (string, error) {
	real, err := files.Resolve(name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", notFound(name)
	}
	if err != nil {
		return "", err
	}
	st, err := files.Stat(name)
	if err != nil {
		return "", err
	}
	switch {
	case kind == isDir && !st.IsDir():
		return "", fmt.Errorf("%q is not a directory", name)
	case kind == isFile && !st.Mode().IsRegular():
		return "", fmt.Errorf("%q is not a regular file", name)
	case kind == isFileOrDir && !st.IsDir() && !st.Mode().IsRegular():
		// Sockets and devices are never problem data (a socket could be
		// a daemon's API).
		return "", fmt.Errorf("%q is neither a regular file nor a directory", name)
	}
	return real, nil
}

// CheckProblemFile checks a file a check reads at run time (expected_file,
// schema_file): a regular file named relative to the problem directory
// that stays inside it. Mount roots do not apply: at run time these files
// are read as read_asset reads a plugin's, from the problem only.
func CheckProblemFile(files *confine.Tree, name string) error {
	if !isLocalPath(name) {
		return fmt.Errorf("expected a path relative to the problem directory that stays inside it, got %q", name)
	}
	_, err := resolveIn(files.ProblemOnly(), name, isFile)
	return err
}

// notFound is a path that does not exist; it matches fs.ErrNotExist.
type notFound string

func (n notFound) Error() string { return fmt.Sprintf("%q not found", string(n)) }
func (n notFound) Unwrap() error { return fs.ErrNotExist }
