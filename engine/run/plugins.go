package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wasmeval/wasmeval/engine/agent"
	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/checkspec"
	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/plugincall"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/verify"
	"github.com/wasmeval/wasmeval/engine/workspace/confine"
	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// pluginSet holds the plugins a problem references, loaded (compiled and
// checked) before any case runs, so a missing, changed or broken plugin is
// a configuration error rather than a run full of failures.
type pluginSet struct {
	h   *host.Host
	dir string // the problem directory: plugins read their assets here
	// problem confines the plugin paths it writes (its Files) and binds
	// the plugins its cases name by name or reference.
	problem *problem.Problem
	// shipped are the plugins a distributed run's coordinator sent, by
	// sha256 (problem.Problem.ShippedPlugins); nil outside a worker.
	shipped map[string]string
	// cache answers the calls made before (nil: none); see verdictcache.go.
	cache *verdictCache
	// verifying is the time spent in verifyCases, summed over the groups
	// verified at once (what BenchmarkVerdictCache compares); loading
	// the time spent loading plugins (host.Load: with worker processes,
	// starting the first worker, unless the plugin's describe answer was
	// cached), which BenchmarkVerdictCache counts with it.
	verifying atomic.Int64
	loading   atomic.Int64

	mu     sync.Mutex
	byPath map[string]*host.Plugin
}

func newPluginSet(h *host.Host, p *problem.Problem) *pluginSet {
	return &pluginSet{h: h, dir: p.Dir, problem: p, shipped: p.ShippedPlugins, byPath: map[string]*host.Plugin{}}
}

// get loads (once) the plugin a reference names and checks it has kind.
func (s *pluginSet) get(ctx context.Context, ref *problem.PluginRef, kind string) (*host.Plugin, error) {
	if s == nil || s.h == nil {
		return nil, fmt.Errorf("this run has no plugin host")
	}
	if ref.SHA256 == "" {
		// Problem-level references are checked when the problem loads;
		// this catches references written in case files.
		return nil, fmt.Errorf("plugin %s is not pinned: add its sha256", problem.AsWritten(ref))
	}
	// Keyed by the binding as written and its pin, so that finding the
	// file (below) is done once, not on every case's call, and a binding
	// that names a file another binding loaded, with another sha256,
	// loads it again and is refused rather than handed the module the
	// first one pinned. A mock's every call is a submission's request
	// waiting on it, one at a time: it runs in process, where a call
	// costs no round trip to a worker (host.LoadInProcess).
	load, key := s.h.Load, ref.Path+"\x00"+ref.Name+"\x00"+ref.Ref+"\x00"+strings.ToLower(ref.SHA256)
	if kind == abi.KindMock {
		load, key = s.h.LoadInProcess, "mock\x00"+key
	}
	s.mu.Lock()
	p, ok := s.byPath[key]
	s.mu.Unlock()
	if !ok {
		bound, path, shippedMissing, err := s.locate(ref)
		if err != nil {
			return nil, err
		}
		start := time.Now()
		p, err = load(ctx, path, bound.SHA256)
		s.loading.Add(int64(time.Since(start)))
		if err != nil && shippedMissing && errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("plugin %s (sha256 %s) lies outside the problem directory, the run's coordinator did not send it and this worker does not have it: %w", bound.Path, bound.SHA256, err)
		}
		if err != nil && ref.Ref != "" {
			// The path is a cache blob's, which tells the user nothing.
			return nil, fmt.Errorf("plugin %s: %w", ref.Ref, err)
		}
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		s.byPath[key] = p
		s.mu.Unlock()
	}
	if !p.HasKind(kind) {
		return nil, fmt.Errorf("plugin %s is not %s (it declares %v)", p.Label(), host.KindName(kind), p.Describe().Kinds)
	}
	return p, nil
}

