//go:build wasm

package wasmeval

import "unsafe"

// load64 is the little-endian word at b[i:i+8], read in one load (Wasm
// allows unaligned loads); the caller checks i+8 <= len(b).
func load64(b []byte, i int) uint64 { return *(*uint64)(unsafe.Pointer(unsafe.SliceData(b[i:]))) }

// store64 writes w at b[i:i+8]; the caller checks i+8 <= len(b).
func store64(b []byte, i int, w uint64) { *(*uint64)(unsafe.Pointer(unsafe.SliceData(b[i:]))) = w }
