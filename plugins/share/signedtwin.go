package share

import (
	"context"
	"fmt"
	"strings"
)

// maxTwinTags bounds how many tags of a repository are looked at for a
// signed manifest of the same module.
const maxTwinTags = 64

// signedTwin looks, in ref's repository, for another manifest holding the
// same module as manifestDigest that carries a signature by one of the
// keys rule trusts: re-pushing identical bytes with a different manifest
// (another creation time, other annotations) leaves the signature on the
// old manifest, and "unsigned" alone does not say so. It returns a hint
// to append to the refusal, or "" (nothing found, or the registry could
// not be asked: the hint is a courtesy).
func (p *Policy) signedTwin(ctx context.Context, r *Remote, ref Ref, manifestDigest string, rule *Rule) string {
	repo, err := r.repository(ctx, ref)
	if err != nil {
		return ""
	}
	at := ref.AtDigest(manifestDigest)
	desc, err := repo.Resolve(ctx, manifestDigest)
	if err != nil {
		return ""
	}
	mine, err := readArtifact(ctx, repo, at, desc)
	if err != nil {
		return ""
	}
	var tags []string
	_ = repo.Tags(ctx, "", func(page []string) error {
		for _, t := range page {
			if len(tags) < maxTwinTags && !strings.HasPrefix(t, "sha256-") { // referrers fallback tags
				tags = append(tags, t)
			}
		}
		if len(tags) >= maxTwinTags {
			return errStopTags
		}
		return nil
	})
	seen := map[string]bool{manifestDigest: true}
	for _, tag := range tags {
		d, err := repo.Resolve(ctx, tag)
		if err != nil || seen[d.Digest.String()] {
			continue
		}
		seen[d.Digest.String()] = true
		other, err := readArtifact(ctx, repo, ref, d)
		if err != nil || other.wasmHex() != mine.wasmHex() {
			continue
		}
		sigs, err := signaturesIn(ctx, repo, ref.AtDigest(d.Digest.String()), d)
		if err != nil {
			continue
		}
		for _, s := range sigs {
			if s.Err != nil {
				continue
			}
			for _, name := range rule.SignedBy {
				if k := p.Keys[name]; k.ID == s.KeyID && k.Key.Equal(s.PublicKey) {
					return fmt.Sprintf(" (manifest %s, tag %s, holds the same module sha256:%s and is signed by %s: the plugin was pushed again with a different manifest; lock that tag, or sign this manifest)",
						d.Digest, tag, mine.wasmHex(), name)
				}
			}
		}
	}
	return ""
}

var errStopTags = fmt.Errorf("enough tags")

// remoteOf is the registry a signature source can ask, or nil.
func remoteOf(src SignatureSource) *Remote {
	switch s := src.(type) {
	case *Remote:
		return s
	case CachedSignatures:
		return s.Remote
	}
	return nil
}