// locate finds the file of the plugin ref binds: ref resolved (a case's
// binding by name or reference), the file's path, and whether it lies
// outside the problem on a worker that was not sent it.
func (s *pluginSet) locate(ref *problem.PluginRef) (bound *problem.PluginRef, path string, shippedMissing bool, err error) {
	if ref.Path == "" {
		// Bound by name or reference in a case (validation resolved it
		// already for every case it could load; a stateful loader's later
		// cases are resolved here).
		file, key := ref.At.File, ref.At.Key
		if file == "" {
			file, key = "case", "plugin"
		}
		if ref, err = s.problem.BindCasePlugin(file, key, ref); err != nil {
			return nil, "", false, err
		}
	}
	path = ref.Path
	if !filepath.IsAbs(path) {
		path = filepath.Join(s.dir, filepath.FromSlash(path))
	}
	// On a worker of a distributed run, a plugin a case binds from
	// outside the problem is the file the coordinator sent.
	if file, ok := problem.ShippedFile(s.shipped, s.dir, filepath.Clean(path), ref.SHA256); ok {
		return ref, file, false, nil
	}
	if s.shipped != nil && !confine.Within(s.dir, filepath.Clean(path)) {
		return ref, path, true, nil
	}
	if ref.Name == "" && ref.Ref == "" && s.problem.Files != nil && !s.problem.GivenPlugins[filepath.Clean(path)] {
		// A path the problem wrote (a case file's or a loader plugin's
		// check, known only now) follows the rule every path of the
		// problem does: inside its directory or a --mount-root, symlinks
		// resolved. Without it a shared case file could have the host
		// read and hash any file of this machine.
		real, err := s.problem.Files.Resolve(ref.Path)
		if err != nil {
			return nil, "", false, fmt.Errorf("plugin %s: %w", ref.Path, err)
		}
		path = real
	}
	return ref, path, false, nil
}

// loaderFor picks a group's loader: its loader plugin, or a built-in.
func (s *pluginSet) loaderFor(ctx context.Context, g *problem.Group, builtin func(string) (cases.Loader, bool)) (cases.Loader, error) {
	if g.Loader == problem.LoaderPlugin && g.LoaderRef != nil {
		p, err := s.get(ctx, g.LoaderRef, abi.KindLoader)
		if err != nil {
			return nil, err
		}
		return cases.Checked(&pluginLoader{p: p, ref: g.LoaderRef, dir: s.dir}), nil
	}
	l, ok := builtin(g.Loader)
	if !ok {
		return nil, fmt.Errorf("loader %q is not available", g.Loader)
	}
	// Every loader's cases are held to the same rules (ids, expected
	// values), so a new loader cannot forget them.
	return cases.Checked(l), nil
}

// preload loads every plugin the problem's groups reference and checks
// each binding against what the plugin declares (see checkBinding).
func (s *pluginSet) preload(ctx context.Context, p *problem.Problem) error {
	var errs diag.List
	seen := map[*problem.Group]bool{}
	checked := map[*problem.PluginRef]bool{}
	failed := map[checkspec.Location]bool{}
	bind := func(file, key string, ref *problem.PluginRef, kind, function string) {
		// Where the plugin is named, not each group that inherits it
		// or configures it.
		named := ref.ModuleAt
		if named.File == "" {
			named = ref.At
		}
		if named.File == "" {
			named = checkspec.Location{File: file, Key: key, Line: ref.At.Line}
		}
		if failed[named] {
			return // reported once, where the plugin is named
		}
		pl, err := s.get(ctx, ref, kind)
		if err != nil {
			failed[named] = true
			errs.Add(named.File, named.Key, named.Line, "%v", err)
			return
		}
		if !checked[ref] {
			checked[ref] = true
			errs = append(errs, checkBinding(pl, ref, function)...)
			warnUncheckedConfig(ctx, pl, ref)
		}
	}
	for _, cp := range p.Checkpoints {
		for _, g := range cp.Groups {
			if seen[g] {
				continue
			}
			seen[g] = true
			at := func(key string) string { return diag.JoinPath(g.Path, key) }
			if g.Verifier != nil {
				bind(g.File, at("verifier"), g.Verifier, abi.KindVerifier, "")
			}
			if g.LoaderRef != nil {
				bind(g.File, at("loader"), g.LoaderRef, abi.KindLoader, "")
			}
			for _, m := range g.Mocks {
				if m.Plugin != nil {
					bind(m.File, diag.JoinPath(m.Key, "plugin"), m.Plugin, abi.KindMock, "")
				}
			}
			for i, c := range g.Checks {
				if c.Plugin != nil {
					kind := abi.KindEvaluator
					if c.Kind == "test" {
						kind = abi.KindTest
					}
					bind(g.File, diag.IndexPath(at("checks"), i)+".plugin", c.Plugin, kind, c.Function)
				}
				// An evaluators check's calls, as a case file's are
				// (GroupCheck.addPlugins): a misnamed function would
				// otherwise fail every case as a wrong answer.
				for j, call := range c.Calls {
					if call.Plugin != nil {
						bind(g.File, diag.IndexPath(diag.IndexPath(at("checks"), i)+".calls", j)+".plugin", call.Plugin, abi.KindEvaluator, call.Function)
					}
				}
			}
		}
	}
	return errs.Err()
}

