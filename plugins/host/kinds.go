package host

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/abi/abischema"
)

// call marshals in, runs export and decodes the output after checking it
// against the ABI schema.
//
// check, when set, holds the decoded output to the limits of its kind; an
// output it refuses is a fault. With a cache (CallOptions.Cache), the
// call is answered from it when it can be, and an answer that passed
// every check is kept; a fault never is.
func (p *Plugin) call(ctx context.Context, kind string, in any, out any, opts CallOptions, check func() error) error {
	export := abi.Exports[kind]
	if !p.HasKind(kind) {
		return &Error{Plugin: p.Label(), Export: export, Fault: FaultMissingExport,
			Detail: fmt.Sprintf("the plugin is not %s (its kinds: %v)", KindName(kind), p.describe.Kinds)}
	}
	var buf *[]byte
	// A plugin loaded lazily gets p.native at its first call, which
	// another goroutine may be making: p.lazy, set at load, is read first.
	if (p.lazy != nil || p.native != nil) && p.workers == nil {
		// In process on the native transport, the input is copied into
		// the guest before the call runs and not kept: its buffer can
		// serve the next call.
		buf = inputBuffers.Get().(*[]byte)
		defer inputBuffers.Put(buf)
	}
	data, err := encodeEnvelope(in, p.rawStrings(), buf)
	if err != nil {
		return fmt.Errorf("encode %s input: %w", export, err)
	}
	_, schema := EnvelopeSchemas(export)
	// Without withOutputInto in ctx, Call returns the output as a copy of
	// its own (the guest's memory, a worker's shared memory and Extism's
	// buffer are copied), which nothing writes to after it: the decoded
	// output's strings may share its memory rather than a second copy.
	owned := outputInto(ctx) == nil
	decode := func(raw []byte, out any, cached bool) error {
		var err error
		switch {
		case cached:
			err = checkCached(p.Label(), export, schema, raw, out)
		case owned:
			err = checkOwnedEnvelope(p.Label(), export, schema, raw, out)
		default:
			err = checkEnvelope(p.Label(), export, schema, raw, out)
		}
		if err != nil {
			return err
		}
		if check != nil {
			return check()
		}
		return nil
	}
	var key string
	var rec *recordingAssets
	callOpts := opts
	if p.cacheable(export, opts) {
		key = p.cacheKey(export, data, opts)
		if !opts.noLookup && p.lookup(key, opts, func(raw []byte) error {
			err := decode(raw, out, true)
			if err != nil {
				// An entry that does not read as an answer leaves nothing
				// behind: the call is made into a zero output, as without
				// a cache.
				reflect.ValueOf(out).Elem().SetZero()
			}
			return err
		}) {
			return nil
		}
		callOpts, rec = recording(opts)
	}
	raw, err := p.Call(ctx, export, data, callOpts)
	if err != nil {
		return err
	}
	if err := decode(raw, out, false); err != nil {
		return err
	}
	if rec != nil {
		opts.Cache.Store(key, CachedCall{Output: raw, Reads: rec.noted(), Validated: outputValidation})
	}
	return nil
}

// encodeEnvelope encodes an input envelope: with its own AppendInput where
// it has one (a verify input: the bytes encoding/json would give, without
// its reflection, or with raw its long strings raw), else with
// encoding/json.
// With buf, it encodes into *buf and keeps the grown buffer there.
func encodeEnvelope(in any, raw bool, buf *[]byte) ([]byte, error) {
	a, ok := in.(rawEncoder)
	if !ok {
		return json.Marshal(in)
	}
	if buf == nil {
		return a.AppendInput(make([]byte, 0, 4096), raw)
	}
	b, err := a.AppendInput((*buf)[:0], raw)
	if cap(b) <= maxPooledInput {
		*buf = b
	}
	return b, err
}

// inputBuffers are encoding buffers of in-process calls. One that grew
// past maxPooledInput (a case with a large output) is not kept.
var inputBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

const maxPooledInput = 1 << 20

