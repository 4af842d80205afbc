package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// Batches (docs/plugin-abi.md, "Batches"): a plugin whose describe lists an
// export under "batch" answers many calls of it in one call of
// <export>_batch. Crossing into the guest — taking an instance, resetting
// it, entering and leaving Wasm, and for a worker the pipe round trip —
// then happens once per batch instead of once per case. Whatever goes
// wrong stays on the cases concerned: a result that is missing or answers
// another call is a fault of that call only, and a batch that faults as a
// whole (trap, timeout, memory, unreadable output) is made again one call
// at a time, so only the case that caused it gets the fault.

// Batch limits: a batch holds at most MaxBatchCalls calls and, beyond its
// first call, MaxBatchBytes of input. Both keep a batch's envelope (and
// its verdicts) a small multiple of a single call's, and a fault that
// sends the batch back to single calls cheap to recover from.
const (
	MaxBatchCalls = 256
	MaxBatchBytes = 8 << 20
)

// Batches reports whether the plugin answers many calls of export (verify,
// evaluate or test) at once.
func (p *Plugin) Batches(export string) bool { return slices.Contains(p.describe.Batch, export) }

// VerifyBatch runs a verifier on many calls, in batches when the plugin
// offers them and one at a time when not. It returns one output and one
// error per call, in order; an error is that call's fault only. The
// outputs are what Verify would have returned for each call alone.
func (p *Plugin) VerifyBatch(ctx context.Context, ins []abi.VerifyInput, opts CallOptions) ([]abi.VerifyOutput, []error) {
	return batchOf(ctx, p, abi.KindVerifier, ins, opts, verifyInput, p.Verify, scanVerifyOutputAt, p.checkVerdict)
}

// EvaluateBatch is VerifyBatch for evaluator functions.
func (p *Plugin) EvaluateBatch(ctx context.Context, ins []abi.EvaluateInput, opts CallOptions) ([]abi.EvaluateOutput, []error) {
	return batchOf(ctx, p, abi.KindEvaluator, ins, opts, evaluateInput, p.Evaluate, nil, nil)
}

// TestBatch is VerifyBatch for test functions: many agent runs, one
// verdict each.
func (p *Plugin) TestBatch(ctx context.Context, ins []abi.TestInput, opts CallOptions) ([]abi.TestOutput, []error) {
	single := func(ctx context.Context, in abi.TestInput, opts CallOptions) (abi.TestOutput, error) {
		return p.Test(ctx, in.Result, in.Config, opts)
	}
	prep := func(in abi.TestInput) abi.TestInput { return testInput(in.Result, in.Config) }
	return batchOf(ctx, p, abi.KindTest, ins, opts, prep, single, nil, nil)
}

