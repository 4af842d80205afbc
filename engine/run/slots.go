package run

import "context"

// Slots bounds how many groups run at once across every run that shares
// it. A batch runs many runs in one process and gives them all one Slots of
// its --jobs: a run's groups and other runs' groups draw from the same
// pool, so a run with many groups takes the slots the others leave idle,
// and never more than n groups run in the process together.
type Slots struct {
	ch chan struct{}
}

// NewSlots makes a pool of n slots (at least 1).
func NewSlots(n int) *Slots {
	return &Slots{ch: make(chan struct{}, max(n, 1))}
}

// Size is how many slots the pool has.
func (s *Slots) Size() int { return cap(s.ch) }

// acquire waits for a free slot; it fails only when ctx ends first.
func (s *Slots) acquire(ctx context.Context) error {
	// A free slot is taken even when ctx has just ended, which is harmless:
	// the group sees the context and stops.
	select {
	case s.ch <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Slots) release() { <-s.ch }