// rawEncoder is an envelope that encodes itself, with raw strings or
// without (abi.VerifyInput).
type rawEncoder interface {
	AppendInput(b []byte, raw bool) ([]byte, error)
}

// rawStrings says whether the plugin's inputs may hold raw strings: its
// describe says so, and it is on the native transport, the only one that
// has them (docs/plugin-abi.md, "Raw strings").
func (p *Plugin) rawStrings() bool {
	return p.describe.RawStrings && p.describe.Transport == abi.TransportNative
}

// envelopeSchemas names the ABI schemas (plugins/abi/schema, without
// ".json") of each export's input and output envelope; describe takes no
// input.
var envelopeSchemas = map[string][2]string{
	abi.DescribeExport: {"", "describe"},
	"verify":           {"verify_input", "verify_output"},
	"load_cases":       {"load_input", "load_output"},
	"evaluate":         {"evaluate_input", "evaluate_output"},
	"test":             {"test_input", "test_output"},
	"setup":            {"setup_input", "setup_output"},
	"mock":             {"mock_input", "mock_output"},
	"verify_batch":     {"batch_input", "batch_output"},
	"evaluate_batch":   {"batch_input", "batch_output"},
	"test_batch":       {"batch_input", "batch_output"},
}

// EnvelopeSchemas returns the names of the ABI schemas of an export's input
// and output envelopes, for ValidateEnvelope; "" where there is none (an
// export that is not the ABI's, describe's input).
func EnvelopeSchemas(export string) (input, output string) {
	s := envelopeSchemas[export]
	return s[0], s[1]
}

// Verify runs a verifier plugin on one call. The envelope's ABI version is
// set and its nil maps made empty here. The verdict is checked (at most
// MaxVerdictAttributes attributes) and each diff cut to abi.MaxDiffEntries
// entries; an error the plugin reports in the envelope is a verdict, left
// for the caller to word.
func (p *Plugin) Verify(ctx context.Context, in abi.VerifyInput, opts CallOptions) (abi.VerifyOutput, error) {
	var out abi.VerifyOutput
	if err := p.call(ctx, abi.KindVerifier, verifyInput(in), &out, opts, func() error { return p.checkVerdict(&out) }); err != nil {
		return abi.VerifyOutput{}, err
	}
	return out, nil
}

// checkVerdict holds a verdict to the limits: a fault when it has too
// many attributes, each diff cut to its cap.
func (p *Plugin) checkVerdict(out *abi.VerifyOutput) error {
	// A verdict that judges no attribute would score the case 0 with no
	// word of why; it is the plugin's fault, and says what to return.
	if len(out.Attributes) == 0 && out.Error == "" && out.Unscored == "" {
		return &Error{Plugin: p.Label(), Export: abi.Exports[abi.KindVerifier], Fault: FaultEnvelope, Detail: NoVerdictDetail}
	}
	if n := len(out.Attributes); n > MaxVerdictAttributes {
		return &Error{Plugin: p.Label(), Export: abi.Exports[abi.KindVerifier], Fault: FaultOversized,
			Detail: fmt.Sprintf("%d attributes in one verdict, at most %d are accepted", n, MaxVerdictAttributes)}
	}
	for i := range out.Attributes {
		out.Attributes[i].Diff = capDiff(out.Attributes[i].Diff)
	}
	return nil
}

// NoVerdictDetail is the fault of a verdict with no attributes, no error
// and no unscored reason.
const NoVerdictDetail = `the verifier judged nothing: its verdict has no attributes (return {"error": "why"} for an answer it cannot verify, {"unscored": "why"} for a case it cannot judge)`

// MaxVerdictAttributes caps the attributes of one verifier verdict. A case
// checks a handful (status, output, stderr, a few files or headers); a
// verdict with thousands is a broken plugin, and stored it would bloat the
// case's journal line (200,000 attributes made one of 22 MB) and every
// report. Unlike a diff, whose entries are detail and are cut, attributes
// are the verdict: one that is over the cap is a fault of the plugin, not
// a verdict to trim.
const MaxVerdictAttributes = 256

