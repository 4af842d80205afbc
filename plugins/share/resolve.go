package share

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
)

// Resolver turns a binding's reference and sha256 into the path of a
// verified module. A run's resolver reads the lock and the cache only
// (fetching by the lock's manifest digest when online); a locking
// resolver resolves tags live and records what it found.
type Resolver struct {
	ctx      context.Context
	lock     *Lock
	lockPath string
	problem  string
	cache    *Cache
	remote   *Remote
	live     bool
	missing  bool

	mu       sync.Mutex
	recorded Lock
}

// ResolverOptions configure a Resolver.
type ResolverOptions struct {
	// Context bounds registry access (nil: context.Background()).
	Context context.Context
	// Lock is the problem's lock (ignored when Live); LockPath names it
	// in errors.
	Lock     *Lock
	LockPath string
	// Problem is how errors name the problem in the command they suggest.
	Problem string
	Cache   *Cache
	// Remote fetches what the cache lacks; nil means offline.
	Remote *Remote
	// Live resolves every reference in its registry now, for
	// `wasmeval plugin lock`; Recorded then holds the new lock.
	Live bool
	// LockMissing says the lock file does not exist (Lock is then
	// empty), so that errors say so rather than that a reference is not
	// in it.
	LockMissing bool
}

// NewResolver returns a resolver.
func NewResolver(o ResolverOptions) (*Resolver, error) {
	if o.Cache == nil {
		return nil, errors.New("share.NewResolver: no cache")
	}
	if o.Live && o.Remote == nil {
		return nil, errors.New("locking resolves references in their registries and cannot run offline")
	}
	if o.Context == nil {
		o.Context = context.Background()
	}
	if o.LockPath == "" {
		o.LockPath = LockFileName
	}
	if o.Problem == "" {
		o.Problem = "PROBLEM"
	}
	return &Resolver{ctx: o.Context, lock: o.Lock, lockPath: o.LockPath, problem: o.Problem, cache: o.Cache,
		remote: o.Remote, live: o.Live, missing: o.LockMissing, recorded: Lock{Version: LockVersion}}, nil
}

// Resolve returns the cached, verified module of ref, whose sha256 (hex)
// the binding pins (empty: not pinned, allowed only when locking).
func (r *Resolver) Resolve(ref, sha256 string) (string, error) {
	parsed, err := ParseRef(ref)
	if err != nil {
		return "", err
	}
	sha256 = strings.ToLower(strings.TrimPrefix(sha256, "sha256:"))
	if r.live {
		return r.resolveLive(parsed, sha256)
	}
	e, ok := r.lock.Find(parsed.String())
	if !ok && r.missing {
		return "", fmt.Errorf("%s: the problem has no lock file (%s does not exist); run `wasmeval plugin lock %s` to write it", parsed, r.lockPath, r.problem)
	}
	if !ok {
		return "", fmt.Errorf("%s: not in %s; run `wasmeval plugin lock %s`", parsed, r.lockPath, r.problem)
	}
	if sha256 != "" && e.SHA256 != sha256 {
		return "", fmt.Errorf("%s: %s records module sha256:%s but the problem pins sha256:%s: the lock no longer matches the problem; run `wasmeval plugin lock %s`",
			parsed, r.lockPath, e.SHA256, sha256, r.problem)
	}
	pinned := parsed.AtDigest(e.Manifest)
	// The module is used from the cache only through the manifest the
	// lock records: the manifest is what signatures sign and what the
	// lock was written from, so a lock whose module and manifest do not
	// belong together (edited by hand) is refused, cached or not.
	got, err := r.cache.Locked(r.ctx, pinned)
	if err == nil {
		if got.WasmDigest != e.SHA256 {
			return "", integrityErr(pinned, "holds module sha256:%s but %s records sha256:%s; refusing it", got.WasmDigest, r.lockPath, e.SHA256)
		}
		if err := r.checkRecorded(parsed, e, got); err != nil {
			return "", err
		}
		return got.Path, nil
	}
	var nc *NotCachedError
	var ce *CorruptError
	if !errors.As(err, &nc) && !errors.As(err, &ce) {
		return "", fmt.Errorf("%s: %w", parsed, err)
	}
	if r.remote == nil {
		if ce != nil {
			return "", fmt.Errorf("%s: %v; offline, it cannot be fetched again: run `wasmeval plugin pull %s` when online, or `wasmeval plugin import`", parsed, ce, pinned)
		}
		return "", fmt.Errorf("%s: manifest %s (module sha256:%s) is not in the plugin cache %s and the run is offline; run `wasmeval plugin pull %s` or `wasmeval plugin import` first",
			parsed, e.Manifest, e.SHA256, r.cache.Dir(), pinned)
	}
	if ce != nil {
		// A corrupt entry is a miss: drop it and fetch it again by digest.
		os.Remove(ce.Path)
	}
	got, err = pull(r.ctx, r.remote, r.cache, pinned, parsed.Name())
	if err != nil {
		return "", err
	}
	if got.WasmDigest != e.SHA256 {
		return "", integrityErr(pinned, "holds module sha256:%s but %s records sha256:%s; refusing it", got.WasmDigest, r.lockPath, e.SHA256)
	}
	if err := r.checkRecorded(parsed, e, got); err != nil {
		return "", err
	}
	return got.Path, nil
}

