package abi

import (
	"crypto/sha256"
	"encoding/hex"
)

// Digest is how a plugin is pinned: the lowercase hex sha256 of its module
// bytes, as written under `sha256:` in a problem's config.
func Digest(module []byte) string {
	sum := sha256.Sum256(module)
	return hex.EncodeToString(sum[:])
}
