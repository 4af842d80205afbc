package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// batchCalls are n verify calls of the misbehave plugin: every third one
// wrong, and the modes given by case index.
func batchCalls(n int, modes map[int]string, batchLie string) []abi.VerifyInput {
	ins := make([]abi.VerifyInput, n)
	for i := range ins {
		out, want := fmt.Sprintf("out %d", i), fmt.Sprintf("out %d", i)
		if i%3 == 2 {
			out = "wrong"
		}
		in := abi.VerifyInput{Config: map[string]any{"mode": "ok"}, Case: abi.Case{ID: fmt.Sprintf("case-%d", i)},
			Actual: abi.Actual{Output: out}, Expected: map[string]any{"output": want}}
		if m, ok := modes[i]; ok {
			in.Case.Extra = map[string]any{"mode": m}
		}
		if i == 0 && batchLie != "" {
			in.Config["batch"] = batchLie
		}
		ins[i] = in
	}
	return ins
}

// sameAsSingle checks VerifyBatch's answer for call i against the same
// call made alone: the same verdict, or the same fault (the batch's names
// the batch export).
func sameAsSingle(t *testing.T, p *Plugin, in abi.VerifyInput, out abi.VerifyOutput, err error) {
	t.Helper()
	wantOut, wantErr := p.Verify(context.Background(), in, CallOptions{})
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("case %s: batch error %v, single error %v", in.Case.ID, err, wantErr)
	}
	if err != nil {
		var be, se *Error
		if !errors.As(err, &be) || !errors.As(wantErr, &se) || be.Fault != se.Fault || be.Detail != se.Detail {
			t.Errorf("case %s: batch fault %v, single fault %v", in.Case.ID, err, wantErr)
		}
		return
	}
	g, _ := json.Marshal(out)
	w, _ := json.Marshal(wantOut)
	if string(g) != string(w) {
		t.Errorf("case %s: batch verdict %s, single %s", in.Case.ID, g, w)
	}
}

// A batch gives each call what the call alone gives, in process and in a
// worker, with more calls than one batch holds.
func TestVerifyBatchMatchesSingleCalls(t *testing.T) {
	for _, iso := range []string{InProcess, Process} {
		t.Run(iso, func(t *testing.T) {
			p := load(t, newHost(t, Options{Isolation: iso}), "misbehave")
			if !p.Batches("verify") || p.Batches("evaluate") {
				t.Fatalf("describe's batch list: %v", p.Describe().Batch)
			}
			ins := batchCalls(MaxBatchCalls+44, map[int]string{4: "verdict", 7: "fail"}, "")
			outs, errs := p.VerifyBatch(context.Background(), ins, CallOptions{})
			if got := p.batches.Load(); got != 2 {
				t.Errorf("%d calls made %d batches, want 2", len(ins), got)
			}
			for i := range ins {
				sameAsSingle(t, p, ins[i], outs[i], errs[i])
			}
			if outs[4].Error != "cannot verify this output" || outs[2].Attributes[0].IsCorrect || !outs[3].Attributes[0].IsCorrect {
				t.Errorf("verdicts: %+v %+v %+v", outs[2], outs[3], outs[4])
			}
			var pe *Error
			if !errors.As(errs[7], &pe) || pe.Fault != FaultFailed || pe.Export != "verify_batch" || pe.Detail != "refusing on purpose" {
				t.Errorf("a call that fails in a batch: %v", errs[7])
			}
		})
	}
}