// checkRecorded compares what the lock records beside the digests (size,
// kinds, ABI version) with the artifact fetched: the digests alone decide
// which module runs, but a lock that says something else about it was
// edited by hand or damaged, and is refused rather than trusted silently.
// (signer is informative: it says who signed when the lock was written;
// the trust policy is checked on every run.)
func (r *Resolver) checkRecorded(ref Ref, e *LockEntry, got Resolved) error {
	if e.Size != got.Size {
		return r.edited(ref, "size", fmt.Sprint(e.Size), fmt.Sprint(got.Size))
	}
	if e.ABIVersion > 0 && got.ABIVersion > 0 && e.ABIVersion != got.ABIVersion {
		return r.edited(ref, "abi_version", fmt.Sprint(e.ABIVersion), fmt.Sprint(got.ABIVersion))
	}
	if len(e.Kinds) > 0 && len(got.Kinds) > 0 && !sameSet(e.Kinds, got.Kinds) {
		return r.edited(ref, "kinds", strings.Join(e.Kinds, ","), strings.Join(got.Kinds, ","))
	}
	return nil
}

func (r *Resolver) edited(ref Ref, key, recorded, actual string) error {
	return fmt.Errorf("%s: %s records %s %s but the module's is %s: the lock was edited or is damaged; run `wasmeval plugin lock %s`",
		ref, r.lockPath, key, recorded, actual, r.problem)
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

func (r *Resolver) resolveLive(ref Ref, sha256 string) (string, error) {
	got, err := Pull(r.ctx, r.remote, r.cache, ref)
	if err != nil {
		return "", err
	}
	if sha256 != "" && got.WasmDigest != sha256 {
		return "", fmt.Errorf("%s: the registry has module sha256:%s (manifest %s) but the problem pins sha256:%s; update the pin or the tag",
			ref, got.WasmDigest, got.ManifestDigest, sha256)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.recorded.Find(ref.String()); ok && old.Manifest != got.ManifestDigest {
		return "", fmt.Errorf("%s: resolved to manifest %s and then %s while locking (the tag moved); lock again", ref, old.Manifest, got.ManifestDigest)
	}
	r.recorded.Put(LockEntry{Ref: ref.String(), Manifest: got.ManifestDigest, SHA256: got.WasmDigest, Size: got.Size,
		ABIVersion: got.ABIVersion, Kinds: got.Kinds})
	return got.Path, nil
}

// Recorded is the lock a locking resolver built.
func (r *Resolver) Recorded() *Lock {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := &Lock{Version: LockVersion, Plugins: append([]LockEntry(nil), r.recorded.Plugins...)}
	return l
}

// Missing lists the lock's entries whose artifact (the manifest the lock
// records and its module) is not in the cache, or no longer matches its
// digests: what an offline run would lack.
func (c *Cache) Missing(ctx context.Context, l *Lock) []LockEntry {
	var out []LockEntry
	for _, e := range l.Plugins {
		ref, err := ParseRef(e.Ref)
		if err != nil {
			out = append(out, e)
			continue
		}
		if got, err := c.Locked(ctx, ref.AtDigest(e.Manifest)); err != nil || got.WasmDigest != e.SHA256 {
			out = append(out, e)
		}
	}
	return out
}
