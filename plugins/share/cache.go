package share

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/oci"
	"oras.land/oras-go/v2/errdef"
)

// CacheEnv names the root of wasmeval's caches; the plugin cache is its
// oci subdirectory. Unset, the root is the user cache directory's wasmeval
// (where the host keeps its compilation cache, in wazero).
const CacheEnv = "WASMEVAL_CACHE_DIR"

// DefaultCacheDir is the plugin cache's directory: $WASMEVAL_CACHE_DIR/oci,
// else <user cache dir>/wasmeval/oci.
func DefaultCacheDir() (string, error) {
	if root := os.Getenv(CacheEnv); root != "" {
		return filepath.Join(root, "oci"), nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("plugin cache: no user cache directory (%v); set %s", err, CacheEnv)
	}
	return filepath.Join(base, "wasmeval", "oci"), nil
}

// Cache is the local content-addressed plugin cache: an OCI image layout
// (blobs/sha256/<hex>, index.json naming what was pulled by which
// reference), so that oras, skopeo or crane can read it too.
//
// Several processes may use one cache at once. Blobs are written to a
// temporary file and renamed into place; index.json, which oras rewrites
// in place, is read under a shared and written under an exclusive file
// lock, each time from a freshly loaded store so that no writer loses
// another's entries.
type Cache struct {
	dir string

	mu   sync.Mutex
	held map[string]*os.File // by module digest (hold)
}

// annotationLockedAs, on an index entry fetched by digest for a lock,
// is the reference the lock names (HOST/REPO:TAG).
const annotationLockedAs = "dev.wasmeval.locked-as"

const (
	cacheLockName = ".wasmeval-cache.lock"
	usedDir       = ".wasmeval-used"
)

// OpenCache opens (creating it if needed) the cache in dir ("" for
// DefaultCacheDir).
func OpenCache(dir string) (*Cache, error) {
	if dir == "" {
		var err error
		if dir, err = DefaultCacheDir(); err != nil {
			return nil, err
		}
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("plugin cache: %w", err)
	}
	c := &Cache{dir: dir}
	if layoutExists(dir) {
		// Nothing to create: a cache provisioned read-only opens too.
		return c, nil
	}
	// Creates oci-layout and index.json, under the lock.
	if err := c.update(context.Background(), func(*oci.Store) error { return nil }); err != nil {
		return nil, err
	}
	return c, nil
}

func layoutExists(dir string) bool {
	for _, name := range []string{ocispec.ImageLayoutFile, ocispec.ImageIndexFile} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || !fi.Mode().IsRegular() {
			return false
		}
	}
	return true
}

// hold marks the module wasmDigest in use by this process until it
// exits (a shared lock on its marker in usedDir), so that a prune in
// another process keeps it: a run loads its modules after resolving them,
// and starts plugin workers, which read the module file, as it goes.
func (c *Cache) hold(wasmDigest string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held[wasmDigest] != nil {
		return
	}
	dir := filepath.Join(c.dir, usedDir)
	os.MkdirAll(dir, 0o755)
	if f := holdFile(filepath.Join(dir, wasmDigest)); f != nil {
		if c.held == nil {
			c.held = map[string]*os.File{}
		}
		c.held[wasmDigest] = f
	}
}

// release ends this Cache's hold on a module.
func (c *Cache) release(wasmDigest string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f := c.held[wasmDigest]; f != nil {
		f.Close()
		delete(c.held, wasmDigest)
	}
}

// Dir is the cache's directory.
func (c *Cache) Dir() string { return c.dir }

// update runs fn on the store under the exclusive lock.
func (c *Cache) update(ctx context.Context, fn func(*oci.Store) error) error {
	return c.withStore(ctx, true, fn)
}

// view runs fn on the store under the shared lock.
func (c *Cache) view(ctx context.Context, fn func(*oci.Store) error) error {
	return c.withStore(ctx, false, fn)
}