// batchOf makes the calls ins of kind's export: through its batch form
// when the plugin has one and there is more than one call, else one at a
// time with single. prep makes a call's envelope as the single call
// would. scan, when set, decodes an output straight from the batch
// output's text (it gives for an output what checkEnvelope gives, or
// ok=false to leave it to checkEnvelope); check, when set, holds each
// output to the single call's limits.
func batchOf[In, Out any](ctx context.Context, p *Plugin, kind string, ins []In, opts CallOptions,
	prep func(In) In, single func(context.Context, In, CallOptions) (Out, error),
	scan func(s string, at int) (Out, int, bool), check func(*Out) error) ([]Out, []error) {
	outs := make([]Out, len(ins))
	errs := make([]error, len(ins))
	one := func(i int) { outs[i], errs[i] = single(ctx, ins[i], opts) }
	export := abi.Exports[kind]
	batched := p.HasKind(kind) && p.Batches(export) && len(ins) >= 2
	// Many calls are looked up in the cache at once (lookupAll), also for
	// a plugin that answers them one at a time.
	cached := p.HasKind(kind) && p.cacheable(export, opts) && len(ins) >= 2
	if !batched && !cached {
		for i := range ins {
			one(i)
		}
		return outs, errs
	}
	_, schema := EnvelopeSchemas(export)
	// With a cache, each call is looked up first and only the misses go
	// to the plugin; a miss made alone (a batch that faulted) is not
	// looked up again. Each lookup encodes its call's envelope itself,
	// which its key needs, so that too runs on every core (lookupAll): a
	// warm run's calls are all hits, and their encoding was the largest
	// part of its time left on one core. A miss keeps its envelope for
	// the plugin.
	var inputs [][]byte
	var keys []string
	var rec *recordingAssets
	batchOpts := opts
	if cached {
		inputs = make([][]byte, len(ins))
		keys = make([]string, len(ins))
		rawStrings := p.rawStrings()
		lookupAll(len(ins), func(scratch *[]byte, i int) {
			in, err := appendEnvelope((*scratch)[:0], ins[i], prep, rawStrings)
			if err != nil {
				errs[i] = fmt.Errorf("encode %s input: %w", export, err)
				return
			}
			*scratch = in
			keys[i] = p.cacheKey(export, in, opts)
			if !p.lookup(keys[i], opts, func(raw []byte) error {
				err := checkCached(p.Label(), export, schema, raw, &outs[i])
				if err == nil && check != nil {
					err = check(&outs[i])
				}
				if err != nil {
					var zero Out
					outs[i] = zero
				}
				return err
			}) {
				inputs[i] = bytes.Clone(in) // a miss
			}
		})
		batchOpts, rec = recording(opts)
		alone := opts
		alone.noLookup = true
		one = func(i int) { outs[i], errs[i] = single(ctx, ins[i], alone) }
	}
	if !batched {
		for i, in := range inputs {
			if in != nil { // a miss (nil: answered, or errs[i] says why not)
				one(i)
			}
		}
		return outs, errs
	}
	if !cached {
		buf := getBuffer()
		inputs, buf = encodeEnvelopes(buf, ins, prep, export, errs, p.rawStrings())
		defer putBuffer(buf)
	}
	sink := batchSink{
		accept: func(i int, out string, decoded bool) error {
			if !decoded {
				// A copy: what checkEnvelopeText decodes may keep parts of
				// its text, and out is part of the whole batch's output.
				if err := checkEnvelopeText(p.Label(), export+abi.BatchSuffix, schema, strings.Clone(out), &outs[i]); err != nil {
					return err
				}
			}
			if check != nil {
				if err := check(&outs[i]); err != nil {
					return err
				}
			}
			if rec != nil {
				// The batch's reads, all of them: which call read what is
				// not known, and more reads only make an entry stricter.
				opts.Cache.Store(keys[i], CachedCall{Output: []byte(out), Reads: rec.noted(), Validated: outputValidation})
			}
			return nil
		},
		drop:   func(i int) { var zero Out; outs[i] = zero },
		single: one,
	}
	if scan != nil {
		sink.decode = func(i int, s string, at int) (int, bool) {
			out, end, ok := scan(s, at)
			if ok {
				outs[i] = out
			}
			return end, ok
		}
	}
	p.batch(ctx, export, inputs, errs, batchOpts, sink)
	return outs, errs
}

// encodeEnvelopes encodes each call's envelope (as prep makes it) into
// buf, one after the other, so a batch's inputs cost no allocation per
// call; nil where encoding failed, with errs[i] saying why. It returns the
// envelopes, which are parts of the buffer returned with them.
func encodeEnvelopes[In any](buf []byte, ins []In, prep func(In) In, export string, errs []error, raw bool) ([][]byte, []byte) {
	inputs := make([][]byte, len(ins))
	ends := make([]int, len(ins))
	for i := range ins {
		b, err := appendEnvelope(buf, ins[i], prep, raw)
		if err != nil {
			// buf is as it was: the call's fault only.
			errs[i] = fmt.Errorf("encode %s input: %w", export, err)
			ends[i] = -1
			continue
		}
		buf = b
		ends[i] = len(buf)
		if i == 0 && len(ins) > 1 && cap(buf) < len(buf)*len(ins) {
			// The calls of a batch are mostly alike: room for all of
			// them, give or take, at once.
			buf = append(make([]byte, 0, len(buf)*len(ins)*9/8), buf...)
		}
	}
	start := 0
	for i, end := range ends {
		if end < 0 {
			continue
		}
		inputs[i] = buf[start:end:end]
		start = end
	}
	return inputs, buf
}

