//go:build !unix

package confine

// OpenFlags: elsewhere (wasip1, where the engine's packages are compiled
// only for their tests' sake) there are no FIFOs or terminals to guard.
const OpenFlags = 0
