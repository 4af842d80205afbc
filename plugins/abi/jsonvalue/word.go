package jsonvalue

import "math/bits"

// Testing eight bytes at a time (SWAR). Inside a Wasm guest every turn of
// a Go loop is a jump through the function's dispatch table, so a loop
// that tests one byte per turn costs several times what the byte is worth;
// with eight at once most strings and numbers take one turn.

const (
	lsb8 = 0x0101010101010101
	msb8 = 0x8080808080808080
)

// stringSpecial8 marks (the high bit of each byte) the bytes of the
// little-endian word w that end a run of a JSON string's plain text: the
// quote, the backslash, control characters and non-ASCII bytes. Bytes
// above the first marked one may be marked wrongly (borrows carry
// upwards), so only the lowest mark counts.
func stringSpecial8(w uint64) uint64 {
	q := w ^ (lsb8 * '"')
	b := w ^ (lsb8 * '\\')
	return ((q-lsb8)&^q | (b-lsb8)&^b | (w - lsb8*0x20) | w) & msb8
}

// nonDigit8 marks the bytes of w that are not decimal digits (only the
// lowest mark counts, as in stringSpecial8).
func nonDigit8(w uint64) uint64 {
	x := w - lsb8*'0'
	return ((x + lsb8*0x76) | x) & msb8
}

// firstMarked is the index of the byte of the lowest mark in m (not 0).
func firstMarked(m uint64) int { return bits.TrailingZeros64(m) >> 3 }