func (c *Cache) withStore(ctx context.Context, exclusive bool, fn func(*oci.Store) error) error {
	unlock, err := lockFile(filepath.Join(c.dir, cacheLockName), exclusive)
	if err != nil {
		return err
	}
	defer func() { unlock() }()
	// An entry whose manifest blob is bad would make oras refuse the whole
	// layout; it is taken out of the index first (see corruptName).
	if index, err := readIndex(c.dir); err == nil {
		if bad := c.badManifests(index); len(bad) > 0 {
			if !exclusive {
				unlock()
				if unlock, err = lockFile(filepath.Join(c.dir, cacheLockName), true); err != nil {
					unlock = func() {}
					return err
				}
				if index, err = readIndex(c.dir); err != nil {
					return err
				}
				bad = c.badManifests(index)
			}
			if err := c.repair(index, bad); err != nil {
				return err
			}
		}
	}
	s, err := oci.NewWithContext(ctx, c.dir)
	if err != nil {
		return fmt.Errorf("plugin cache %s: %v; remove the directory to start an empty cache", c.dir, oneLine(err))
	}
	return fn(s)
}

// NotCachedError says a module, or a manifest, is not in the cache.
type NotCachedError struct {
	WasmDigest string // the module's, in hex
	Manifest   string // or the manifest's, "sha256:<hex>"
}

func (e *NotCachedError) Error() string {
	if e.Manifest != "" {
		return "manifest " + e.Manifest + " is not in the plugin cache"
	}
	return "module sha256:" + e.WasmDigest + " is not in the plugin cache"
}

// CorruptError says a cached module, or manifest, no longer matches its
// digest.
type CorruptError struct {
	WasmDigest, Path, Got string
	// Manifest is set when the manifest is what is damaged; Why says how.
	Manifest, Why string
}

func (e *CorruptError) Error() string {
	const fix = "run `wasmeval plugin cache prune --corrupt` to drop it (and keep the rest), then pull it again by digest or `wasmeval plugin import` it"
	if e.Manifest != "" {
		return fmt.Sprintf("cached manifest %s (%s) is damaged: %s; %s", e.Manifest, e.Path, e.Why, fix)
	}
	return fmt.Sprintf("cached module sha256:%s (%s) is corrupt: its content hashes to sha256:%s; %s",
		e.WasmDigest, e.Path, e.Got, fix)
}

// blobPath is where the layout keeps a sha256 blob.
func (c *Cache) blobPath(hexDigest string) string {
	return filepath.Join(c.dir, ocispec.ImageBlobsDir, "sha256", hexDigest)
}

// Path is the file of the module whose sha256 is wasmDigest (hex, as pins
// are written), checked against that digest now: a *NotCachedError when
// it is not cached, a *CorruptError when the file changed since.
func (c *Cache) Path(wasmDigest string) (string, error) {
	if err := digest.NewDigestFromEncoded(digest.SHA256, wasmDigest).Validate(); err != nil {
		return "", fmt.Errorf("module digest %q: expected 64 lowercase hex digits", wasmDigest)
	}
	p := c.blobPath(wasmDigest)
	got, err := hashFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", &NotCachedError{WasmDigest: wasmDigest}
	}
	if err != nil {
		return "", fmt.Errorf("plugin cache: %w", err)
	}
	if got != wasmDigest {
		return "", &CorruptError{WasmDigest: wasmDigest, Path: p, Got: got}
	}
	c.touch(wasmDigest)
	return p, nil
}

// touch records that a module was used (for `cache ls` and pruning by
// age). A marker file's mtime, so that no lock is needed; a failure costs
// only that date.
func (c *Cache) touch(wasmDigest string) {
	dir := filepath.Join(c.dir, usedDir)
	p := filepath.Join(dir, wasmDigest)
	now := time.Now()
	if err := os.Chtimes(p, now, now); err == nil {
		return
	}
	if os.MkdirAll(dir, 0o755) == nil {
		if f, err := os.Create(p); err == nil {
			f.Close()
		}
	}
}