// checkBinding checks a binding against what its plugin declares, so a
// mistake in config is reported before anything runs, where it is
// written: the binding's config must satisfy the plugin's config_schema,
// and an evaluator check must name one of the plugin's functions (when
// the plugin lists them).
func checkBinding(p *host.Plugin, ref *problem.PluginRef, function string) diag.List {
	var errs diag.List
	d := p.Describe()
	if function != "" && len(d.Functions) > 0 && !slices.Contains(d.Functions, function) {
		errs.Add(ref.At.File, strings.TrimSuffix(ref.At.Key, ".plugin")+".function", ref.At.Line,
			"plugin %s has no function %q (its functions: %s)", p.Label(), function, strings.Join(d.Functions, ", "))
	}
	if len(d.ConfigSchema) == 0 || string(d.ConfigSchema) == "null" {
		return errs
	}
	key := diag.JoinPath(ref.At.Key, "config")
	schema, err := verify.CompileSchema(string(d.ConfigSchema))
	if err != nil {
		errs.Add(ref.At.File, key, ref.At.Line, "plugin %s declares a config_schema that is not a valid JSON Schema: %v", p.Label(), err)
		return errs
	}
	config := ref.Config
	if config == nil {
		config = map[string]any{}
	}
	raw, err := json.Marshal(config)
	if err != nil {
		errs.Add(ref.At.File, key, ref.At.Line, "cannot be passed to a plugin as JSON: %v", err)
		return errs
	}
	_, violations, err := schema.Validate(string(raw))
	if err != nil {
		errs.Add(ref.At.File, key, ref.At.Line, "%v", err)
		return errs
	}
	if len(violations) > 0 {
		var msgs []string
		for _, v := range violations {
			where := "/" + strings.Join(v.Location, "/")
			msgs = append(msgs, where+": "+v.Message)
		}
		errs.Add(ref.At.File, key, ref.At.Line, "plugin %s refuses this config (its config_schema): %s", p.Label(), strings.Join(msgs, "; "))
	}
	return errs
}

// warnUncheckedConfig warns of a binding whose config has keys that its
// plugin cannot have checked, as it declares no config_schema: a
// misspelt key would be ignored without a word. A warning, not an error:
// a plugin need not declare a schema.
func warnUncheckedConfig(ctx context.Context, p *host.Plugin, ref *problem.PluginRef) {
	d := p.Describe()
	if len(ref.Config) == 0 || (len(d.ConfigSchema) > 0 && string(d.ConfigSchema) != "null") {
		return
	}
	keys := slices.Sorted(maps.Keys(ref.Config))
	warn(ctx, ref.At.File, diag.JoinPath(ref.At.Key, "config"), ref.At.Line,
		"plugin %s declares no config_schema, so its config keys (%s) cannot be checked: a misspelt key is ignored", p.Label(), strings.Join(keys, ", "))
}

