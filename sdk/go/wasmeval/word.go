package wasmeval

import "math/bits"

// Scanning JSON eight bytes at a time. Inside a Wasm guest every jump of
// Go code goes through the function's dispatch table, so a loop that tests
// one byte per turn costs several times what the byte is worth; testing
// eight at once (SWAR) makes most runs of plain bytes one turn.

const (
	lsb8 = 0x0101010101010101
	msb8 = 0x8080808080808080
)

// stringSpecial8 marks (high bit of each byte) the bytes of the
// little-endian word w that end a run of a JSON string's plain text: the
// quote, the backslash, control characters and non-ASCII bytes. Bytes
// above the first marked one may be marked wrongly (borrows carry upwards),
// so only the lowest mark counts.
func stringSpecial8(w uint64) uint64 {
	q := w ^ (lsb8 * '"')
	b := w ^ (lsb8 * '\\')
	return ((q-lsb8)&^q | (b-lsb8)&^b | (w - lsb8*0x20) | w) & msb8
}

// firstMarked is the index of the byte of the lowest mark in m (not 0).
func firstMarked(m uint64) int { return bits.TrailingZeros64(m) >> 3 }

// canonicalSpecial8 is stringSpecial8 with <, > and &: the bytes a string
// cannot be copied over into canonical output as they are.
func canonicalSpecial8(w uint64) uint64 {
	q := w ^ (lsb8 * '"')
	b := w ^ (lsb8 * '\\')
	l := w ^ (lsb8 * '<')
	g := w ^ (lsb8 * '>')
	a := w ^ (lsb8 * '&')
	return ((q-lsb8)&^q | (b-lsb8)&^b | (l-lsb8)&^l | (g-lsb8)&^g | (a-lsb8)&^a | (w - lsb8*0x20) | w) & msb8
}

// nonDigit8 marks the bytes of w that are not decimal digits (only the
// lowest mark counts, as in stringSpecial8).
func nonDigit8(w uint64) uint64 {
	x := w - lsb8*'0'
	return ((x + lsb8*0x76) | x) & msb8
}

// hasPrefix is bytes.HasPrefix, comparing eight bytes at a time: inside a
// Wasm guest the runtime compares one byte per turn of its loop.
func hasPrefix(b, prefix []byte) bool {
	if len(b) < len(prefix) {
		return false
	}
	i := 0
	for ; i+8 <= len(prefix); i += 8 {
		if load64(b, i) != load64(prefix, i) {
			return false
		}
	}
	for ; i < len(prefix); i++ {
		if b[i] != prefix[i] {
			return false
		}
	}
	return true
}
