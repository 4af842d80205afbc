package distribute

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Limits of what a worker unpacks: an artifact is someone else's bytes,
// and a tar can claim anything.
var (
	// MaxArtifactBytes bounds an artifact as fetched (the tar).
	MaxArtifactBytes int64 = 4 << 30
	// MaxArtifactFiles bounds the entries of one artifact.
	MaxArtifactFiles = 200_000
)

// ArtifactBucket is the object store artifacts travel through, named by
// their sha256.
const ArtifactBucket = "wasmeval-artifacts"

// DigestError says a fetched artifact is not the one the job named: the
// worker refuses it rather than run something else.
type DigestError struct {
	Want, Got string
}

func (e *DigestError) Error() string {
	return fmt.Sprintf("artifact digest mismatch: the job names sha256:%s, the object store %s gave sha256:%s under that name", e.Want, ArtifactBucket, e.Got)
}

// Replaced says the object store held an object under an artifact's
// digest whose bytes are not that digest's (tampered with, or cut short),
// and that the coordinator stored the right bytes over it.
type Replaced struct {
	// What the artifact is, as the coordinator names it (the problem, a
	// plugin, ...); Digest its sha256 and the object's name.
	What, Digest string
	// Found is the sha256 of the bytes the object held ("" when they
	// could not be read whole), and why they were refused.
	Found, Why string
}

func (r *Replaced) String() string {
	return fmt.Sprintf("object store %s: the object sha256:%s (%s) %s; replaced it with the right bytes", ArtifactBucket, r.Digest, r.What, r.Why)
}

// pack writes dir as a tar to w: regular files and directories only, in
// lexical order, without times or owners, so the same tree always gives
// the same bytes (and digest). A symlink or another special file is
// refused, naming it: a worker could not recreate it faithfully.
func pack(dir string, w io.Writer) error {
	tw := tar.NewWriter(w)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		name := filepath.ToSlash(rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case info.IsDir():
			return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: 0o755})
		case info.Mode().IsRegular():
			mode := int64(0o644)
			if info.Mode()&0o111 != 0 {
				mode = 0o755
			}
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: info.Size()}); err != nil {
				return err
			}
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			if n, err := io.Copy(tw, f); err != nil || n != info.Size() {
				return fmt.Errorf("%s: changed while it was packed: %v", p, err)
			}
			return nil
		default:
			return fmt.Errorf("%s: a distributed run ships regular files and directories only, this is %s", p, info.Mode().Type())
		}
	})
	if err != nil {
		return err
	}
	return tw.Close()
}