// caseVerdict is what a case's checks and plugins made of it: its
// attributes; the plugin faults, joined ("" when none), which the record
// flags; and why a plugin left it unscored ("" when none did).
type caseVerdict struct {
	attrs    []verify.AttributeResult
	fault    string
	unscored string
}

// verifyCase runs a case's checks and the group's verifier plugin. A plugin
// fault becomes an incorrect attribute naming the plugin and what went
// wrong, and is returned so the record can flag it; other cases are not
// affected.
//
// sandbox is the workspace the case ran in, still as the case left it:
// test functions read the files an agent left there through read_asset,
// read-only. Empty where no workspace exists (rescoring a journal); then
// read_asset reads the problem's files, as for every other plugin.
func (s *pluginSet) verifyCase(ctx context.Context, g *problem.Group, c *cases.Case, actual verify.Actual, env verify.Env, sandbox string) caseVerdict {
	return s.verifyCases(ctx, g, []*cases.Case{c}, []verify.Actual{actual}, nil, nil, env, sandbox)[0]
}

// verifyCases is verifyCase for many cases of one group at once: the
// group's verifier plugin gets them in as few calls as it allows (batches,
// docs/plugin-abi.md), and each case's verdict and fault are the ones
// verifyCase gives it alone. elapsed, when not nil, is each case's
// elapsed seconds (for the latency check), in place of env.Elapsed.
//
// parsed, when not nil, is each agent case's output already parsed as
// an agent result (nil where it is none), so it is not parsed again.
func (s *pluginSet) verifyCases(ctx context.Context, g *problem.Group, cs []*cases.Case, actuals []verify.Actual, elapsed []float64, parsed []*agent.Result, env verify.Env, sandbox string) []caseVerdict {
	start := time.Now()
	defer func() { s.verifying.Add(int64(time.Since(start))) }()
	attrs := make([][]verify.AttributeResult, len(cs))
	faults := make([][]string, len(cs))
	unscored := make([]string, len(cs))
	// fault records a plugin's fault as the attribute it left without a
	// verdict, with the weight the check declared, so the case's score
	// weighs it as it would have weighed the verdict.
	fault := func(i int, attr string, weight float64, err error) {
		faults[i] = append(faults[i], err.Error())
		attrs[i] = append(attrs[i], verify.AttributeResult{Attribute: attr, Weight: weight, Check: "plugin",
			Diff: &verify.Diff{Summary: err.Error()}})
	}
	opts := host.CallOptions{Assets: plugincall.ProblemAssets(s.dir), Cache: s.cache.forCalls(ctx)}
	testOpts := opts
	if sandbox != "" {
		testOpts.Assets = plugincall.ProblemAssets(sandbox)
	}
	var tests []*testCall
	for i, c := range cs {
		checks := c.Checks
		if len(checks) == 0 && g.Verifier == nil {
			checks = verify.DefaultChecks(c.Expected)
		}
		attrs[i] = make([]verify.AttributeResult, 0, len(checks)+1)
		caseEnv := env
		if elapsed != nil {
			caseEnv.Elapsed = &elapsed[i]
		}
		// An agent case's output is the agent's result: parsed once for
		// every check that reads it. Output that is not a result leaves
		// Agent nil, and those checks say so.
		if parsed != nil {
			caseEnv.Agent = parsed[i]
		} else if c.Task != nil && caseEnv.Agent == nil {
			caseEnv.Agent, _ = agent.Parse([]byte(actuals[i].Output), agent.Options{Source: "the agent's result"})
		}
		for _, spec := range checks {
			if spec.Kind == "test" {
				call, res, err := s.prepareTest(ctx, spec, actuals[i], caseEnv.Agent)
				if err != nil {
					fault(i, verify.AttributeOf(spec), spec.WeightOr(1), err)
					continue
				}
				if call != nil {
					call.i, call.slot = i, len(attrs[i])
					tests = append(tests, call)
				}
				attrs[i] = append(attrs[i], res)
				continue
			}
			if spec.Kind == "evaluators" {
				res, why, err := s.evaluateAll(ctx, spec, c, actuals[i], opts)
				if err != nil {
					fault(i, verify.AttributeOf(spec), spec.WeightOr(1), err)
					continue
				}
				if why != "" && unscored[i] == "" {
					unscored[i] = why
				}
				attrs[i] = append(attrs[i], res)
				continue
			}
			if spec.Kind != "evaluator" {
				attrs[i] = append(attrs[i], verify.Run(spec, actuals[i], c.Expected, caseEnv))
				continue
			}
			attr := spec.Attribute
			if attr == "" {
				attr = "evaluator:" + spec.Function
			}
			out, label, err := s.evaluate(ctx, spec, c, actuals[i], opts)
			if err != nil {
				fault(i, attr, spec.WeightOr(1), err)
				continue
			}
			if out.Unscored != "" && unscored[i] == "" {
				unscored[i] = label + ": " + out.Unscored
			}
			attrs[i] = append(attrs[i], evaluatorVerdict(attr, spec, label, out))
		}
	}
	if len(tests) > 0 {
		outs, errs := runTests(ctx, tests, testOpts)
		for k, c := range tests {
			if errs[k] != nil {
				faults[c.i] = append(faults[c.i], errs[k].Error())
				attrs[c.i][c.slot] = verify.AttributeResult{Attribute: c.res.Attribute, Weight: c.res.Weight, Check: "plugin",
					Diff: &verify.Diff{Summary: errs[k].Error()}}
				continue
			}
			res, why := c.verdict(outs[k])
			attrs[c.i][c.slot] = res
			if why != "" && unscored[c.i] == "" {
				unscored[c.i] = why
			}
		}
	}
	if g.Verifier != nil {
		p, err := s.get(ctx, g.Verifier, abi.KindVerifier)
		if err != nil {
			for i := range cs {
				fault(i, "plugin:verifier", 1, err)
			}
		} else {
			got, why, errs := plugincall.VerifyBatch(ctx, p, cs, actuals, g.Verifier.Config, opts)
			for i := range cs {
				if errs[i] != nil {
					fault(i, "plugin:verifier", 1, errs[i])
					continue
				}
				attrs[i] = append(attrs[i], got[i]...)
				if why[i] != "" && unscored[i] == "" {
					unscored[i] = p.Label() + ": " + why[i]
				}
			}
		}
	}
	out := make([]caseVerdict, len(cs))
	for i := range out {
		out[i] = caseVerdict{attrs: attrs[i], fault: joinFaults(faults[i]), unscored: unscored[i]}
	}
	return out
}

