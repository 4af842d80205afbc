// Package plugincall adapts the engine's types to the plugin ABI: it turns
// a case and its actual result into the envelopes plugins take, and a
// verifier's verdict into attribute results. The plugin host
// (plugins/host) speaks only the ABI and knows nothing of problems, cases
// or workspaces; this package is the one place that knows both.
package plugincall

import (
	"context"
	"encoding/base64"
	"fmt"
	"unicode/utf8"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/verify"
	"github.com/wasmeval/wasmeval/engine/workspace"
	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// Verify runs a verifier plugin on one case. The attributes it returns are
// indistinguishable from built-in checks' (Check names the plugin). An
// error the plugin reports in its envelope is a verdict: one incorrect
// attribute carrying the message.
func Verify(ctx context.Context, p *host.Plugin, c *cases.Case, actual verify.Actual, config map[string]any, opts host.CallOptions) ([]verify.AttributeResult, error) {
	in, err := VerifyInput(c, actual, config)
	if err != nil {
		return nil, err
	}
	out, err := p.Verify(ctx, in, opts)
	if err != nil {
		return nil, err
	}
	return Verdict(p, out), nil
}

// VerifyBatch runs a verifier plugin on many cases of one binding (the
// same config), in as few calls into the plugin as it allows
// (host.Plugin.VerifyBatch). It returns each case's attributes and why the
// plugin left it unscored ("" when it judged it), or the fault of that
// case alone, in order.
func VerifyBatch(ctx context.Context, p *host.Plugin, cs []*cases.Case, actuals []verify.Actual, config map[string]any, opts host.CallOptions) ([][]verify.AttributeResult, []string, []error) {
	attrs := make([][]verify.AttributeResult, len(cs))
	unscored := make([]string, len(cs))
	errs := make([]error, len(cs))
	ins := make([]abi.VerifyInput, 0, len(cs))
	at := make([]int, 0, len(cs)) // ins[k] is case at[k]
	for i, c := range cs {
		in, err := VerifyInput(c, actuals[i], config)
		if err != nil {
			errs[i] = err
			continue
		}
		ins = append(ins, in)
		at = append(at, i)
	}
	var outs []abi.VerifyOutput
	var callErrs []error
	if len(ins) == 1 {
		// One case at a time, as a run verifies: the host still batches
		// it with calls of other groups that wait for the plugin.
		out, err := p.VerifyCoalesced(ctx, ins[0], opts)
		outs, callErrs = []abi.VerifyOutput{out}, []error{err}
	} else {
		outs, callErrs = p.VerifyBatch(ctx, ins, opts)
	}
	for k, i := range at {
		if callErrs[k] != nil {
			errs[i] = callErrs[k]
			continue
		}
		attrs[i] = Verdict(p, outs[k])
		unscored[i] = outs[k].Unscored
	}
	return attrs, unscored, errs
}

// VerifyInput is the verify envelope of a case and its actual result.
func VerifyInput(c *cases.Case, actual verify.Actual, config map[string]any) (abi.VerifyInput, error) {
	ac, err := CallCase(c)
	if err != nil {
		return abi.VerifyInput{}, err
	}
	return abi.VerifyInput{ABIVersion: abi.Version, Config: config, Case: ac, Actual: actual, Expected: c.Expected}, nil
}

// Verdict turns a verifier's output into attribute results, each checked
// by the plugin.
func Verdict(p *host.Plugin, out abi.VerifyOutput) []verify.AttributeResult {
	if out.Error != "" {
		return []verify.AttributeResult{{Attribute: "plugin:" + p.Describe().Name, Weight: 1, Check: p.Label(),
			Diff: &verify.Diff{Summary: out.Error}}}
	}
	res := make([]verify.AttributeResult, 0, len(out.Attributes))
	for _, a := range out.Attributes {
		res = append(res, verify.AttributeResult{Attribute: a.Attribute, Actual: a.Actual, Expected: a.Expected,
			Diff: a.Diff, IsCorrect: a.IsCorrect, Weight: a.Weight, Check: p.Label()})
	}
	return res
}

// CallCase is a case as a verify or evaluate call carries it: its expected
// values travel once, as the envelope's top-level `expected`, since every
// byte is decoded again inside the sandbox.
func CallCase(c *cases.Case) (abi.Case, error) {
	ac, err := ABICase(c)
	ac.Expected = nil
	return ac, err
}

// ABICase converts an engine case to its envelope form. Input files carry
// their content, so one copied from a problem file at run time
// (cases.InputFile.From) is read here; a read that fails is an error.
func ABICase(c *cases.Case) (abi.Case, error) {
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

// ProblemAssets are the files of a problem directory as plugins read them
// through read_asset: read-only, relative paths only, no escapes, at most
// the host's cap. An empty dir gives no assets.
func ProblemAssets(dir string) host.Assets {
	if dir == "" {
		return nil
	}
	return problemAssets(dir)
}

type problemAssets string

func (d problemAssets) ReadAsset(path string, max int64) ([]byte, error) {
	return workspace.ReadFile(string(d), path, max)
}