// Publish packs dir and stores it in the object store under its sha256,
// and returns the digest, hex. An object of that name is kept when its
// bytes are the artifact's; one whose bytes are not (tampered with, cut
// short) is replaced, and the Replaced returned says so (nil otherwise).
func Publish(ctx context.Context, store jetstream.ObjectStore, dir string) (string, *Replaced, error) {
	tmp, err := os.CreateTemp("", "wasmeval-artifact-*.tar")
	if err != nil {
		return "", nil, err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	h := sha256.New()
	if err := pack(dir, io.MultiWriter(tmp, h)); err != nil {
		return "", nil, fmt.Errorf("pack %s: %w", dir, err)
	}
	digest := hex.EncodeToString(h.Sum(nil))
	rep, err := ensureObject(ctx, store, digest, dir, func() (io.Reader, error) {
		_, err := tmp.Seek(0, io.SeekStart)
		return tmp, err
	})
	if err != nil {
		return "", nil, fmt.Errorf("store %s: %w", dir, err)
	}
	return digest, rep, nil
}

// ensureObject makes the object named digest hold the bytes open gives
// (whose sha256 is digest): an object already there is read back
// and hashed, and kept only when it holds them. The store's own record
// of an object (its size and digest) is written by whoever stored it, so
// only the bytes themselves are trusted.
func ensureObject(ctx context.Context, store jetstream.ObjectStore, digest, what string, open func() (io.Reader, error)) (*Replaced, error) {
	var rep *Replaced
	info, err := store.GetInfo(ctx, digest)
	switch {
	case errors.Is(err, jetstream.ErrObjectNotFound):
	case err != nil:
		return nil, fmt.Errorf("object store: %w", err)
	default:
		found, why, err := storedDigest(ctx, store, digest, info)
		if err != nil {
			return nil, err
		}
		if why == "" {
			return nil, nil // the right bytes are there
		}
		rep = &Replaced{What: what, Digest: digest, Found: found, Why: why}
	}
	r, err := open()
	if err != nil {
		return nil, err
	}
	if _, err := store.Put(ctx, jetstream.ObjectMeta{Name: digest, Description: what}, r); err != nil {
		return nil, err
	}
	return rep, nil
}

// storedDigest reads the object named digest whole and says why its
// bytes are not digest's ("" when they are), with the sha256 of what it
// read ("" when it could not be read whole).
func storedDigest(ctx context.Context, store jetstream.ObjectStore, digest string, info *jetstream.ObjectInfo) (found, why string, err error) {
	if info.Size > uint64(MaxArtifactBytes) {
		return "", fmt.Sprintf("claims %d bytes, more than an artifact may have", info.Size), nil
	}
	// An object whose chunks are gone could keep a read waiting: the
	// read is bounded, generously for the object's size, and an object
	// that cannot be read back in that time is replaced (with the same
	// bytes, at worst).
	rctx, cancel := context.WithTimeout(ctx, 2*time.Minute+time.Duration(info.Size/(1<<20))*time.Second)
	defer cancel()
	obj, err := store.Get(rctx, digest)
	if err != nil {
		if ctx.Err() != nil {
			return "", "", ctx.Err()
		}
		return "", fmt.Sprintf("cannot be read back (%v)", err), nil
	}
	defer obj.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(obj, MaxArtifactBytes+1))
	found = hex.EncodeToString(h.Sum(nil))
	switch {
	case ctx.Err() != nil:
		return "", "", ctx.Err()
	case errors.Is(err, jetstream.ErrDigestMismatch):
		// Chunks that are not the ones the object was stored with.
		return found, fmt.Sprintf("holds %d bytes whose sha256 is %s, not the %s the store recorded for them", n, found, info.Digest), nil
	case err != nil:
		return "", fmt.Sprintf("cannot be read back whole (%v after %d bytes)", err, n), nil
	case found != digest:
		return found, fmt.Sprintf("holds %d bytes whose sha256 is %s", n, found), nil
	}
	return found, "", nil
}

// Fetch makes the artifact of digest (hex) a directory under cacheDir
// and returns its path: fetched, its digest checked, then unpacked. A
// directory already there was checked when it was made.
func Fetch(ctx context.Context, store jetstream.ObjectStore, digest, cacheDir string) (string, error) {
	if !isDigest(digest) {
		return "", fmt.Errorf("artifact digest %q: want 64 lowercase hex digits", digest)
	}
	return fetchDir(ctx, store, digest, cacheDir, filepath.Join(cacheDir, digest))
}

// fetchDir is Fetch unpacking into final (a path under cacheDir).
func fetchDir(ctx context.Context, store jetstream.ObjectStore, digest, cacheDir, final string) (string, error) {
	if st, err := os.Stat(final); err == nil && st.IsDir() {
		return final, nil
	}
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return "", err
	}
	tmp, err := fetchChecked(ctx, store, digest, cacheDir)
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	dir, err := os.MkdirTemp(cacheDir, "unpack-*")
	if err != nil {
		return "", err
	}
	if err := unpack(tmp, dir); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("artifact sha256:%s: %w", digest, err)
	}
	if err := os.Rename(dir, final); err != nil {
		os.RemoveAll(dir)
		if st, serr := os.Stat(final); serr == nil && st.IsDir() {
			return final, nil // another job unpacked it first
		}
		return "", err
	}
	return final, nil
}

