// Package pin computes the digest that pins a plugin: problems name a
// plugin with the sha256 its module must have, and the host refuses any
// other. It is kept apart from plugins/abi so that plugins, which import
// the ABI types, do not carry a hash implementation they never use.
package pin

import (
	"crypto/sha256"
	"encoding/hex"
)

// Digest is the lowercase hex sha256 of a module's bytes, as written under
// `sha256:` in a problem's config.
func Digest(module []byte) string {
	sum := sha256.Sum256(module)
	return hex.EncodeToString(sum[:])
}
