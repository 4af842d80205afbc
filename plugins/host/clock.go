package host

import (
	"math/rand/v2"
)

// callClock is the time and randomness a plugin sees. It restarts at every
// call, so a call's answer cannot depend on the wall clock, on when it ran
// or on which pooled instance (with which history) served it: the wall
// clock always reads the same instant, the monotonic clock reads the same
// value at every reading of a call and moves only when the guest sleeps
// (by exactly the time asked for, at once), and random bytes come from the
// same seeded stream.
//
// The monotonic clock stands still rather than ticking at each reading:
// a Go guest's garbage collector measures its own share of CPU time with
// it, and with a clock that moved only when read, the collector's many
// readings made it look as if it used all of it. Go's CPU limiter then
// stopped the mark assists that are a Wasm guest's only way to finish a
// cycle, and after a few hundred cycles every later one stalled and the
// heap grew until the memory cap (TestLongLivedGoInstanceKeepsCollecting).
// A guest that waits for time to pass without sleeping now waits until
// its call times out.
type callClock struct {
	now int64 // virtual nanoseconds since the call started
	rng *rand.ChaCha8
}

// epoch is 2022-01-01T00:00:00Z, the instant every call starts at.
const epoch = 1640995200

func (c *callClock) reset() {
	c.now = monoStart
	// Seeded again in place: the same stream as a new generator's, and
	// no allocation on every call.
	if c.rng == nil {
		c.rng = rand.NewChaCha8(callSeed)
	} else {
		c.rng.Seed(callSeed)
	}
}

// callSeed seeds every call's random bytes.
var callSeed = [32]byte{'w', 'a', 's', 'm', 'e', 'v', 'a', 'l'}

// monoStart is the monotonic reading every call starts at. Not zero: Go's
// runtime refuses to start on a clock that reads zero.
const monoStart = 1_000_000

// nanosleep advances virtual time instead of sleeping: a guest runtime
// waiting for a timer (Go's scheduler does, when idle) gets there at once
// instead of spinning on the clock.
func (c *callClock) nanosleep(ns int64) {
	if ns > 0 {
		c.now += ns
	}
}

func (c *callClock) walltime() (int64, int32) { return epoch, 0 }

func (c *callClock) nanotime() int64 { return c.now }

// Read implements io.Reader for the module's random source.
func (c *callClock) Read(p []byte) (int, error) { return c.rng.Read(p) }
