package host

import (
	"github.com/tetratelabs/wazero/experimental"
	"golang.org/x/sys/unix"
)

// mappedMemory backs a linear memory with one anonymous mapping reserved at
// the memory's maximum size up front. Pages cost nothing until the guest
// touches them, and growing is just a longer slice of the same mapping.
// wazero's default backing copies the whole memory on every grow, which a
// Go guest's runtime does dozens of times while it starts and whenever its
// heap expands — a large share of a plugin's first call and of big
// payloads.
type mappedMemory struct {
	buf []byte
}

func newLinearMemory(capacity, max uint64) experimental.LinearMemory {
	buf, err := unix.Mmap(-1, 0, int(max), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
	if err != nil {
		return &sliceMemory{buf: make([]byte, 0, capacity), max: max}
	}
	// Transparent huge pages where the kernel offers them on request: a Go
	// guest touches several MiB while its runtime starts, and faulting
	// that in 4 KiB pages was most of instantiating it (15 → 6 ms for the
	// example verifier on a virtual machine, where page faults are dear).
	// Without THP the call fails and nothing changes.
	_ = unix.Madvise(buf, unix.MADV_HUGEPAGE)
	return &mappedMemory{buf: buf}
}

func (m *mappedMemory) Reallocate(size uint64) []byte {
	if m.buf == nil || size > uint64(len(m.buf)) {
		return nil // past the reservation, the module's maximum: the grow fails
	}
	return m.buf[:size:size]
}

func (m *mappedMemory) Free() {
	if m.buf != nil {
		unix.Munmap(m.buf)
		m.buf = nil
	}
}