// evaluate calls an evaluator check's function on one case.
func (s *pluginSet) evaluate(ctx context.Context, spec problem.CheckSpec, c *cases.Case, actual verify.Actual, opts host.CallOptions) (abi.EvaluateOutput, string, error) {
	p, err := s.get(ctx, spec.Plugin, abi.KindEvaluator)
	if err != nil {
		return abi.EvaluateOutput{}, "", err
	}
	ac, err := plugincall.CallCase(c)
	if err != nil {
		return abi.EvaluateOutput{}, "", err
	}
	out, err := p.Evaluate(ctx, abi.EvaluateInput{Config: spec.Plugin.Config, Function: spec.Function,
		Arguments: spec.Arguments, Case: &ac, Actual: &actual, Expected: c.Expected}, opts)
	return out, p.Label(), err
}

// evaluateAll runs an evaluators check: every call, its scores combined
// by the check's conj ("and": 0 when any call scores 0, else the mean;
// "or": the highest) into one attribute, correct when the combined score
// reaches pass_score (default 1). A call that cannot evaluate (a plugin
// fault, or an error it reports) makes the whole check a fault: the
// task's evaluation could not run, which is not a score of 0.
func (s *pluginSet) evaluateAll(ctx context.Context, spec problem.CheckSpec, c *cases.Case, actual verify.Actual, opts host.CallOptions) (verify.AttributeResult, string, error) {
	attr := verify.AttributeOf(spec)
	pass := 1.0
	if spec.PassScore != nil {
		pass = *spec.PassScore
	}
	scores := make([]float64, 0, len(spec.Calls))
	details := make([]any, 0, len(spec.Calls))
	why := ""
	for _, call := range spec.Calls {
		one := problem.CheckSpec{Kind: "evaluator", Plugin: call.Plugin, Function: call.Function, Arguments: call.Arguments}
		out, label, err := s.evaluate(ctx, one, c, actual, opts)
		if err != nil {
			return verify.AttributeResult{}, "", fmt.Errorf("%s: %w", call.Function, err)
		}
		if out.Error != "" {
			return verify.AttributeResult{}, "", fmt.Errorf("%s (%s): %s", call.Function, label, out.Error)
		}
		if out.Unscored != "" && why == "" {
			why = label + ": " + out.Unscored
		}
		scores = append(scores, out.Score)
		details = append(details, map[string]any{"function": call.Function, "score": out.Score, "details": out.Details})
	}
	score := CombineScores(spec.Conj, scores)
	res := verify.AttributeResult{Attribute: attr, Actual: score, Expected: pass, Weight: spec.WeightOr(1),
		Check: "evaluators (" + spec.Conj + ")", IsCorrect: score >= pass}
	if !res.IsCorrect {
		res.Diff = &verify.Diff{Summary: fmt.Sprintf("the evaluation scored %.4g (%s of %d), needs %.4g", score, spec.Conj, len(scores), pass),
			Entries: []verify.DiffEntry{{Path: attr, Op: "mismatch", Expected: pass, Actual: details}}}
	}
	return res, why, nil
}

