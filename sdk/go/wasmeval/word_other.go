//go:build !wasm

package wasmeval

import "encoding/binary"

// load64 is the little-endian word at b[i:i+8].
func load64(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[i:]) }

// store64 writes w at b[i:i+8].
func store64(b []byte, i int, w uint64) { binary.LittleEndian.PutUint64(b[i:], w) }