// appendEnvelope appends a call's envelope (as prep makes it) to buf. On
// an error it returns nil: buf itself is left as it was.
func appendEnvelope[In any](buf []byte, in In, prep func(In) In, raw bool) ([]byte, error) {
	env := prep(in)
	// A concrete assertion, not one to rawEncoder: a call through an
	// interface would make env escape, a copy on the heap per call.
	if v, ok := any(env).(abi.VerifyInput); ok {
		return v.AppendInput(buf, raw)
	}
	data, err := encodeEnvelope(env, raw, nil)
	if err != nil {
		return nil, err
	}
	return append(buf, data...), nil
}

// batchBuffers keeps the buffers batches encode their inputs into: a
// batch's are up to MaxBatchBytes, which a new buffer would have to clear
// before use every time.
var batchBuffers sync.Pool

func getBuffer() []byte {
	if b, ok := batchBuffers.Get().(*[]byte); ok {
		return (*b)[:0]
	}
	return nil
}

// putBuffer gives a buffer back once nothing refers to its bytes.
func putBuffer(b []byte) {
	if cap(b) > 0 && cap(b) <= 2*MaxBatchBytes {
		batchBuffers.Put(&b)
	}
}

// batchSink is what a batch does with its results. decode, when set,
// decodes call i's output straight from the batch output's text, the
// object at s[at], and says where it ends (ok=false leaves the output to
// accept); accept takes call i's output text (already decoded when
// decoded is set); drop forgets whatever decode made for call i when the
// result turns out not to be its answer; single makes call i alone, for
// the calls of a batch that faulted as a whole.
type batchSink struct {
	decode func(i int, s string, at int) (end int, ok bool)
	accept func(i int, out string, decoded bool) error
	drop   func(i int)
	single func(i int)
}

// batch sends inputs (encoded single-call envelopes; nil where encoding
// failed and errs already says why) to export's batch form in chunks
// within the batch limits.
func (p *Plugin) batch(ctx context.Context, export string, inputs [][]byte, errs []error, opts CallOptions, sink batchSink) {
	var chunk []int
	size := 0
	flush := func() {
		switch len(chunk) {
		case 0:
		case 1:
			sink.single(chunk[0])
		default:
			p.batchChunk(ctx, export, inputs, chunk, errs, opts, sink)
		}
		chunk, size = chunk[:0], 0
	}
	for i, in := range inputs {
		if in == nil {
			continue
		}
		if len(chunk) > 0 && (len(chunk) == MaxBatchCalls || size+len(in) > MaxBatchBytes) {
			flush()
		}
		chunk = append(chunk, i)
		size += len(in)
	}
	flush()
}

// batchChunk makes one batch call of the calls in chunk (indices into
// inputs and errs).
func (p *Plugin) batchChunk(ctx context.Context, export string, inputs [][]byte, chunk []int, errs []error, opts CallOptions, sink batchSink) {
	batchExport := export + abi.BatchSuffix
	size := len(`{"abi_version":,"calls":[]}`) + 20
	for _, i := range chunk {
		size += len(inputs[i]) + 1
	}
	buf := slices.Grow(getBuffer(), size)
	defer putBuffer(buf)
	buf = append(buf, `{"abi_version":`...)
	buf = strconv.AppendInt(buf, abi.Version, 10)
	buf = append(buf, `,"calls":[`...)
	for n, i := range chunk {
		if n > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, inputs[i]...)
	}
	buf = append(buf, "]}"...)
	opts.calls = len(chunk)
	// The batch's output goes into a reused buffer: what is kept of it
	// (verdicts, errors, cache entries) is copied out before it goes back.
	out := getBuffer()
	callCtx := withOutputInto(ctx, func(o []byte) []byte { out = append(out[:0], o...); return out })
	raw, err := p.Call(callCtx, batchExport, buf, opts)
	defer func() { putBuffer(out) }()
	var results []batchResult
	if err == nil {
		var decode func(n int, s string, at int) (int, bool)
		if sink.decode != nil {
			decode = func(n int, s string, at int) (int, bool) {
				if n >= len(chunk) {
					return at, false // a result too many: ignored below
				}
				return sink.decode(chunk[n], s, at)
			}
		}
		results, err = p.batchResults(batchExport, raw, decode)
	}
	if err == nil {
		p.batches.Add(1)
	}
	if err != nil {
		if ctx.Err() != nil {
			for _, i := range chunk {
				errs[i] = ctx.Err()
			}
			return
		}
		// The batch as a whole faulted: one call at a time, so the fault
		// lands on the case that causes it (and the others get verdicts).
		p.logf("warn", "%s faulted on a batch of %d calls (%v); making them one at a time", batchExport, len(chunk), err)
		for _, i := range chunk {
			sink.single(i)
		}
		return
	}
	if len(results) > len(chunk) {
		p.logf("warn", "%s returned %d results for %d calls; the extra ones are ignored", batchExport, len(results), len(chunk))
	}
	for n, i := range chunk {
		switch {
		case n >= len(results):
			errs[i] = &Error{Plugin: p.Label(), Export: batchExport, Fault: FaultEnvelope,
				Detail: fmt.Sprintf("returned %d results for %d calls: call %d%s has none", len(results), len(chunk), n, caseOf(inputs[i]))}
		case results[n].call != n:
			sink.drop(i)
			errs[i] = &Error{Plugin: p.Label(), Export: batchExport, Fault: FaultEnvelope,
				Detail: fmt.Sprintf("result %d answers call %d, not call %d%s: results must come in the calls' order", n, results[n].call, n, caseOf(inputs[i]))}
		case results[n].err != "":
			sink.drop(i)
			errs[i] = &Error{Plugin: p.Label(), Export: batchExport, Fault: FaultFailed, Detail: strings.Clone(results[n].err)}
		default:
			errs[i] = sink.accept(i, results[n].output, results[n].decoded)
		}
	}
}

