package synth

import (
	"runtime"
	"sync"
	"time"
)

// HeapPeak samples the live heap while it runs, for benchmarks that report
// peak memory. Sampling (every 5 ms) can miss a short spike, so the figure
// is a lower bound of the true peak, good for comparisons in one run.
type HeapPeak struct {
	stop chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	peak uint64
}

// StartHeapPeak starts sampling after a GC, so earlier garbage is not counted.
func StartHeapPeak() *HeapPeak {
	runtime.GC()
	h := &HeapPeak{stop: make(chan struct{})}
	h.sample()
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-h.stop:
				return
			case <-t.C:
				h.sample()
			}
		}
	}()
	return h
}

func (h *HeapPeak) sample() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	h.mu.Lock()
	h.peak = max(h.peak, ms.HeapInuse)
	h.mu.Unlock()
}

// Stop ends sampling and returns the peak in MiB.
func (h *HeapPeak) Stop() float64 {
	h.sample()
	close(h.stop)
	h.wg.Wait()
	return float64(h.peak) / (1 << 20)
}
