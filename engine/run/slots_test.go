package run

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
)

// A pool's slots bound the holders at once across goroutines, and a
// waiter gives up when its context ends, holding nothing.
func TestSlotsBound(t *testing.T) {
	s := NewSlots(2)
	var held, peak atomic.Int32
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.acquire(context.Background()); err != nil {
				t.Error(err)
				return
			}
			n := held.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			<-gate
			held.Add(-1)
			s.release()
		}()
	}
	close(gate)
	wg.Wait()
	if peak.Load() > 2 {
		t.Errorf("%d holders at once in a pool of 2", peak.Load())
	}
	// Full pool: a canceled waiter returns its context's error.
	s.acquire(context.Background())
	s.acquire(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.acquire(ctx); err == nil {
		t.Error("acquire on a full pool with a canceled context succeeded")
	}
	if len(s.ch) != 2 {
		t.Errorf("%d slots held, want 2", len(s.ch))
	}
}
