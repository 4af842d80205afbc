package workspace

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Copy copies the directory tree src into dst (created if missing),
// keeping file modes exactly so scripts stay executable (directories get
// at least owner rwx, so the copy can be filled and later removed). Symlinks are recreated
// when they point inside src and refused when they point outside, since a
// copy that followed them would hand the submission files it does not own.
func Copy(dst, src string) error {
	st, err := os.Stat(src)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("copy %s: not a directory", src)
	}
	realSrc, err := filepath.EvalSymlinks(src)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	// A destination inside the source would be copied into itself forever.
	if absDst, err := filepath.Abs(dst); err == nil {
		if realDst, err := evalExisting(absDst); err == nil && within(realSrc, realDst) {
			return fmt.Errorf("copy %s: the destination %s is inside it", src, dst)
		}
	}
	return filepath.WalkDir(realSrc, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(realSrc, p)
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm()|0o700)
		case info.Mode()&fs.ModeSymlink != 0:
			return copyLink(realSrc, p, target)
		case info.Mode().IsRegular():
			return copyFile(target, p, info.Mode().Perm())
		}
		return nil // sockets, devices, pipes: cannot be copied, and never part of a submission's source
	})
}

func copyLink(root, link, target string) error {
	dest, err := os.Readlink(link)
	if err != nil {
		return err
	}
	// Resolve the whole chain (a link may point at another link, or climb
	// out through "..": only where it finally lands counts); a dangling
	// link is judged by its text.
	resolved, err := filepath.EvalSymlinks(link)
	if err != nil {
		resolved = dest
		if !filepath.IsAbs(dest) {
			resolved = filepath.Join(filepath.Dir(link), dest)
		}
	}
	if !within(root, filepath.Clean(resolved)) {
		return fmt.Errorf("copy %s: symlink points outside the submission (to %s)", link, dest)
	}
	return os.Symlink(dest, target)
}

// evalExisting resolves symlinks in the longest existing prefix of p.
func evalExisting(p string) (string, error) {
	rest := ""
	for {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest), nil
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", fmt.Errorf("cannot resolve %s", p)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

func copyFile(dst, src string, mode fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode|0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if err := out.Close(); err != nil {
		return err
	}
	// Exactly the source's mode, whatever the umask.
	return os.Chmod(dst, mode)
}