// CombineScores combines evaluator scores: "and" gives 0 when any score
// is 0 and the mean otherwise; "or" the highest. No scores give 0.
func CombineScores(conj string, scores []float64) float64 {
	if len(scores) == 0 {
		return 0
	}
	if conj == "or" {
		best := scores[0]
		for _, v := range scores[1:] {
			best = max(best, v)
		}
		return best
	}
	sum := 0.0
	for _, v := range scores {
		if v == 0 {
			return 0
		}
		sum += v
	}
	return sum / float64(len(scores))
}

// testCall is one case's test check waiting for its test function's
// verdict: verifyCases gathers a group's calls to the same plugin and
// makes them in as few calls as the plugin allows (test_batch).
type testCall struct {
	// i is the case, slot the attribute's place among its attributes.
	i, slot int
	p       *host.Plugin
	res     verify.AttributeResult
	in      abi.TestInput
}

// prepareTest readies a test check of one case: the attribute's value is
// read as an agent's result JSON (engine/agent) for the test-function
// plugin to judge. A value that is not a result is the agent's failure,
// decided here: res is then the attribute's verdict and call nil, the
// plugin not called. Only the plugin's own faults are errors.
//
// parsed is the case's output already parsed as an agent result (nil
// when it is not one, or not an agent case).
func (s *pluginSet) prepareTest(ctx context.Context, spec problem.CheckSpec, actual verify.Actual, parsed *agent.Result) (call *testCall, res verify.AttributeResult, err error) {
	p, err := s.get(ctx, spec.Plugin, abi.KindTest)
	if err != nil {
		return nil, res, err
	}
	attr := verify.AttributeOf(spec)
	res = verify.AttributeResult{Attribute: attr, Expected: "passed", Weight: spec.WeightOr(1), Check: p.Label()}
	run, msg := parsed, ""
	if attr != "output" || parsed == nil {
		run, msg = agentResult(actual, attr)
	}
	if msg != "" {
		res.Actual = msg
		res.Diff = &verify.Diff{Summary: msg, Entries: []verify.DiffEntry{{Path: attr, Op: "mismatch", Expected: "an agent result", Actual: msg}}}
		return nil, res, nil
	}
	return &testCall{p: p, res: res, in: abi.TestInput{ABIVersion: abi.Version, Config: spec.Plugin.Config, Result: run.AgentRun()}}, res, nil
}

