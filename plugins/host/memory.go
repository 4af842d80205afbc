package host

import (
	"context"
	"sync"

	"github.com/tetratelabs/wazero/experimental"
)

// instanceMemory allocates the linear memories of one plugin instance (the
// guest's and Extism's own) and releases them when the instance closes;
// wazero does not free memory a custom allocator gave it.
type instanceMemory struct {
	mu   sync.Mutex
	mems []experimental.LinearMemory
}

func (m *instanceMemory) context(ctx context.Context) context.Context {
	return experimental.WithMemoryAllocator(ctx, experimental.MemoryAllocatorFunc(m.allocate))
}

func (m *instanceMemory) allocate(capacity, max uint64) experimental.LinearMemory {
	lm := newLinearMemory(capacity, max)
	m.mu.Lock()
	m.mems = append(m.mems, lm)
	m.mu.Unlock()
	return lm
}

// free releases every memory; the instance must not run again.
func (m *instanceMemory) free() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, lm := range m.mems {
		lm.Free()
	}
	m.mems = nil
}

// sliceMemory is the portable backing: a Go slice that is copied when it
// grows past its capacity (what wazero does by default).
type sliceMemory struct {
	buf []byte
	max uint64
}

func (s *sliceMemory) Reallocate(size uint64) []byte {
	if size > s.max {
		return nil
	}
	if size <= uint64(cap(s.buf)) {
		s.buf = s.buf[:size]
		return s.buf
	}
	grown := make([]byte, size, max(size, 2*uint64(cap(s.buf))))
	copy(grown, s.buf)
	s.buf = grown
	return s.buf
}

func (s *sliceMemory) Free() { s.buf = nil }
