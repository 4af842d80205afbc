package host

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/verify"
	"github.com/wasmeval/wasmeval/plugins/abi"
)

// call marshals in, runs export and decodes the output after checking it
// against the ABI schema.
func (p *Plugin) call(ctx context.Context, kind string, in any, out any, opts CallOptions) error {
	export := abi.Exports[kind]
	if !p.HasKind(kind) {
		return &Error{Plugin: p.Label(), Export: export, Fault: FaultMissingExport,
			Detail: fmt.Sprintf("the plugin is not a %s (its kinds: %v)", kind, p.describe.Kinds)}
	}
	data, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("encode %s input: %w", export, err)
	}
	raw, err := p.Call(ctx, export, data, opts)
	if err != nil {
		return err
	}
	_, schema := EnvelopeSchemas(export)
	return checkEnvelope(p.Label(), export, schema, raw, out)
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
}

// EnvelopeSchemas returns the names of the ABI schemas of an export's input
// and output envelopes, for ValidateEnvelope; "" where there is none (an
// export that is not the ABI's, describe's input).
func EnvelopeSchemas(export string) (input, output string) {
	s := envelopeSchemas[export]
	return s[0], s[1]
}

// Verify runs a verifier plugin on one case. The attributes it returns are
// indistinguishable from built-in checks' (Check names the plugin). An
// error the plugin reports in its envelope is a verdict: one incorrect
// attribute carrying the message.
func (p *Plugin) Verify(ctx context.Context, c *cases.Case, actual verify.Actual, config map[string]any, opts CallOptions) ([]verify.AttributeResult, error) {
	var out abi.VerifyOutput
	in, err := verifyInput(c, actual, config)
	if err != nil {
		return nil, err
	}
	if err := p.call(ctx, abi.KindVerifier, in, &out, opts); err != nil {
		return nil, err
	}
	if out.Error != "" {
		return []verify.AttributeResult{{Attribute: "plugin:" + p.describe.Name, Weight: 1, Check: p.Label(),
			Diff: &verify.Diff{Summary: out.Error}}}, nil
	}
	if n := len(out.Attributes); n > MaxVerdictAttributes {
		return nil, &Error{Plugin: p.Label(), Export: abi.Exports[abi.KindVerifier], Fault: FaultOversized,
			Detail: fmt.Sprintf("%d attributes in one verdict, at most %d are accepted", n, MaxVerdictAttributes)}
	}
	res := make([]verify.AttributeResult, 0, len(out.Attributes))
	for _, a := range out.Attributes {
		r := verify.AttributeResult{Attribute: a.Attribute, Actual: a.Actual, Expected: a.Expected,
			Diff: capDiff(a.Diff), IsCorrect: a.IsCorrect, Weight: a.Weight, Check: p.Label()}
		res = append(res, r)
	}
	return res, nil
}

// MaxVerdictAttributes caps the attributes of one verifier verdict. A case
// checks a handful (status, output, stderr, a few files or headers); a
// verdict with thousands is a broken plugin, and stored it would bloat the
// case's journal line (200,000 attributes made one of 22 MB) and every
// report. Unlike a diff, whose entries are detail and are cut, attributes
// are the verdict: one that is over the cap is a fault of the plugin, not
// a verdict to trim.
const MaxVerdictAttributes = 256

// capDiff keeps at most verify.MaxDiffEntries entries of a plugin's diff,
// as the built-in checks do, so a plugin listing every difference of a huge
// output cannot make a record (and the journal, the reports) unreadable.
func capDiff(d *verify.Diff) *verify.Diff {
	if d == nil || len(d.Entries) <= verify.MaxDiffEntries {
		return d
	}
	c := *d
	c.Entries = d.Entries[:verify.MaxDiffEntries:verify.MaxDiffEntries]
	c.Truncated = true
	return &c
}

// Evaluate calls a named evaluator function.
func (p *Plugin) Evaluate(ctx context.Context, in abi.EvaluateInput, opts CallOptions) (abi.EvaluateOutput, error) {
	var out abi.EvaluateOutput
	err := p.call(ctx, abi.KindEvaluator, evaluateInput(in), &out, opts)
	return out, err
}

// Test runs a test function on an agent run.
func (p *Plugin) Test(ctx context.Context, run abi.AgentRun, config map[string]any, opts CallOptions) (abi.TestOutput, error) {
	var out abi.TestOutput
	err := p.call(ctx, abi.KindTest, testInput(run, config), &out, opts)
	return out, err
}

// LoadCases asks a loader plugin for the next cases of a group.
func (p *Plugin) LoadCases(ctx context.Context, in abi.LoadInput, opts CallOptions) (abi.LoadOutput, error) {
	var out abi.LoadOutput
	err := p.call(ctx, abi.KindLoader, loadInput(in), &out, opts)
	return out, err
}

// The input envelopes, as each kind's call sends them: the ABI version
// set, and no null where the schema promises an object or a list (a test
// holds each to its schema in plugins/abi/schema).

func verifyInput(c *cases.Case, actual verify.Actual, config map[string]any) (abi.VerifyInput, error) {
	ac, err := CallCase(c)
	if err != nil {
		return abi.VerifyInput{}, err
	}
	return abi.VerifyInput{ABIVersion: abi.Version, Config: nonNil(config), Case: ac,
		Actual: actual, Expected: nonNil(c.Expected)}, nil
}

func evaluateInput(in abi.EvaluateInput) abi.EvaluateInput {
	in.ABIVersion = abi.Version
	in.Config = nonNil(in.Config)
	in.Arguments = nonNil(in.Arguments)
	return in
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
	return in
}

// CallCase is a case as a verify or evaluate call carries it: its expected
// values travel once, as the envelope's top-level `expected`, since every
// byte is decoded again inside the sandbox.
func CallCase(c *cases.Case) (abi.Case, error) {
	ac, err := ToABICase(c)
	ac.Expected = nil
	return ac, err
}

// ToABICase converts an engine case to its envelope form. Input files
// carry their content, so one copied from a problem file at run time
// (cases.InputFile.From) is read here; a read that fails is an error.
func ToABICase(c *cases.Case) (abi.Case, error) {
	out := abi.Case{ID: c.ID, Checkpoint: c.Checkpoint, Group: c.Group, GroupType: string(c.GroupType),
		Arguments: c.Arguments, Stdin: c.Stdin, Env: c.Env, TrackedFiles: c.TrackedFiles,
		Expected: c.Expected, TimeoutS: c.Timeout.Seconds(), Reset: c.Reset, Extra: c.Extra}
	if out.Arguments == nil {
		out.Arguments = []string{}
	}
	if c.Request != nil {
		out.Request = c.Request.Data()
	}
	for _, f := range c.InputFiles {
		content, err := f.Bytes()
		if err != nil {
			return abi.Case{}, fmt.Errorf("input file %s: %w", f.Path, err)
		}
		if utf8.Valid(content) {
			out.InputFiles = append(out.InputFiles, abi.InputFile{Path: f.Path, Content: string(content)})
		} else {
			out.InputFiles = append(out.InputFiles, abi.InputFile{Path: f.Path, Content: base64.StdEncoding.EncodeToString(content), Encoding: "base64"})
		}
	}
	return out, nil
}

func nonNil(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
