//go:build wasm

package jsonvalue

import "unsafe"

// load64 is the little-endian word at s[i:i+8], read in one load (Wasm
// allows unaligned loads); the caller checks i+8 <= len(s).
func load64(s string, i int) uint64 {
	_ = s[i+7]
	return *(*uint64)(unsafe.Add(unsafe.Pointer(unsafe.StringData(s)), i))
}
