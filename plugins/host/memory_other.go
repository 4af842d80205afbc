//go:build !linux

package host

import "github.com/tetratelabs/wazero/experimental"

func newLinearMemory(capacity, max uint64) experimental.LinearMemory {
	return &sliceMemory{buf: make([]byte, 0, capacity), max: max}
}