// batchResults decodes a batch output: an object whose results are each a
// call index with an output object or an error message. decode, when
// set, may decode result n's output as it is read (scanBatchOutput).
// raw is not changed afterwards: outputs are kept as its text.
func (p *Plugin) batchResults(export string, raw []byte, decode func(n int, s string, at int) (int, bool)) ([]batchResult, error) {
	if len(raw) > 0 {
		if results, ok := scanBatchOutput(unsafe.String(&raw[0], len(raw)), decode); ok {
			return results, nil
		}
	}
	var out struct {
		Results *[]abi.BatchResult `json:"results"`
	}
	fault := func(detail string) error {
		return &Error{Plugin: p.Label(), Export: export, Fault: FaultEnvelope, Detail: detail}
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, &Error{Plugin: p.Label(), Export: export, Fault: FaultInvalidJSON, Detail: fmt.Sprintf("%v (output starts %q)", err, head(raw))}
	}
	if out.Results == nil {
		return nil, fault("a batch output needs results, a list with one result per call")
	}
	results := make([]batchResult, len(*out.Results))
	for n, r := range *out.Results {
		hasOutput := len(r.Output) > 0 && !bytes.Equal(r.Output, []byte("null"))
		if hasOutput == (r.Error != "") {
			// Not the call's fault alone: a plugin that cannot say
			// whether a call failed has not answered any reliably.
			return nil, fault(fmt.Sprintf("result %d has %s: each result has either an output or an error", n,
				map[bool]string{true: "both an output and an error", false: "neither an output nor an error"}[hasOutput]))
		}
		results[n] = batchResult{call: r.Call, err: r.Error}
		if hasOutput {
			results[n].output = string(r.Output)
		}
	}
	return results, nil
}

// caseOf names the case a call's envelope is about, for messages: " (case
// ID)", or nothing for an envelope without one.
func caseOf(input []byte) string {
	// Read member by member up to the case: an input with raw strings
	// (abi.AppendRaw) is JSON only up to its first one, and the host
	// writes the case before them.
	dec := json.NewDecoder(bytes.NewReader(input))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return ""
		}
		if key != "case" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return ""
			}
			continue
		}
		var c struct {
			ID string `json:"id"`
		}
		if dec.Decode(&c) != nil || c.ID == "" {
			return ""
		}
		return " (case " + c.ID + ")"
	}
	return ""
}

// logf writes one line about the plugin to the run log.
func (p *Plugin) logf(level, format string, args ...any) {
	if log := p.host.opts.Log; log != nil {
		log(p.Label(), level, fmt.Sprintf(format, args...))
	}
}
