package share

import (
	"context"

	"oras.land/oras-go/v2/content/oci"
)

// CachedSignatures is the SignatureSource of a run: the signatures kept
// in the cache, and — when online and the cache holds no valid one (a
// signature added after the pull, or lost from the cache) — the
// registry's, which are then stored beside the plugin for the next
// offline run. Remote nil is offline: the cache alone.
type CachedSignatures struct {
	Cache  *Cache
	Remote *Remote
}

// Signatures implements SignatureSource.
func (s CachedSignatures) Signatures(ctx context.Context, ref Ref, manifestDigest string) ([]Signature, error) {
	sigs, err := s.Cache.Signatures(ctx, ref, manifestDigest)
	if s.Remote == nil || err == nil && anyValid(sigs) {
		return sigs, err
	}
	repo, rerr := s.Remote.repository(ctx, ref)
	if rerr != nil {
		return nil, rerr
	}
	at := ref.AtDigest(manifestDigest)
	desc, rerr := repo.Resolve(ctx, manifestDigest)
	if rerr != nil {
		return nil, remoteErr(at, "resolve", rerr)
	}
	remote, rerr := signaturesIn(ctx, repo, at, desc)
	if rerr != nil {
		return nil, remoteErr(at, "fetch the signatures", rerr)
	}
	if anyValid(remote) && err == nil {
		// Kept for offline runs; a failure to store costs only that.
		_ = s.Cache.update(ctx, func(st *oci.Store) error { return copyReferrers(ctx, repo, st, desc) })
	}
	return remote, nil
}

func anyValid(sigs []Signature) bool {
	for _, s := range sigs {
		if s.Err == nil {
			return true
		}
	}
	return false
}

// noCachedSignature says Policy.Check got its empty answer from the cache
// alone, offline: the cache lacks a signature, which does not mean the
// plugin is unsigned. (A bare *Cache does not say whether the caller is
// offline; CachedSignatures does.)
func noCachedSignature(src SignatureSource) bool {
	s, ok := src.(CachedSignatures)
	return ok && s.Remote == nil
}
