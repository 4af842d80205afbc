// Package confine keeps every path a problem names inside the problem.
//
// Problem definitions are shared between teams, so they are untrusted: a
// checkpoint `path: ../../../../etc`, a static asset `/var/run` or a case
// file that is a symlink to /etc/shadow would otherwise hand the engine (and
// through it the submission) files outside the problem. A Tree is the
// problem directory plus the host directories the user allowed with
// --mount-root; every file the problem's loaders open goes through it, and
// it refuses anything that lands elsewhere — lexically (absolute paths,
// `..`) or after resolving symlinks.
//
// Reads go through os.Root opened on the directory that holds the resolved
// target, so a symlink swapped in after the check cannot lead a read out
// either.
package confine

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Tree is a problem directory and the extra roots its paths may name.
type Tree struct {
	dir   string
	roots []root // the problem directory first, then the mount roots
	// from maps the paths of the machine the problem was written for to
	// their copies here (NewShipped); nil: paths are this machine's.
	from *origin
	// named keeps the paths resolved under a mount root (Outside).
	named *recorder
}

// root is an allowed directory, as given (absolute) and resolved.
type root struct{ abs, real string }

// New confines paths to dir and to mountRoots (directories the user
// allowed, as with --mount-root).
func New(dir string, mountRoots ...string) (*Tree, error) {
	t := &Tree{named: &recorder{}}
	for i, d := range append([]string{dir}, mountRoots...) {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("directory %s: %w", d, err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			if i == 0 {
				return nil, fmt.Errorf("problem directory %s: %w", d, err)
			}
			return nil, fmt.Errorf("mount root %s: %w", d, err)
		}
		if st, err := os.Stat(real); err == nil && !st.IsDir() {
			if i == 0 {
				return nil, fmt.Errorf("problem directory %s: not a directory", d)
			}
			return nil, fmt.Errorf("mount root %s: not a directory", d)
		}
		if i == 0 {
			t.dir = abs
		}
		t.roots = append(t.roots, root{abs: abs, real: real})
	}
	return t, nil
}

// Dir is the problem directory (absolute).
func (t *Tree) Dir() string { return t.dir }

// ProblemOnly is the same problem directory without the mount roots: for
// files that must come from the problem itself (those plugins and checks
// read at run time through read_asset and expected_file).
func (t *Tree) ProblemOnly() *Tree {
	return &Tree{dir: t.dir, roots: t.roots[:1], from: t.from, named: &recorder{}}
}

// EscapeError says a path lands outside the problem directory and every
// allowed root.
type EscapeError struct {
	Path string
	// Target is where a symlink led ("" when the path itself is outside).
	Target string
	// MountRoots says whether roots besides the problem directory were
	// allowed, for the message.
	MountRoots bool
}

func (e *EscapeError) Error() string {
	where := "the problem directory"
	if e.MountRoots {
		where += " and every --mount-root"
	}
	if e.Target != "" {
		// Where the link leads is what a --mount-root would have to hold.
		allow := ""
		if !e.MountRoots {
			allow = "; a directory holding it can be allowed with --mount-root"
		}
		return fmt.Sprintf("path %q leads outside %s through a symlink (to %s%s)", e.Path, where, e.Target, allow)
	}
	return fmt.Sprintf("path %q is outside %s (expected a path relative to the problem that stays inside it%s)", e.Path, where, hint(e.MountRoots))
}

func hint(mountRoots bool) string {
	if mountRoots {
		return ""
	}
	return ", or under a directory allowed with --mount-root"
}

// Abs is name as an absolute, cleaned path: relative names are taken from
// the problem directory. It checks nothing.
func (t *Tree) Abs(name string) string {
	p := filepath.FromSlash(name)
	if t.from != nil {
		return t.from.local(p)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(t.dir, p)
	}
	return filepath.Clean(p)
}

// Resolve checks name (relative to the problem directory, or absolute)
// and returns where it really is, symlinks resolved. The path itself must
// lie inside the problem directory or an allowed root, and so must its
// resolved target.
func (t *Tree) Resolve(name string) (string, error) {
	if name == "" {
		return "", errors.New("empty path")
	}
	if strings.ContainsRune(name, 0) {
		return "", fmt.Errorf("path %q contains a NUL byte", name)
	}
	abs := t.Abs(name)
	if t.rootOf(abs) == nil {
		return "", &EscapeError{Path: name, MountRoots: len(t.roots) > 1}
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if target, lerr := os.Readlink(abs); lerr == nil {
				return "", fmt.Errorf("path %q is a broken symlink (to %s)", name, target)
			}
		}
		return "", err
	}
	if t.rootOf(real) == nil {
		return "", &EscapeError{Path: name, Target: real, MountRoots: len(t.roots) > 1}
	}
	if !Within(t.roots[0].abs, abs) && !Within(t.roots[0].real, abs) {
		t.named.add(abs, real)
	}
	return real, nil
}

// rootOf returns the allowed root p lies in, or nil.
func (t *Tree) rootOf(p string) *root {
	for i := range t.roots {
		if Within(t.roots[i].abs, p) || Within(t.roots[i].real, p) {
			return &t.roots[i]
		}
	}
	return nil
}

// openRoot resolves name and opens an os.Root on the allowed root holding
// its target, returning the target's path relative to that root.
func (t *Tree) openRoot(name string) (*os.Root, string, error) {
	real, err := t.Resolve(name)
	if err != nil {
		return nil, "", err
	}
	for _, r := range t.roots {
		if Within(r.real, real) {
			rel, err := filepath.Rel(r.real, real)
			if err != nil {
				return nil, "", err
			}
			or, err := os.OpenRoot(r.real)
			if err != nil {
				return nil, "", err
			}
			return or, rel, nil
		}
	}
	// Resolve accepted real through a root's given (unresolved) form
	// only; refuse rather than open outside.
	return nil, "", &EscapeError{Path: name, Target: real, MountRoots: len(t.roots) > 1}
}

