package abi

import (
	"strconv"
	"unicode/utf8"
)

// Raw strings (docs/plugin-abi.md, "Raw strings"): in the input of a
// plugin whose describe says raw_strings, a string value may be written
// as a quote mark, its length in bytes in decimal, a colon and the bytes
// themselves, unescaped — 'LEN:BYTES. The SDKs' input decoders take it
// wherever a string value may be; it is not JSON, so no JSON text reads
// differently.

// RawMin is the length from which the host writes a string raw: below
// it, escaping costs less than the guest's turn to read a length.
const RawMin = 64

// rawWorthy says whether s is written raw: long enough, and UTF-8 (a
// string that is not is written escaped, its bad bytes replaced as
// encoding/json replaces them, so that both say the same).
func rawWorthy(s string) bool { return len(s) >= RawMin && utf8.ValidString(s) }

// AppendRaw appends s as a raw string. s must be UTF-8.
func AppendRaw(b []byte, s string) []byte {
	b = append(b, '\'')
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, ':')
	return append(b, s...)
}
