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

// RawAt reads the raw string whose quote mark is data[at]: its bytes are
// data[start:end]. ok is false when it is not one — a length of one to
// nine digits without a leading zero, a colon, and that many bytes that
// end at a character's boundary. (That the bytes are UTF-8 is for the
// caller to check, or to know: in UTF-8 data they are.)
func RawAt(data []byte, at int) (start, end int, ok bool) {
	i, n := at+1, 0
	for ; i < len(data) && data[i] >= '0' && data[i] <= '9'; i++ {
		if i > at+1 && n == 0 || i-at > 9 {
			return 0, 0, false // a leading zero, or more digits than any length
		}
		n = n*10 + int(data[i]-'0')
	}
	if i == at+1 || i >= len(data) || data[i] != ':' {
		return 0, 0, false
	}
	start = i + 1
	if n > len(data)-start {
		return 0, 0, false
	}
	end = start + n
	if end < len(data) && data[end]&0xc0 == 0x80 {
		return 0, 0, false
	}
	return start, end, true
}