func hashFile(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// add stores a checked artifact from src (its config, layer, manifest and
// referrers) and tags it with ref when ref names a tag.
//
// The config and the module are fetched before the lock is taken (blobs are
// written by rename and need none), so a slow registry does not hold up
// other processes; under the lock they are only checked to still be there
// (a concurrent prune may have removed them) before the manifest is indexed.
func (c *Cache) add(ctx context.Context, src content.ReadOnlyStorage, ref Ref, a *artifact) (err error) {
	before := c.ingesting()
	defer func() {
		if err != nil {
			c.dropIngested(before, a)
		}
	}()
	cfg, err := fetchConfig(ctx, src, ref, a)
	if err != nil {
		return err
	}
	blobs, err := oci.NewStorage(c.dir)
	if err != nil {
		return fmt.Errorf("plugin cache: %w", err)
	}
	if err := blobs.Push(ctx, a.manifest.Config, bytes.NewReader(cfg)); err != nil && !errors.Is(err, errdef.ErrAlreadyExists) {
		return err
	}
	if err := copyBlob(ctx, src, blobs, ref, a.layer); err != nil {
		return err
	}
	return c.update(ctx, func(s *oci.Store) error {
		if err := c.addTo(ctx, s, src, ref, a, cfg); err != nil {
			return err
		}
		// Signatures and provenance travel as referrers of the manifest;
		// they are kept beside it so that an offline run can check them.
		if g, ok := src.(content.ReadOnlyGraphStorage); ok {
			if err := copyReferrers(ctx, g, s, a.desc); err != nil {
				return fmt.Errorf("fetch the referrers (signatures, provenance) of %s: %w", a.desc.Digest, err)
			}
		}
		return nil
	})
}

// fetchConfig reads an artifact's config whole (readArtifact capped it),
// checked against its digest; it must be a JSON object.
func fetchConfig(ctx context.Context, src content.Fetcher, ref Ref, a *artifact) ([]byte, error) {
	cfg, err := content.FetchAll(ctx, src, a.manifest.Config)
	if err != nil {
		if errors.Is(err, content.ErrMismatchedDigest) || errors.Is(err, content.ErrTrailingData) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, integrityErr(ref, "config %s does not match its digest or size; refusing it", a.manifest.Config.Digest)
		}
		return nil, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(cfg, &obj); err != nil {
		return nil, integrityErr(ref, "config %s: expected a JSON object (%s)", a.manifest.Config.Digest, a.manifest.Config.MediaType)
	}
	return cfg, nil
}

func (c *Cache) addTo(ctx context.Context, s *oci.Store, src content.Fetcher, ref Ref, a *artifact, cfg []byte) error {
	if err := s.Push(ctx, a.manifest.Config, bytes.NewReader(cfg)); err != nil && !errors.Is(err, errdef.ErrAlreadyExists) {
		return err
	}
	if err := copyBlob(ctx, src, s, ref, a.layer); err != nil {
		return err
	}
	// A blob already present may have been corrupted on disk; refuse to
	// index a module whose file does not match.
	if _, err := c.Path(a.wasmHex()); err != nil {
		var ce *CorruptError
		if errors.As(err, &ce) {
			os.Remove(ce.Path)
			if err := copyBlob(ctx, src, s, ref, a.layer); err != nil {
				return err
			}
		} else {
			return err
		}
	}
	if err := s.Push(ctx, a.desc, bytes.NewReader(a.raw)); err != nil && !errors.Is(err, errdef.ErrAlreadyExists) {
		return err
	}
	// Fetched by tag or by digest (as a run does with the lock's manifest
	// digest), the entry is named by the reference that fetched it: `cache
	// ls` then shows its repository, and the layout counts it as a root
	// rather than as garbage.
	if ref.Host != importHost {
		desc := a.desc
		if a.lockedAs != "" {
			desc.Annotations = map[string]string{annotationLockedAs: a.lockedAs}
		}
		if err := s.Tag(ctx, desc, ref.Name()); err != nil {
			return err
		}
	}
	c.touch(a.wasmHex())
	return nil
}

// copyReferrers copies the artifacts that refer to desc (one level), with
// the size limits of plugin artifacts.
func copyReferrers(ctx context.Context, src content.ReadOnlyGraphStorage, dst content.Storage, desc ocispec.Descriptor) error {
	opts := oras.ExtendedCopyGraphOptions{Depth: 1}
	opts.PreCopy = func(_ context.Context, d ocispec.Descriptor) error {
		if d.Size > MaxModuleBytes {
			return fmt.Errorf("referrer blob %s of %d bytes: expected at most %d", d.Digest, d.Size, MaxModuleBytes)
		}
		return nil
	}
	err := oras.ExtendedCopyGraph(ctx, src, dst, desc, opts)
	if errors.Is(err, errdef.ErrNotFound) || errors.Is(err, errdef.ErrUnsupported) {
		return nil
	}
	return err
}

// CacheEntry is one plugin artifact in the cache.
type CacheEntry struct {
	// Refs are the references it was pulled by (HOST/REPO:TAG, or
	// HOST/REPO@DIGEST), sorted.
	Refs []string
	// LockedAs are the references of the locks it was fetched by digest
	// for (HOST/REPO:TAG).
	LockedAs       []string
	ManifestDigest string
	WasmDigest     string
	Size           int64
	Name, Version  string
	// LastUsed is when a run or pull last used it (zero: unknown).
	LastUsed time.Time
	// Corrupt is set when the module's file no longer matches its digest,
	// or the manifest's (then WasmDigest is unknown and Problem says why).
	Corrupt bool
	Problem string
}

// List returns the plugin artifacts in the cache, sorted by reference
// then digest. Referrers (signatures) are not listed on their own.
func (c *Cache) List(ctx context.Context) ([]CacheEntry, error) {
	var out []CacheEntry
	err := c.view(ctx, func(s *oci.Store) error {
		var err error
		out, err = c.list(ctx, s)
		return err
	})
	return out, err
}

func (c *Cache) list(ctx context.Context, s *oci.Store) ([]CacheEntry, error) {
	index, err := readIndex(c.dir)
	if err != nil {
		return nil, err
	}
	byDigest := map[digest.Digest]*CacheEntry{}
	var order []digest.Digest
	for _, d := range index.Manifests {
		e, seen := byDigest[d.Digest]
		if !seen {
			a, err := readArtifact(ctx, s, Ref{Host: "cache", Repository: "local", Digest: d.Digest.String()}, d)
			if err != nil || a.manifest.Subject != nil {
				continue // a referrer, or not a plugin
			}
			e = &CacheEntry{ManifestDigest: d.Digest.String(), WasmDigest: a.wasmHex(), Size: a.layer.Size, Name: a.describe.Name, Version: a.describe.Version}
			if got, err := hashFile(c.blobPath(e.WasmDigest)); err != nil {
				e.Corrupt, e.Problem = true, "module sha256:"+e.WasmDigest+" is missing"
			} else if got != e.WasmDigest {
				e.Corrupt, e.Problem = true, "module sha256:"+e.WasmDigest+" hashes to sha256:"+got
			}
			if fi, err := os.Stat(filepath.Join(c.dir, usedDir, e.WasmDigest)); err == nil {
				e.LastUsed = fi.ModTime()
			}
			byDigest[d.Digest] = e
			order = append(order, d.Digest)
		}
		if name := d.Annotations[ocispec.AnnotationRefName]; name != "" && name != d.Digest.String() && !slices.Contains(e.Refs, name) {
			e.Refs = append(e.Refs, name)
		}
		if locked := d.Annotations[annotationLockedAs]; locked != "" && !slices.Contains(e.LockedAs, locked) {
			e.LockedAs = append(e.LockedAs, locked)
		}
	}
	corrupt, err := c.corruptEntries()
	if err != nil {
		return nil, err
	}
	inIndex := len(order)
	for _, ce := range corrupt {
		d := digest.Digest(ce.Digest)
		e, seen := byDigest[d]
		if seen && slices.Index(order, d) < inIndex {
			continue // fetched again since
		}
		if !seen {
			e = &CacheEntry{ManifestDigest: ce.Digest, Corrupt: true, Problem: "manifest " + ce.Digest + ": " + ce.Why}
			byDigest[d] = e
			order = append(order, d)
		}
		if ce.Ref != "" && ce.Ref != ce.Digest && !slices.Contains(e.Refs, ce.Ref) {
			e.Refs = append(e.Refs, ce.Ref)
		}
	}
	out := make([]CacheEntry, 0, len(order))
	for _, d := range order {
		e := byDigest[d]
		// A name by digest only says where the entry came from; a tag
		// says that and more.
		if slices.ContainsFunc(e.Refs, func(r string) bool { return !strings.Contains(r, "@") }) {
			e.Refs = slices.DeleteFunc(e.Refs, func(r string) bool { return strings.Contains(r, "@") })
		}
		slices.Sort(e.Refs)
		out = append(out, *e)
	}
	slices.SortFunc(out, func(a, b CacheEntry) int {
		if c := strings.Compare(strings.Join(a.Refs, ","), strings.Join(b.Refs, ",")); c != 0 {
			return c
		}
		return strings.Compare(a.ManifestDigest, b.ManifestDigest)
	})
	return out, nil
}

// readIndex reads the layout's index.json (size-capped).
func readIndex(dir string) (*ocispec.Index, error) {
	p := filepath.Join(dir, ocispec.ImageIndexFile)
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("plugin cache: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("plugin cache: %w", err)
	}
	var index ocispec.Index
	if err := json.Unmarshal(data, &index); err != nil {
		return nil, fmt.Errorf("plugin cache %s: not a valid OCI index: %v; remove the cache directory to start afresh", p, err)
	}
	return &index, nil
}

// Prune removes from the cache every plugin artifact keep does not keep
// (nil keeps none) and every corrupt one, with their referrers and the
// blobs nothing else uses. It returns what it removed, and what it kept
// because a running process holds its module (see hold).
func (c *Cache) Prune(ctx context.Context, keep func(CacheEntry) bool) (removed, inUseNow []CacheEntry, err error) {
	err = c.update(ctx, func(s *oci.Store) error {
		entries, err := c.list(ctx, s)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if !e.Corrupt && keep != nil && keep(e) {
				continue
			}
			c.release(e.WasmDigest) // this Cache's own use does not keep it
			if !e.Corrupt && inUse(filepath.Join(c.dir, usedDir, e.WasmDigest)) {
				inUseNow = append(inUseNow, e)
				continue
			}
			if e.WasmDigest == "" {
				continue // a corrupt manifest, already out of the index: forgotten below
			}
			if e.Corrupt {
				// oras would refuse to read it back; the blob goes first.
				os.Remove(c.blobPath(e.WasmDigest))
			}
			desc, err := s.Resolve(ctx, e.ManifestDigest)
			if err != nil {
				return fmt.Errorf("prune %s: %w", e.ManifestDigest, err)
			}
			if err := s.Delete(ctx, desc); err != nil && !errors.Is(err, errdef.ErrNotFound) {
				return fmt.Errorf("prune %s: %w", e.ManifestDigest, err)
			}
			os.Remove(filepath.Join(c.dir, usedDir, e.WasmDigest))
			removed = append(removed, e)
		}
		forgotten, err := c.forgetCorrupt()
		if err != nil {
			return err
		}
		intact := map[string]bool{}
		for _, e := range entries {
			intact[e.ManifestDigest] = e.WasmDigest != ""
		}
		for _, ce := range forgotten {
			if intact[ce.Digest] {
				continue // fetched again since
			}
			e := CacheEntry{ManifestDigest: ce.Digest, Corrupt: true, Problem: "manifest " + ce.Digest + ": " + ce.Why}
			if ce.Ref != "" {
				e.Refs = []string{ce.Ref}
			}
			removed = append(removed, e)
		}
		// Blobs of interrupted pulls or imports that nothing refers to,
		// and the partial files of fetches that died.
		c.dropStaleIngest()
		return c.collectGarbage()
	})
	return removed, inUseNow, err
}

