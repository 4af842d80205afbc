package host

import (
	"context"
	"reflect"
	goruntime "runtime"
	"sync"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// Coalescing: callers that verify one case at a time — groups running side
// by side, each verifying its case as it finishes — still give a plugin
// with batches more than one call at once whenever they outpace it. At
// most one verify call per core is in flight; a call that arrives while
// they all are waits, and the next call to finish takes every waiting call
// with the same assets as one batch. A call that finds a core free goes at
// once, so nothing waits that would not have waited for a core anyway; the
// waiting calls are then served, batch after batch, by a goroutine that
// keeps the core's slot, so no caller waits for others' answers.

// coalescer queues the verify calls of one plugin.
type coalescer struct {
	mu       sync.Mutex
	inFlight int
	waiting  []*queuedVerify
}

type queuedVerify struct {
	ctx  context.Context
	in   abi.VerifyInput
	opts CallOptions
	out  abi.VerifyOutput
	err  error
	done chan struct{}
}

// VerifyCoalesced is Verify for callers that verify one case at a time
// concurrently: calls that arrive while the plugin is busy on every core
// are answered together, as a batch, when the plugin offers batches
// (VerifyBatch); otherwise it is Verify. The answer is the one Verify would
// give.
func (p *Plugin) VerifyCoalesced(ctx context.Context, in abi.VerifyInput, opts CallOptions) (abi.VerifyOutput, error) {
	if !p.Batches(abi.Exports[abi.KindVerifier]) {
		return p.Verify(ctx, in, opts)
	}
	c := &p.coalesce
	q := &queuedVerify{ctx: ctx, in: in, opts: opts, done: make(chan struct{})}
	c.mu.Lock()
	if c.inFlight >= goruntime.GOMAXPROCS(0) {
		c.waiting = append(c.waiting, q)
		c.mu.Unlock()
		select {
		case <-q.done:
			return q.out, q.err
		case <-ctx.Done():
			// The call that takes it still makes it; its answer is dropped.
			return abi.VerifyOutput{}, ctx.Err()
		}
	}
	c.inFlight++
	c.mu.Unlock()
	p.verifyQueued([]*queuedVerify{q})
	c.mu.Lock()
	if len(c.waiting) == 0 {
		c.inFlight--
		c.mu.Unlock()
		return q.out, q.err
	}
	c.mu.Unlock()
	// Calls wait: this core's slot goes on serving them, in batches, while
	// this caller has its answer at once.
	go p.drain()
	return q.out, q.err
}

// drain answers waiting calls, a batch at a time, until none wait; it
// holds one core's slot meanwhile.
func (p *Plugin) drain() {
	c := &p.coalesce
	for {
		c.mu.Lock()
		batch := c.take()
		if len(batch) == 0 {
			c.inFlight--
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		p.verifyQueued(batch)
	}
}

// take removes from the queue the first waiting call and every other with
// the same assets and cache (one batch is one CallOptions). The caller
// holds mu.
func (c *coalescer) take() []*queuedVerify {
	if len(c.waiting) == 0 {
		return nil
	}
	first := c.waiting[0]
	batch := []*queuedVerify{first}
	rest := c.waiting[:0]
	for _, q := range c.waiting[1:] {
		if len(batch) < MaxBatchCalls && sameAssets(q.opts.Assets, first.opts.Assets) && sameValue(q.opts.Cache, first.opts.Cache) {
			batch = append(batch, q)
		} else {
			rest = append(rest, q)
		}
	}
	clear(c.waiting[len(rest):])
	c.waiting = rest
	return batch
}

// sameAssets says whether two calls read the same assets, so one batch
// can serve both: equal values of a comparable type (the engine's are a
// directory's name), or none on either side.
func sameAssets(a, b Assets) bool { return sameValue(a, b) }

// sameValue says whether two of a call's options are the same: equal
// values of a comparable type, or nil on both sides.
func sameValue(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ta := reflect.TypeOf(a)
	return ta == reflect.TypeOf(b) && ta.Comparable() && a == b
}

// verifyQueued answers a batch of queued calls and wakes their callers.
// A caller that gave up (its context ended) is left out of the call.
func (p *Plugin) verifyQueued(batch []*queuedVerify) {
	live := batch[:0:0]
	for _, q := range batch {
		if err := q.ctx.Err(); err != nil {
			q.err = err
			close(q.done)
			continue
		}
		live = append(live, q)
	}
	if len(live) == 0 {
		return
	}
	ins := make([]abi.VerifyInput, len(live))
	for i, q := range live {
		ins[i] = q.in
	}
	// The batch runs under the first call's context: the others wait on
	// theirs and drop the answer if theirs ends first.
	outs, errs := p.VerifyBatch(live[0].ctx, ins, live[0].opts)
	for i, q := range live {
		q.out, q.err = outs[i], errs[i]
		if i > 0 && live[0].ctx.Err() != nil && q.ctx.Err() == nil {
			// Cut short by the first caller's context, not its own.
			q.out, q.err = p.Verify(q.ctx, q.in, q.opts)
		}
		close(q.done)
	}
}
