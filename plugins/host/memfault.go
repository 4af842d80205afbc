package host

import "fmt"

// A guest whose allocator cannot grow its linear memory past the cap
// traps: Go prints "out of memory" first, but Rust's allocation error
// handler and AssemblyScript's runtime trap on `unreachable` with nothing
// said, and wazero does not report the memory.grow it refused. The host
// can still see where the memory stands: a trap with the memory close to
// the cap is, all but always, an allocation that would have passed it.
// "Close" is the last quarter, since a guest grows by its allocation's
// size (an 8 MiB buffer asks for 8 MiB at once), not page by page.

// nearMemoryCap says whether the instance's linear memory is within the
// last quarter of the host's cap, and its size.
func (p *Plugin) nearMemoryCap(inst *instance) (uint64, bool) {
	size := inst.memorySize()
	limit := p.host.opts.MemoryBytes
	return size, limit > 0 && size >= limit-limit/4
}

// memorySize is the size of the guest's linear memory, 0 when unknown.
func (inst *instance) memorySize() uint64 {
	switch {
	case inst.nat != nil && inst.nat.mod != nil && inst.nat.mod.Memory() != nil:
		return uint64(inst.nat.mod.Memory().Size())
	case inst.p != nil && inst.p.Memory() != nil:
		return uint64(inst.p.Memory().Size())
	}
	return 0
}

// memoryTrapDetail words a trap at the memory cap.
func (p *Plugin) memoryTrapDetail(size uint64, trap string) string {
	return fmt.Sprintf("linear memory reached the %s cap (it was at %s when the module trapped: %s)",
		sizeLabel(p.host.opts.MemoryBytes), sizeLabel(size), trap)
}
