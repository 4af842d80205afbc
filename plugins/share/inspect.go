package share

import (
	"context"
	"fmt"

	"oras.land/oras-go/v2/content/oci"
)

// Lookup finds ref in the cache, offline, and describes it as Pull does:
// a digest as is, a tag by the reference it was pulled with. The module is
// checked against its digest.
func (c *Cache) Lookup(ctx context.Context, ref Ref) (Resolved, error) {
	key := ref.Digest
	if key == "" {
		key = ref.Name()
	}
	var a *artifact
	err := c.view(ctx, func(s *oci.Store) error {
		desc, err := s.Resolve(ctx, key)
		if err != nil {
			return &Error{Ref: ref.String(), Kind: ErrNotFound, Msg: fmt.Sprintf("not in the plugin cache %s; pull it (or import it) first", c.dir), Err: err}
		}
		a, err = readArtifact(ctx, s, ref, desc)
		return err
	})
	if err != nil {
		return Resolved{}, err
	}
	return c.resolved(ref, a)
}
