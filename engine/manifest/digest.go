package manifest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// TreeDigest is the sha256 over every regular file under root: each file's
// slash-separated relative path, size and content, in lexical order, so it
// changes when a file is added, removed, renamed or edited and not when
// only timestamps change. Symlinks are hashed by their target text.
func TreeDigest(root string) (digest string, files int, err error) {
	h := sha256.New()
	files, err = hashTree(h, root, "")
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), files, nil
}

func hashTree(h hash.Hash, root, prefix string) (int, error) {
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(filepath.Join(prefix, rel))
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "L\x00%s\x00%s\x00", rel, target)
			files++
		case d.Type().IsRegular():
			if err := hashFile(h, path, rel); err != nil {
				return err
			}
			files++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("digest %s: %w", root, err)
	}
	return files, nil
}

func hashFile(h hash.Hash, path, name string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	fmt.Fprintf(h, "F\x00%s\x00%d\x00", name, st.Size())
	_, err = io.Copy(h, f)
	return err
}

// PathsDigest hashes a set of files and directories (each walked as by
// TreeDigest) plus extra strings, independent of the order they are given
// in. Missing paths are an error: a digest over what happens to exist would
// hide a change.
func PathsDigest(paths []string, extra ...string) (string, error) {
	paths = slices.Clone(paths)
	slices.Sort(paths)
	paths = slices.Compact(paths)
	h := sha256.New()
	for _, e := range extra {
		fmt.Fprintf(h, "X\x00%s\x00", e)
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return "", fmt.Errorf("digest: %w", err)
		}
		if st.IsDir() {
			fmt.Fprintf(h, "D\x00%s\x00", filepath.Base(p))
			if _, err := hashTree(h, p, filepath.Base(p)); err != nil {
				return "", err
			}
			continue
		}
		if err := hashFile(h, p, filepath.Base(p)); err != nil {
			return "", fmt.Errorf("digest %s: %w", p, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
