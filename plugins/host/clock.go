package host

import (
	"math/rand/v2"
)

// callClock is the time and randomness a plugin sees. It restarts at every
// call, so a call's answer cannot depend on the wall clock, on when it ran
// or on which pooled instance (with which history) served it: the wall
// clock always reads the same instant, the monotonic clock starts at zero
// and advances 1 ms per reading (so elapsed-time loops still end), and
// random bytes come from the same seeded stream.
type callClock struct {
	now int64 // virtual nanoseconds since the call started
	rng *rand.ChaCha8
}

// epoch is 2022-01-01T00:00:00Z, the instant every call starts at.
const epoch = 1640995200

func (c *callClock) reset() {
	c.now = 0
	c.rng = rand.NewChaCha8([32]byte{'w', 'a', 's', 'm', 'e', 'v', 'a', 'l'})
}

func (c *callClock) tick() int64 {
	c.now += 1_000_000
	return c.now
}

// nanosleep advances virtual time instead of sleeping: a guest runtime
// waiting for a timer (Go's scheduler does, when idle) gets there at once
// instead of spinning on the clock.
func (c *callClock) nanosleep(ns int64) {
	if ns > 0 {
		c.now += ns
	}
}

func (c *callClock) walltime() (int64, int32) { return epoch, 0 }

func (c *callClock) nanotime() int64 { return c.tick() }

// Read implements io.Reader for the module's random source.
func (c *callClock) Read(p []byte) (int, error) { return c.rng.Read(p) }
