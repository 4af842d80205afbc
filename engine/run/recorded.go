package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/wasmeval/wasmeval/engine/adapter"
	"github.com/wasmeval/wasmeval/engine/agent"
	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/verify"
)

// recordedBatch is how many recorded results are read before they are
// verified together: a test function or verifier that takes batches
// judges them in one call (plugins/host MaxBatchCalls), so scoring
// another framework's results runs at the plugin's batch throughput
// rather than one call per result.
const recordedBatch = 256

// runRecorded scores a group's recorded results (adapter.Recorded):
// nothing runs, so no workspace is opened and a case is never retried
// (reading the same file again would give the same answer). Each batch
// is journaled in case order once verified; an interrupted group loses
// at most the batch in hand, and a resumed one skips what was journaled.
func (r *groupRunner) runRecorded(ctx context.Context, stream cases.Stream) error {
	ad := &adapter.Recorded{Dir: r.opts.Problem.Adapter.Agent.Results}
	type pending struct {
		c       *cases.Case
		idx     int
		started time.Time
		read    time.Duration // reading the result (and its sandbox)
		out     result.Execution
		parsed  *agent.Result
		// sandbox is the recorded sandbox test functions read ("" for
		// none: they read the problem's files).
		sandbox string
	}
	var batch []pending
	flush := func() error {
		// The batch's cases are verified together, in as few plugin calls
		// as the plugins allow, those that share a sandbox at once (a
		// call reads one); a missing or unreadable result is not judged.
		verdicts := make([]caseVerdict, len(batch))
		// A case's duration is its reading and its share of the
		// verification it was batched into, not the whole batch's.
		took := make([]time.Duration, len(batch))
		for i, b := range batch {
			took[i] = b.read
		}
		bySandbox := map[string][]int{}
		var order []string
		for i, b := range batch {
			if unanswered(b.c, b.out) {
				continue
			}
			if _, seen := bySandbox[b.sandbox]; !seen {
				order = append(order, b.sandbox)
			}
			bySandbox[b.sandbox] = append(bySandbox[b.sandbox], i)
		}
		for _, box := range order {
			is := bySandbox[box]
			cs := make([]*cases.Case, len(is))
			actuals := make([]verify.Actual, len(is))
			elapsed := make([]float64, len(is))
			parsed := make([]*agent.Result, len(is))
			for k, i := range is {
				b := batch[i]
				cs[k], actuals[k], elapsed[k], parsed[k] = b.c, actualOf(b.out), b.out.Elapsed, b.parsed
			}
			start := time.Now()
			for k, v := range r.plugins.verifyCases(ctx, r.job.group, cs, actuals, elapsed, parsed, r.verifyEnv(nil), box) {
				verdicts[is[k]] = v
			}
			share := time.Since(start) / time.Duration(len(is))
			for _, i := range is {
				took[i] += share
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		for i, b := range batch {
			rec := r.newRecord(b.c, b.idx, b.started, b.out, verdicts[i])
			rec.Duration = took[i].Seconds()
			if err := r.record(rec, false); err != nil {
				return err
			}
		}
		batch = batch[:0]
		return nil
	}
	for idx := 0; ; idx++ {
		c, err := stream.Next(ctx, nil)
		if errors.Is(err, io.EOF) {
			return flush()
		}
		var caseErr *cases.CaseError
		if errors.As(err, &caseErr) && ctx.Err() == nil {
			if rec := r.unloadable(caseErr, idx); !r.opts.Resume.has(epochKey(rec.Key(), rec.Epoch)) {
				if err := r.record(rec, false); err != nil {
					return err
				}
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("load case %d: %w", idx+1, err)
		}
		if r.opts.Resume.has(r.key(c)) {
			if err := r.replay(c, nil, false); err != nil {
				return err
			}
			continue
		}
		started := time.Now()
		out, parsed := ad.Read(c)
		box := ad.Sandbox(c)
		batch = append(batch, pending{c: c, idx: idx, started: started, read: time.Since(started), out: out, parsed: parsed, sandbox: box})
		if len(batch) == recordedBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
}
