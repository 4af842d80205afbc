package run

import (
	"context"
	"time"

	"github.com/wasmeval/wasmeval/engine/adapter"
	"github.com/wasmeval/wasmeval/engine/result"
)

// Retries of errors (--retry-errors N): a case whose outcome is an error —
// the harness could not judge it — runs again, up to N more times, after
// a wait that doubles each time. A failed or passed case never runs again:
// a retry is for the harness's faults, never another chance for a wrong
// answer. Every attempt is kept in the journal (with its attempt number);
// the last one counts. A case that cannot be loaded is not retried:
// loading it again reads the same files.

// DefaultRetryBackoff is the wait before a case's first retry.
const DefaultRetryBackoff = time.Second

// MaxRetryBackoff bounds the wait between two attempts.
const MaxRetryBackoff = time.Minute

// retryable says whether rec, the tries-th attempt of its case in this
// run, runs again. A case of a server group whose server is down is not:
// the server keeps the state the group's earlier cases built, so it cannot
// be started again in the middle of the group; a resumed run
// (--resume --retry-errors) starts it and replays the group's cases.
func (r *groupRunner) retryable(rec *result.CaseRecord, tries int, ad adapter.Adapter) bool {
	return rec.Outcome == result.OutcomeError && rec.ErrorKind != result.ErrorLoad && tries <= r.opts.RetryErrors && !serverDown(ad)
}

// serverDown says whether the group's server is down.
func serverDown(ad adapter.Adapter) bool {
	sd, ok := ad.(adapter.ServerDown)
	return ok && sd.ServerDown() != ""
}

// noteNotRetried says on an errored case's record, when retries were
// asked for, that it was not retried because its server is down, and how
// to retry it.
func (r *groupRunner) noteNotRetried(rec *result.CaseRecord, ad adapter.Adapter) {
	if r.opts.RetryErrors > 0 && rec.Outcome == result.OutcomeError && rec.ErrorKind != result.ErrorLoad && serverDown(ad) {
		rec.Result.Error += " (" + resumeHint + ")"
	}
}

// resumeHint says how to retry a server group's errors.
const resumeHint = "not retried while the group's server is down: wasmeval run --resume DIR --retry-errors N starts it again and replays the group"

// backoff waits before the retry that follows the tries-th attempt; it
// returns early, with the context's error, when the run is stopped.
func (r *groupRunner) backoff(ctx context.Context, tries int) error {
	t := time.NewTimer(retryWait(r.opts.RetryBackoff, tries))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// retryWait is the wait after the tries-th attempt: first, doubled for
// each attempt before, at most MaxRetryBackoff.
func retryWait(first time.Duration, tries int) time.Duration {
	if first <= 0 {
		first = DefaultRetryBackoff
	}
	d := first
	for i := 1; i < tries && d < MaxRetryBackoff; i++ {
		d *= 2
	}
	return min(d, MaxRetryBackoff)
}