// What a batch gets wrong lands on the calls concerned: a missing result
// or one out of order faults its call only; a batch that traps, or whose
// output cannot be read, is made again call by call, so only the call
// that traps gets a fault.
func TestBatchFaultsStayOnTheirCases(t *testing.T) {
	for _, iso := range []string{InProcess, Process} {
		t.Run(iso, func(t *testing.T) {
			var logs []string
			var mu sync.Mutex
			p := load(t, newHost(t, Options{Isolation: iso, Log: func(_, level, msg string) {
				mu.Lock()
				logs = append(logs, level+" "+msg)
				mu.Unlock()
			}}), "misbehave")
			faulted := func(errs []error) (ids []int) {
				for i, err := range errs {
					if err != nil {
						ids = append(ids, i)
					}
				}
				return ids
			}
			for _, tc := range []struct {
				lie    string
				modes  map[int]string
				faults []int
				detail string
			}{
				{lie: "short", faults: []int{5}, detail: "returned 5 results for 6 calls: call 5 (case case-5) has none"},
				{lie: "swap", faults: []int{0, 1}, detail: "result 0 answers call 1, not call 0 (case case-0)"},
				{lie: "both", detail: ""},
				{lie: "garbage", detail: ""},
				{modes: map[int]string{3: "trap"}, faults: []int{3}, detail: "trapped"},
			} {
				ins := batchCalls(6, tc.modes, tc.lie)
				before := p.batches.Load()
				outs, errs := p.VerifyBatch(context.Background(), ins, CallOptions{})
				if got := faulted(errs); fmt.Sprint(got) != fmt.Sprint(tc.faults) {
					t.Errorf("%s%v: faults on calls %v, want %v (%v)", tc.lie, tc.modes, got, tc.faults, errs)
				}
				if tc.detail != "" && len(tc.faults) > 0 && !strings.Contains(errs[tc.faults[0]].Error(), tc.detail) {
					t.Errorf("%s%v: %v, want it to say %q", tc.lie, tc.modes, errs[tc.faults[0]], tc.detail)
				}
				for i := range ins {
					if errs[i] == nil {
						ins[i].Config = map[string]any{"mode": "ok"} // the lie is the batch's, not the call's
						sameAsSingle(t, p, ins[i], outs[i], nil)
					}
				}
				wholeBatchFault := tc.lie == "both" || tc.lie == "garbage" || tc.modes != nil
				if made := p.batches.Load() - before; made != map[bool]int64{true: 0, false: 1}[wholeBatchFault] {
					t.Errorf("%s%v: %d batches answered", tc.lie, tc.modes, made)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if all := strings.Join(logs, "\n"); !strings.Contains(all, "verify_batch faulted on a batch of 6 calls") {
				t.Errorf("a batch made again call by call is logged: %v", logs)
			}
		})
	}
}

// A plugin that lists an export under batch without its batch form is
// refused when it is loaded, naming the export.
func TestBatchClaimWithoutExportIsRefused(t *testing.T) {
	_, err := newHost(t, Options{}).Load(context.Background(), plugins(t)["batch-lie"], "")
	var pe *Error
	if !errors.As(err, &pe) || pe.Fault != FaultMissingExport || pe.Export != "evaluate_batch" ||
		!strings.Contains(err.Error(), "describe lists evaluate under batch, which needs export evaluate_batch") {
		t.Fatalf("got %v", err)
	}
}

// Calls that arrive while the plugin is busy on every core wait and go
// together as one batch, each answered as it would be alone. The cores
// are made busy by hand, so what waits does not depend on timing.
func TestVerifyCoalescedBatchesWaitingCalls(t *testing.T) {
	for _, iso := range []string{InProcess, Process} {
		t.Run(iso, func(t *testing.T) {
			p := load(t, newHost(t, Options{Isolation: iso}), "misbehave")
			ins := batchCalls(40, map[int]string{5: "fail", 6: "verdict"}, "")
			cores := goruntime.GOMAXPROCS(0)
			c := &p.coalesce
			c.mu.Lock()
			c.inFlight = cores // every core busy
			c.mu.Unlock()
			outs := make([]abi.VerifyOutput, len(ins))
			errs := make([]error, len(ins))
			var wg sync.WaitGroup
			for i := 1; i < len(ins); i++ {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					outs[i], errs[i] = p.VerifyCoalesced(context.Background(), ins[i], CallOptions{})
				}(i)
			}
			for queued := 0; queued < len(ins)-1; {
				c.mu.Lock()
				queued = len(c.waiting)
				c.mu.Unlock()
				goruntime.Gosched()
			}
			c.mu.Lock()
			c.inFlight-- // a core comes free: the next call takes it, then the queue
			c.mu.Unlock()
			outs[0], errs[0] = p.VerifyCoalesced(context.Background(), ins[0], CallOptions{})
			wg.Wait()
			if got := p.batches.Load(); got != 1 {
				t.Errorf("%d waiting calls went as %d batches, want 1", len(ins)-1, got)
			}
			for i := range ins {
				sameAsSingle(t, p, ins[i], outs[i], errs[i])
			}
			// The goroutine that served the queue gives its core back.
			for {
				c.mu.Lock()
				inFlight, waiting := c.inFlight, len(c.waiting)
				c.mu.Unlock()
				if waiting != 0 || inFlight < cores-1 {
					t.Fatalf("after: %d in flight, %d waiting", inFlight, waiting)
				}
				if inFlight == cores-1 {
					break
				}
				goruntime.Gosched()
			}
		})
	}
}

// Many groups verifying at once through VerifyCoalesced get the answers
// they would get alone, whatever batches form; a caller that gives up is
// answered with its context's error and the others are not disturbed.
func TestVerifyCoalescedUnderLoad(t *testing.T) {
	p := load(t, newHost(t, Options{Isolation: Process}), "misbehave")
	ins := batchCalls(200, map[int]string{17: "fail"}, "")
	outs := make([]abi.VerifyOutput, len(ins))
	errs := make([]error, len(ins))
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := g; i < len(ins); i += 8 {
				outs[i], errs[i] = p.VerifyCoalesced(context.Background(), ins[i], CallOptions{})
			}
		}(g)
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.VerifyCoalesced(canceled, ins[0], CallOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("a canceled caller: %v", err)
	}
	wg.Wait()
	for i := range ins {
		sameAsSingle(t, p, ins[i], outs[i], errs[i])
	}
}

