package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/wasmeval/wasmeval/engine/workspace/confine"
)

// A workspace is written by the submission while the engine works in it:
// a process a case left running, or a server that lives as long as its
// group, can replace a directory by a symlink between the engine's check
// of a path and its use. The engine may run as root, so a write that
// followed such a link would create a root-owned file wherever the link
// points. Everything here goes through an os.Root opened on the workspace
// instead: the kernel resolves each path component under that directory
// and a symlink is never followed out of it, whenever it was planted.

// CopyInto copies the directory tree src into the directory dst is open
// on, through dst. Entries are created exclusively: a name that exists
// already (something planted it) is an error, never opened and written
// through. Modes are kept as Copy keeps them; symlinks are recreated when
// they point inside src and refused otherwise. When uid or gid is not -1,
// every entry created is given to that owner (through the open file where
// there is one, so never to whatever replaced it).
func CopyInto(dst *os.Root, src string, uid, gid int) error {
	realSrc, err := filepath.EvalSymlinks(src)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if st, err := os.Stat(realSrc); err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	} else if !st.IsDir() {
		return fmt.Errorf("copy %s: not a directory", src)
	}
	chown := uid != -1 || gid != -1
	return filepath.WalkDir(realSrc, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(realSrc, p)
		if err != nil || rel == "." {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if err := dst.Mkdir(rel, info.Mode().Perm()|0o700); err != nil {
				return fmt.Errorf("copy %s: %w", rel, err)
			}
		case info.Mode()&fs.ModeSymlink != 0:
			dest, err := linkInside(realSrc, p)
			if err != nil {
				return err
			}
			if err := dst.Symlink(dest, rel); err != nil {
				return fmt.Errorf("copy %s: %w", rel, err)
			}
		case info.Mode().IsRegular():
			return copyFileInto(dst, rel, p, info.Mode().Perm(), uid, gid)
		default:
			return nil // sockets, devices, pipes: never part of a submission's source
		}
		if chown {
			// Lchown acts on the final component itself: were it swapped
			// for a symlink meanwhile, the link (inside dst) changes owner.
			if err := dst.Lchown(rel, uid, gid); err != nil {
				return fmt.Errorf("copy %s: %w", rel, err)
			}
		}
		return nil
	})
}

// linkInside is the target of the symlink link when it lands inside root
// (the whole chain resolved; a dangling link judged by its text).
func linkInside(root, link string) (string, error) {
	dest, err := os.Readlink(link)
	if err != nil {
		return "", err
	}
	resolved, err := filepath.EvalSymlinks(link)
	if err != nil {
		resolved = dest
		if !filepath.IsAbs(dest) {
			resolved = filepath.Join(filepath.Dir(link), dest)
		}
	}
	if !within(root, filepath.Clean(resolved)) {
		return "", fmt.Errorf("copy %s: symlink points outside the submission (to %s)", link, dest)
	}
	return dest, nil
}

func copyFileInto(dst *os.Root, rel, src string, mode fs.FileMode, uid, gid int) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := dst.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode|0o600)
	if err != nil {
		return fmt.Errorf("copy %s: %w", rel, err)
	}
	_, err = io.Copy(out, in)
	if err == nil {
		// Exactly the source's mode, whatever the umask; on the open file,
		// so it is this file whatever now sits at its name.
		err = out.Chmod(mode)
	}
	if err == nil && (uid != -1 || gid != -1) {
		err = out.Chown(uid, gid)
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("copy %s: %w", rel, err)
	}
	return nil
}

// writeNew replaces the file rel under r with what content yields:
// whatever sits at the name (a file, a planted symlink) is removed and the
// file created exclusively, so the write lands in a new file inside r or
// fails. content is copied as a stream, so a large input file of the
// problem goes file to file without being held.
func writeNew(r *os.Root, rel string, content io.Reader, perm fs.FileMode) error {
	if dir := filepath.Dir(rel); dir != "." {
		if err := r.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	if err := r.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f, err := r.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// openRegular opens rel under r for reading when it is a regular file
// (symlinks followed inside r only), and reports ok=false for anything
// else. It looks before it opens, since opening a FIFO blocks and opening
// a device node (a container's root may create one) acts on the device;
// should the name be swapped between the look and the open, the open does
// not block (O_NONBLOCK), takes no terminal (O_NOCTTY), and the file is
// checked again, as opened, before a byte is read.
func openRegular(r *os.Root, rel string) (f *os.File, st fs.FileInfo, ok bool, err error) {
	before, err := r.Stat(rel)
	if err != nil || !before.Mode().IsRegular() {
		return nil, nil, false, nil
	}
	f, err = r.OpenFile(rel, os.O_RDONLY|confine.OpenFlags, 0)
	if err != nil {
		return nil, nil, false, nil
	}
	st, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, false, err
	}
	if !st.Mode().IsRegular() || !os.SameFile(before, st) {
		f.Close()
		return nil, nil, false, nil
	}
	return f, st, true, nil
}