// verdict is the attribute a test function's output gives the call, and
// why the plugin left the case unscored ("" when it judged it).
func (c *testCall) verdict(out abi.TestOutput) (verify.AttributeResult, string) {
	res, why := c.res, ""
	res.Actual, res.IsCorrect = out.Details, out.Passed
	if out.Unscored != "" {
		why = c.p.Label() + ": " + out.Unscored
	}
	if !out.Passed {
		summary := out.Feedback
		switch {
		case summary != "":
		case out.Unscored != "":
			summary = "not judged: " + out.Unscored
		default:
			summary = "the test function did not pass the result (it gave no feedback)"
		}
		res.Diff = &verify.Diff{Summary: summary, Entries: []verify.DiffEntry{{Path: res.Attribute, Op: "mismatch", Expected: "passed", Actual: out.Details}}}
	}
	return res, why
}

// runTests makes the calls, those to one plugin together, and returns
// each call's output and fault in order.
func runTests(ctx context.Context, calls []*testCall, opts host.CallOptions) ([]abi.TestOutput, []error) {
	outs := make([]abi.TestOutput, len(calls))
	errs := make([]error, len(calls))
	byPlugin := map[*host.Plugin][]int{}
	var order []*host.Plugin
	for k, c := range calls {
		if _, seen := byPlugin[c.p]; !seen {
			order = append(order, c.p)
		}
		byPlugin[c.p] = append(byPlugin[c.p], k)
	}
	for _, p := range order {
		ks := byPlugin[p]
		if len(ks) == 1 {
			c := calls[ks[0]]
			outs[ks[0]], errs[ks[0]] = p.Test(ctx, c.in.Result, c.in.Config, opts)
			continue
		}
		ins := make([]abi.TestInput, len(ks))
		for j, k := range ks {
			ins[j] = calls[k].in
		}
		got, gotErrs := p.TestBatch(ctx, ins, opts)
		for j, k := range ks {
			outs[k], errs[k] = got[j], gotErrs[j]
		}
	}
	return outs, errs
}

// agentResult parses an attribute's value as an agent's result JSON, or
// says why it is not one.
func agentResult(actual verify.Actual, attr string) (*agent.Result, string) {
	source := attr
	if path, ok := strings.CutPrefix(attr, "files-"); ok {
		source = path
	}
	v, ok := verify.ActualValue(actual, attr)
	var data []byte
	switch t := v.(type) {
	case string:
		data = []byte(t)
	case []byte:
		data = t
	default:
		if !ok {
			return nil, fmt.Sprintf("%s: not written, so there is no agent result to judge", source)
		}
		return nil, fmt.Sprintf("%s: is %T, not an agent result", source, v)
	}
	run, err := agent.Parse(data, agent.Options{Source: source})
	if err != nil {
		return nil, err.Error()
	}
	return run, ""
}

// evaluatorVerdict turns a score into an attribute verdict.
func evaluatorVerdict(attr string, spec problem.CheckSpec, label string, out abi.EvaluateOutput) verify.AttributeResult {
	pass := 1.0
	if spec.PassScore != nil {
		pass = *spec.PassScore
	}
	res := verify.AttributeResult{Attribute: attr, Actual: out.Score, Expected: pass, Weight: spec.WeightOr(1),
		Check: label, IsCorrect: out.Error == "" && out.Score >= pass}
	if !res.IsCorrect {
		summary := fmt.Sprintf("%s scored %.4g, needs %.4g", spec.Function, out.Score, pass)
		if out.Error != "" {
			summary = spec.Function + ": " + out.Error
		}
		res.Diff = &verify.Diff{Summary: summary, Entries: []verify.DiffEntry{{Path: attr, Op: "mismatch", Expected: pass, Actual: out.Details}}}
	}
	return res
}

func joinFaults(f []string) string {
	switch len(f) {
	case 0:
		return ""
	case 1:
		return f[0]
	}
	return fmt.Sprintf("%s (and %d more)", f[0], len(f)-1)
}