// ingestDir is where oras writes a blob while it is fetched, before it
// renames it into blobs/.
const ingestDir = "ingest"

// staleIngest is how long a file in ingestDir may go unwritten before a
// prune takes it for the leftover of a fetch that died: a fetch in
// progress writes it as the bytes arrive.
const staleIngest = 10 * time.Minute

// ingesting lists the files in ingestDir now.
func (c *Cache) ingesting() map[string]bool {
	names := map[string]bool{}
	files, _ := os.ReadDir(filepath.Join(c.dir, ingestDir))
	for _, f := range files {
		names[f.Name()] = true
	}
	return names
}

// dropIngested removes what a failed fetch of a left in ingestDir: the
// files of its blobs that were not there before it started. oras removes
// a partial file when a copy fails only in some cases (not when the disk
// is full), and a full disk is when its leftovers hurt most.
func (c *Cache) dropIngested(before map[string]bool, a *artifact) {
	ours := []string{a.manifest.Config.Digest.Encoded() + "_", a.layer.Digest.Encoded() + "_", a.desc.Digest.Encoded() + "_"}
	for name := range c.ingesting() {
		if before[name] {
			continue
		}
		for _, prefix := range ours {
			if strings.HasPrefix(name, prefix) {
				os.Remove(filepath.Join(c.dir, ingestDir, name))
			}
		}
	}
}

