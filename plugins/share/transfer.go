package share

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content/oci"
)

// Export writes the artifacts of entries (manifest, config, module and
// their referrers such as signatures) as an OCI image layout in dest, or
// as a tarball of one when dest ends in .tar, for machines without access
// to the registry. What the cache lacks is pulled by manifest digest
// through r (nil: the cache must hold everything).
func Export(ctx context.Context, c *Cache, r *Remote, entries []LockEntry, dest string) error {
	return ExportTo(ctx, c, r, entries, dest, false)
}

// ExportTo is Export, replacing an existing tarball at dest when force is
// set (without it, an existing file is refused).
func ExportTo(ctx context.Context, c *Cache, r *Remote, entries []LockEntry, dest string, force bool) error {
	if err := CheckExportDest(dest, force); err != nil {
		return err
	}
	for _, e := range entries {
		ref, err := ParseRef(e.Ref)
		if err != nil {
			return err
		}
		// The lock's manifest is what is exported, with its module: a
		// module cached through another artifact is not enough.
		pinned := ref.AtDigest(e.Manifest)
		got, err := c.Locked(ctx, pinned)
		var nc *NotCachedError
		var ce *CorruptError
		if err != nil && !errors.As(err, &nc) && !errors.As(err, &ce) {
			return fmt.Errorf("%s: %w", ref, err)
		}
		if err != nil && r == nil {
			return fmt.Errorf("%s: %v; pull it first: `wasmeval plugin pull %s`", ref, err, pinned)
		}
		if err != nil {
			if ce != nil {
				os.Remove(ce.Path)
			}
			if got, err = Pull(ctx, r, c, pinned); err != nil {
				return err
			}
		}
		if got.WasmDigest != e.SHA256 {
			return integrityErr(ref.AtDigest(e.Manifest), "holds module sha256:%s, the lock records sha256:%s", got.WasmDigest, e.SHA256)
		}
	}
	tarball := strings.HasSuffix(dest, ".tar")
	dir := dest
	if tarball {
		tmp, err := os.MkdirTemp(filepath.Dir(dest), ".export-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	if !tarball {
		if err := checkExportDir(dir); err != nil {
			return err
		}
	}
	out, err := oci.NewWithContext(ctx, dir)
	if err != nil {
		return fmt.Errorf("export to %s: %w", dest, err)
	}
	err = c.view(ctx, func(s *oci.Store) error {
		for _, e := range entries {
			ref, _ := ParseRef(e.Ref)
			if _, err := oras.ExtendedCopy(ctx, s, e.Manifest, out, ref.Name(), oras.ExtendedCopyOptions{ExtendedCopyGraphOptions: oras.ExtendedCopyGraphOptions{Depth: 1}}); err != nil {
				return fmt.Errorf("export %s: %w", ref, err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	// oras makes a directory for uploads in progress; an export has none.
	os.Remove(filepath.Join(dir, "ingest"))
	if !tarball {
		return nil
	}
	return writeTar(dir, dest)
}

// CheckExportDest refuses a destination export would not write as the
// user expects: a compressed or other archive suffix (only .tar is
// written; anything else is a directory), or an existing file (unless
// force).
func CheckExportDest(dest string, force bool) error {
	lower := strings.ToLower(dest)
	for _, ext := range []string{".tgz", ".tar.gz", ".gz", ".tar.zst", ".zst", ".tar.xz", ".xz", ".tar.bz2", ".bz2", ".zip"} {
		if strings.HasSuffix(lower, ext) {
			return inputErr(fmt.Errorf("export to %s: %s archives are not written; name a .tar file (compress it afterwards if you like) or a directory", dest, ext))
		}
	}
	fi, err := os.Stat(dest)
	if err != nil {
		return nil
	}
	if !fi.IsDir() {
		if !strings.HasSuffix(dest, ".tar") {
			return inputErr(fmt.Errorf("export to %s: a file exists there; name a .tar file or a directory", dest))
		}
		if !force {
			return inputErr(fmt.Errorf("export to %s: the file exists; pass --force to replace it", dest))
		}
	}
	return nil
}

// Import copies every plugin artifact of the OCI layout (directory or
// .tar) at src into the cache, with its referrers, checking each blob
// against its digest. It returns what it imported.
func Import(ctx context.Context, c *Cache, src string) ([]Resolved, error) {
	dir := src
	if fi, err := os.Stat(src); err != nil {
		return nil, inputErr(fmt.Errorf("import %s: %w", src, err))
	} else if !fi.IsDir() {
		tmp, err := os.MkdirTemp("", "wasmeval-import-*")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		if err := readTar(src, tmp); err != nil {
			return nil, err
		}
		dir = tmp
	}
	if _, err := os.Stat(filepath.Join(dir, ocispec.ImageIndexFile)); errors.Is(err, fs.ErrNotExist) {
		return nil, inputErr(fmt.Errorf("import %s: not an OCI image layout (it has no index.json); expected a directory or a .tar written by `wasmeval plugin export`", src))
	}
	index, err := readIndex(dir)
	if err != nil {
		return nil, inputErr(fmt.Errorf("import %s: %w", src, err))
	}
	in, err := oci.NewFromFS(ctx, os.DirFS(dir))
	if err != nil {
		return nil, fmt.Errorf("import %s: not an OCI image layout: %v", src, oneLine(err))
	}
	var out []Resolved
	for _, d := range index.Manifests {
		name := d.Annotations[ocispec.AnnotationRefName]
		ref, err := ParseRef(name)
		if err != nil {
			ref = Ref{Host: importHost, Repository: "local", Digest: d.Digest.String()}
		}
		a, err := readArtifact(ctx, in, ref, d)
		if err != nil {
			if isReferrer(ctx, in, d) {
				continue // a signature or other referrer; it comes with its subject
			}
			return nil, fmt.Errorf("import %s: %w", src, err)
		}
		if a.manifest.Subject != nil {
			continue // a referrer; it comes with its subject
		}
		if err := c.add(ctx, in, ref, a); err != nil {
			return nil, fmt.Errorf("import %s: %w", src, err)
		}
		got, err := c.resolved(ref, a)
		if err != nil {
			return nil, err
		}
		out = append(out, got)
	}
	return out, nil
}

// importHost names, in errors, an imported manifest the layout gave no
// reference; such an entry is cached untagged.
const importHost = "import"

// maxTarBytes caps what an imported tarball may unpack to.
const maxTarBytes = 4 << 30

func writeTar(dir, dest string) error {
	f, err := os.CreateTemp(filepath.Dir(dest), "."+filepath.Base(dest)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	tw := tar.NewWriter(f)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		hdr := &tar.Header{Name: filepath.ToSlash(rel), Mode: 0o644, Size: fi.Size(), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		src, err := os.Open(p)
		if err != nil {
			return err
		}
		defer src.Close()
		_, err = io.Copy(tw, src)
		return err
	})
	if err == nil {
		err = tw.Close()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("export to %s: %w", dest, err)
	}
	return os.Rename(f.Name(), dest)
}

// readTar unpacks an export tarball: regular files only, under dir, with
// a cap on the total size; links, devices and paths leading out are
// refused.
func readTar(src, dir string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	tr := tar.NewReader(f)
	var total int64
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return inputErr(fmt.Errorf("import %s: not a tarball (%v); expected a directory or a .tar written by `wasmeval plugin export`", src, err))
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			continue
		case tar.TypeReg:
		default:
			return fmt.Errorf("import %s: entry %q is not a regular file; refusing it", src, hdr.Name)
		}
		name := path.Clean(hdr.Name)
		if !fs.ValidPath(name) || name == "." {
			return fmt.Errorf("import %s: entry %q leads outside the layout; refusing it", src, hdr.Name)
		}
		total += hdr.Size
		if hdr.Size < 0 || total > maxTarBytes {
			return fmt.Errorf("import %s: unpacks to more than %d GiB; refusing it", src, maxTarBytes>>30)
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		out, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return fmt.Errorf("import %s: entry %q: %w", src, hdr.Name, err)
		}
		_, err = io.Copy(out, io.LimitReader(tr, hdr.Size))
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
}

// checkExportDir refuses to export into a directory that holds something
// other than an OCI layout: export adds to a layout, it never mixes one
// into unrelated files.
func checkExportDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) || err == nil && len(entries) == 0 {
		return nil
	}
	if err != nil {
		return fmt.Errorf("export to %s: %w", dir, err)
	}
	if _, err := os.Stat(filepath.Join(dir, ocispec.ImageLayoutFile)); err != nil {
		return fmt.Errorf("export to %s: the directory is not empty and not an OCI image layout; name a new directory or a .tar file", dir)
	}
	return nil
}
