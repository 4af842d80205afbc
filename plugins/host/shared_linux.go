package host

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// newShared makes the memory a host shares with one worker: an in-memory
// file of 2*half bytes, mapped here, that the worker maps too (see
// shared). Pages cost nothing until written, and then only the largest
// payload's.
func newShared(half int) (*shared, *os.File, error) {
	fd, err := unix.MemfdCreate("wasmeval-worker", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, nil, os.NewSyscallError("memfd_create", err)
	}
	f := os.NewFile(uintptr(fd), "wasmeval-worker")
	if err := f.Truncate(int64(2 * half)); err != nil {
		f.Close()
		return nil, nil, err
	}
	sh, err := mapShared(fd, half)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return sh, f, nil
}

// mapShared maps the shared memory at fd, which must hold 2*half bytes.
func mapShared(fd, half int) (*shared, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, os.NewSyscallError("fstat", err)
	}
	if half <= 0 || st.Size != int64(2*half) {
		return nil, fmt.Errorf("the shared memory file holds %d bytes, not %d", st.Size, 2*half)
	}
	mem, err := unix.Mmap(fd, 0, 2*half, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, os.NewSyscallError("mmap", err)
	}
	return &shared{mem: mem}, nil
}

// unmap releases the mapping; nothing may touch the memory afterwards.
func (s *shared) unmap() {
	if s != nil && s.mem != nil {
		unix.Munmap(s.mem)
		s.mem = nil
	}
}