// unpack extracts the tar in r into dir through an os.Root, so no entry
// lands outside dir whatever its name: names must be relative, clean and
// without "..", only regular files and directories are made (links and
// devices are refused), and the total stays under MaxArtifactBytes.
func unpack(r io.Reader, dir string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	tr := tar.NewReader(r)
	var total int64
	for files := 0; ; files++ {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read tar: %w", err)
		}
		if files >= MaxArtifactFiles {
			return fmt.Errorf("more than %d entries", MaxArtifactFiles)
		}
		name := strings.TrimSuffix(hdr.Name, "/")
		if name == "" || path.IsAbs(name) || path.Clean(name) != name || name == ".." || strings.HasPrefix(name, "../") || strings.Contains(name, "\\") {
			return fmt.Errorf("entry %q: want a clean relative name inside the artifact", hdr.Name)
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := root.MkdirAll(name, 0o755); err != nil {
				return fmt.Errorf("entry %q: %w", hdr.Name, err)
			}
		case tar.TypeReg:
			if hdr.Size < 0 || total+hdr.Size > MaxArtifactBytes {
				return fmt.Errorf("entry %q: the artifact unpacks to more than %d bytes", hdr.Name, MaxArtifactBytes)
			}
			total += hdr.Size
			if d := path.Dir(name); d != "." {
				if err := root.MkdirAll(d, 0o755); err != nil {
					return fmt.Errorf("entry %q: %w", hdr.Name, err)
				}
			}
			mode := os.FileMode(0o644)
			if hdr.Mode&0o111 != 0 {
				mode = 0o755
			}
			// O_EXCL: an entry twice, or over a directory, is refused
			// rather than replaced.
			f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
			if err != nil {
				return fmt.Errorf("entry %q: %w", hdr.Name, err)
			}
			_, err = io.Copy(f, io.LimitReader(tr, hdr.Size))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("entry %q: %w", hdr.Name, err)
			}
		default:
			return fmt.Errorf("entry %q: only regular files and directories are unpacked (type %q)", hdr.Name, hdr.Typeflag)
		}
	}
}

// PublishFile stores the file at path in the object store under its
// sha256, as it is (not packed), and returns the digest, hex; an object
// of that name is kept or replaced as Publish does. want, when not "",
// is the digest the file must have (a plugin's pin): a file changed
// since it was checked is refused rather than sent.
func PublishFile(ctx context.Context, store jetstream.ObjectStore, path, want string) (string, *Replaced, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", nil, err
	}
	if int64(len(data)) > MaxArtifactBytes {
		return "", nil, fmt.Errorf("%s: larger than %d bytes", path, MaxArtifactBytes)
	}
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:])
	if want != "" && !strings.EqualFold(want, digest) {
		return "", nil, fmt.Errorf("%s: its sha256 is %s, not the pinned %s; it changed since the problem was loaded", path, digest, want)
	}
	rep, err := ensureObject(ctx, store, digest, path, func() (io.Reader, error) { return bytes.NewReader(data), nil })
	if err != nil {
		return "", nil, fmt.Errorf("store %s: %w", path, err)
	}
	return digest, rep, nil
}

// FetchFile makes the object of digest (hex) the file cacheDir/<digest>
// and returns its path: fetched, its digest checked, then renamed into
// place, so a file there is one whose digest was checked.
func FetchFile(ctx context.Context, store jetstream.ObjectStore, digest, cacheDir string) (string, error) {
	if !isDigest(digest) {
		return "", fmt.Errorf("artifact digest %q: want 64 lowercase hex digits", digest)
	}
	final := filepath.Join(cacheDir, digest)
	if st, err := os.Stat(final); err == nil && st.Mode().IsRegular() {
		return final, nil
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", err
	}
	tmp, err := fetchChecked(ctx, store, digest, cacheDir)
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), final); err != nil {
		return "", err
	}
	return final, nil
}

// fetchChecked copies the object of digest into a new file in dir,
// hashing it on the way: the file it returns (at its start) holds exactly
// the bytes whose sha256 is digest, at most MaxArtifactBytes of them. The
// caller removes it.
func fetchChecked(ctx context.Context, store jetstream.ObjectStore, digest, dir string) (*os.File, error) {
	obj, err := store.Get(ctx, digest)
	if err != nil {
		return nil, fmt.Errorf("fetch artifact sha256:%s: %w", digest, err)
	}
	defer obj.Close()
	tmp, err := os.CreateTemp(dir, "fetch-*")
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*os.File, error) {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(obj, MaxArtifactBytes+1))
	if errors.Is(err, jetstream.ErrDigestMismatch) {
		// The object's chunks are not those it was stored with: what
		// came is not the artifact, whatever the store's record says.
		return fail(&DigestError{Want: digest, Got: hex.EncodeToString(h.Sum(nil))})
	}
	if err != nil {
		return fail(fmt.Errorf("fetch artifact sha256:%s: %w", digest, err))
	}
	if n > MaxArtifactBytes {
		return fail(fmt.Errorf("artifact sha256:%s: larger than %d bytes", digest, MaxArtifactBytes))
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != digest {
		return fail(&DigestError{Want: digest, Got: got})
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return fail(err)
	}
	return tmp, nil
}

// isDigest says whether s is a sha256 as 64 lowercase hex digits.
func isDigest(s string) bool {
	return len(s) == 64 && strings.Trim(s, "0123456789abcdef") == ""
}