// Stat describes name's target (symlinks followed, inside the tree only).
func (t *Tree) Stat(name string) (fs.FileInfo, error) {
	r, rel, err := t.openRoot(name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.Stat(rel)
}

// ReadFile reads the regular file name. Anything else (a directory, a
// FIFO that would block, a device) is refused.
func (t *Tree) ReadFile(name string) ([]byte, error) {
	return t.ReadFileMax(name, -1)
}

// ReadFileMax is ReadFile refusing files over max bytes (max < 0: no cap).
func (t *Tree) ReadFileMax(name string, max int64) ([]byte, error) {
	r, rel, err := t.openRoot(name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return readRegular(r, rel, name, max)
}

func readRegular(r *os.Root, rel, name string, max int64) ([]byte, error) {
	f, st, err := openRegular(r, rel, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if max >= 0 && st.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes, over the %d byte cap", name, st.Size(), max)
	}
	// Sized from the file, as os.ReadFile does: io.ReadAll doubles its
	// buffer as it goes and allocates about twice a large file's size.
	data := make([]byte, 0, st.Size()+1)
	var src io.Reader = f
	if max >= 0 {
		src = io.LimitReader(f, max)
	}
	for {
		n, err := src.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) { // the file grew since it was looked at
			data = append(data, 0)[:len(data)]
		}
	}
}

// Open opens the regular file name for reading, for a caller that streams
// a file too large to hold (ReadFile's rules: symlinks followed inside the
// tree only, anything but a regular file refused). Each call resolves name
// again, so a symlink swapped in since an earlier look is judged afresh.
func (t *Tree) Open(name string) (*os.File, error) {
	r, rel, err := t.openRoot(name)
	if err != nil {
		return nil, err
	}
	defer r.Close() // the opened file outlives the root
	f, _, err := openRegular(r, rel, name)
	return f, err
}

// openRegular opens rel under r when it is a regular file. It looks before
// it opens, since opening a FIFO blocks and opening a device acts on it;
// should the name be swapped between the look and the open, the open does
// not block (O_NONBLOCK), takes no terminal (O_NOCTTY) and the opened file
// is checked again.
func openRegular(r *os.Root, rel, name string) (*os.File, fs.FileInfo, error) {
	before, err := r.Stat(rel)
	if err != nil {
		return nil, nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file", name)
	}
	f, err := r.OpenFile(rel, os.O_RDONLY|OpenFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err == nil && (!st.Mode().IsRegular() || !os.SameFile(before, st)) {
		err = fmt.Errorf("%s changed while it was being opened", name)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// ReadDir lists the directory name, sorted by file name.
func (t *Tree) ReadDir(name string) ([]fs.DirEntry, error) {
	r, rel, err := t.openRoot(name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return fs.ReadDir(r.FS(), filepath.ToSlash(rel))
}

// File is one regular file found by WalkFiles.
type File struct {
	// Path is slash-separated, relative to the walked directory.
	Path    string
	Content []byte
}

// WalkFiles reads every regular file WalkNames finds under the directory
// name, in lexical order.
func (t *Tree) WalkFiles(name string) ([]File, error) {
	names, err := t.WalkNames(name)
	if err != nil {
		return nil, err
	}
	out := make([]File, len(names))
	for i, sub := range names {
		data, err := t.ReadFile(filepath.Join(name, filepath.FromSlash(sub)))
		if err != nil {
			return nil, err
		}
		out[i] = File{Path: sub, Content: data}
	}
	return out, nil
}

// WalkNames lists every regular file under the directory name, paths
// slash-separated and relative to name, in lexical order, without reading
// any. A symlink to a file is listed when its target stays inside the
// tree; a symlink leading out is an error, and so is a symlink to a
// directory (following those could loop). Other special files are skipped.
func (t *Tree) WalkNames(name string) ([]string, error) {
	r, rel, err := t.openRoot(name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if st, err := r.Stat(rel); err != nil {
		return nil, err
	} else if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", name)
	}
	dir := filepath.Join(r.Name(), rel) // where the walk really happens
	base := filepath.ToSlash(rel)
	var out []string
	err = fs.WalkDir(r.FS(), base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		sub := strings.TrimPrefix(strings.TrimPrefix(p, base), "/")
		if base == "." {
			sub = p
		}
		switch {
		case d.Type().IsRegular():
			out = append(out, sub)
		case d.Type()&fs.ModeSymlink != 0:
			link := filepath.Join(dir, filepath.FromSlash(sub))
			st, err := t.Stat(link)
			if err != nil {
				return err
			}
			if st.IsDir() {
				return fmt.Errorf("%s is a symlink to a directory; only files may be linked inside a directory tree", link)
			}
			if st.Mode().IsRegular() {
				out = append(out, sub)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Within reports whether path is root or lies inside it. Both must be
// absolute and clean; no symlinks are resolved.
func Within(root, path string) bool {
	if path == root {
		return true
	}
	if root == string(filepath.Separator) {
		return strings.HasPrefix(path, root)
	}
	return strings.HasPrefix(path, root+string(filepath.Separator))
}

// InsideAny reports whether the resolved path p lies inside one of roots
// (each resolved first). It is the one rule for host paths that come from
// shared files: environment-spec mounts and every path a problem names.
func InsideAny(p string, roots []string) bool {
	for _, r := range roots {
		if abs, err := filepath.Abs(r); err == nil {
			r = abs
		}
		if rr, err := filepath.EvalSymlinks(r); err == nil {
			r = rr
		}
		if Within(filepath.Clean(r), p) {
			return true
		}
	}
	return false
}