// A call whose envelope cannot be encoded (an expected value of NaN, which
// JSON cannot hold) faults alone, as it would alone, with a cache or
// without, and the other calls of the batch are answered; before, the
// buffer the batch encoded into was lost with it and the batch panicked.
func TestBatchCallThatCannotBeEncoded(t *testing.T) {
	p := load(t, newHost(t, Options{Isolation: Process}), "misbehave")
	for _, cache := range []CallCache{nil, newMemCache()} {
		ins := batchCalls(6, nil, "")
		ins[2].Expected = map[string]any{"output": math.NaN()}
		for pass := 0; pass < 2; pass++ { // with a cache: misses, then hits
			outs, errs := p.VerifyBatch(context.Background(), ins, CallOptions{Cache: cache})
			for i := range ins {
				if i == 2 {
					if errs[i] == nil || !strings.Contains(errs[i].Error(), "encode verify input") {
						t.Fatalf("cache %v pass %d: call 2: %v, want its encoding error", cache != nil, pass, errs[i])
					}
					continue
				}
				sameAsSingle(t, p, ins[i], outs[i], errs[i])
			}
		}
	}
}

// A batch's time limit is at most maxBatchTimeouts per-call timeouts,
// however many calls it holds: one call that loops among 40 holds the
// batch for four timeouts (as its fault says: 12 s), not forty, before the
// calls are made one at a time, and only the looping call faults. (In
// process this Extism plugin runs under Extism's own timeout, one
// per-call timeout for a batch too.)
func TestLoopingCallCostsABatchFewTimeouts(t *testing.T) {
	// A per-call timeout of 3 s leaves a busy machine's worker start and
	// ordinary calls far within it.
	for iso, limit := range map[string]string{InProcess: "3s", Process: "12s"} {
		t.Run(iso, func(t *testing.T) {
			var logs []string
			var mu sync.Mutex
			p := load(t, newHost(t, Options{Isolation: iso, Timeout: 3 * time.Second, Log: func(_, level, msg string) {
				mu.Lock()
				logs = append(logs, level+" "+msg)
				mu.Unlock()
			}}), "misbehave")
			_, errs := p.VerifyBatch(context.Background(), batchCalls(40, map[int]string{7: "loop"}, ""), CallOptions{})
			for i, err := range errs {
				if (err != nil) != (i == 7) {
					t.Errorf("call %d: %v", i, err)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			all := strings.Join(logs, "\n")
			if !strings.Contains(all, "faulted on a batch of 40 calls") || !strings.Contains(all, "timed out: no answer within "+limit+")") {
				t.Errorf("the batch's fault does not say it waited %s:\n%s", limit, all)
			}
		})
	}
}