// dropStaleIngest removes the files in ingestDir no fetch has written for
// staleIngest: those of fetches killed on the way.
func (c *Cache) dropStaleIngest() {
	dir := filepath.Join(c.dir, ingestDir)
	files, _ := os.ReadDir(dir)
	for _, f := range files {
		if fi, err := f.Info(); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > staleIngest {
			os.Remove(filepath.Join(dir, f.Name()))
		}
	}
}

// collectGarbage removes the blobs that no manifest of index.json (tagged
// or not: a plugin fetched by digest, a signature) uses. oras's own GC
// keeps only what tagged manifests reach, and would delete the blobs of an
// untagged entry while leaving it in the index.
func (c *Cache) collectGarbage() error {
	index, err := readIndex(c.dir)
	if err != nil {
		return err
	}
	used := map[string]bool{}
	for _, d := range index.Manifests {
		if d.Digest.Algorithm() != digest.SHA256 || d.Digest.Validate() != nil {
			continue
		}
		used[d.Digest.Encoded()] = true
		raw, err := os.ReadFile(c.blobPath(d.Digest.Encoded()))
		if err != nil || int64(len(raw)) > MaxManifestBytes {
			continue
		}
		var m ocispec.Manifest
		if json.Unmarshal(raw, &m) != nil {
			continue
		}
		for _, b := range append([]ocispec.Descriptor{m.Config}, m.Layers...) {
			if b.Digest.Algorithm() == digest.SHA256 && b.Digest.Validate() == nil {
				used[b.Digest.Encoded()] = true
			}
		}
	}
	dir := filepath.Join(c.dir, ocispec.ImageBlobsDir, "sha256")
	files, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("plugin cache: %w", err)
	}
	for _, f := range files {
		if f.IsDir() || used[f.Name()] || digest.NewDigestFromEncoded(digest.SHA256, f.Name()).Validate() != nil {
			continue
		}
		if err := os.Remove(filepath.Join(dir, f.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("plugin cache: %w", err)
		}
	}
	return nil
}