// capDiff keeps at most abi.MaxDiffEntries entries of a plugin's diff, as
// the built-in checks do, so a plugin listing every difference of a huge
// output cannot make a record (and the journal, the reports) unreadable.
func capDiff(d *abi.Diff) *abi.Diff {
	if d == nil || len(d.Entries) <= abi.MaxDiffEntries {
		return d
	}
	c := *d
	c.Entries = d.Entries[:abi.MaxDiffEntries:abi.MaxDiffEntries]
	c.Truncated = true
	return &c
}

// Evaluate calls a named evaluator function.
func (p *Plugin) Evaluate(ctx context.Context, in abi.EvaluateInput, opts CallOptions) (abi.EvaluateOutput, error) {
	var out abi.EvaluateOutput
	err := p.call(ctx, abi.KindEvaluator, evaluateInput(in), &out, opts, nil)
	return out, err
}

// Test runs a test function on an agent run.
func (p *Plugin) Test(ctx context.Context, run abi.AgentRun, config map[string]any, opts CallOptions) (abi.TestOutput, error) {
	var out abi.TestOutput
	err := p.call(ctx, abi.KindTest, testInput(run, config), &out, opts, nil)
	return out, err
}

// LoadCases asks a loader plugin for the next cases of a group.
func (p *Plugin) LoadCases(ctx context.Context, in abi.LoadInput, opts CallOptions) (abi.LoadOutput, error) {
	var out abi.LoadOutput
	err := p.call(ctx, abi.KindLoader, loadInput(in), &out, opts, nil)
	return out, err
}

// The input envelopes, as each kind's call sends them: the ABI version
// set, and no null where the schema promises an object or a list (a test
// holds each to its schema in plugins/abi/schema).

func verifyInput(in abi.VerifyInput) abi.VerifyInput {
	in.ABIVersion = abi.Version
	in.Config = nonNil(in.Config)
	in.Expected = nonNil(in.Expected)
	in.Case = envelopeCase(in.Case)
	return in
}

func evaluateInput(in abi.EvaluateInput) abi.EvaluateInput {
	in.ABIVersion = abi.Version
	in.Config = nonNil(in.Config)
	in.Arguments = nonNil(in.Arguments)
	if in.Case != nil {
		c := envelopeCase(*in.Case)
		in.Case = &c
	}
	return in
}

// envelopeCase is a case as the schema has it: its arguments a list, even
// an empty one.
func envelopeCase(c abi.Case) abi.Case {
	if c.Arguments == nil {
		c.Arguments = []string{}
	}
	return c
}

func testInput(run abi.AgentRun, config map[string]any) abi.TestInput {
	in := abi.TestInput{ABIVersion: abi.Version, Config: nonNil(config), Result: run}
	if in.Result.Conversation == nil {
		in.Result.Conversation = []abi.Message{}
	}
	if in.Result.ExecutionTrace == nil {
		in.Result.ExecutionTrace = []any{}
	}
	return in
}

func loadInput(in abi.LoadInput) abi.LoadInput {
	in.ABIVersion = abi.Version
	in.Config = nonNil(in.Config)
	if in.History == nil {
		in.History = []abi.Outcome{}
	}
	for i, h := range in.History {
		if h.Case.Arguments == nil {
			// A copy: the caller's history is not the host's to change.
			in.History = slices.Clone(in.History)
			for j := i; j < len(in.History); j++ {
				in.History[j].Case = envelopeCase(in.History[j].Case)
			}
			break
		}
	}
	return in
}

func nonNil(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// ValidateEnvelope checks raw JSON against one of the ABI schemas
// (abischema.ValidateJSON); the conformance tests and `wasmeval plugin
// call` use it.
func ValidateEnvelope(name string, data []byte) error { return abischema.ValidateJSON(name, data) }

// KindName is a plugin kind as messages name what a plugin must be: "a
// verifier", "an evaluator", "a test function".
func KindName(kind string) string {
	if kind == abi.KindTest {
		return "a test function"
	}
	if kind != "" && strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}
