package evalcases

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/checkspec"
	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/frontend/agentconfig"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/workspace/confine"
)

// DefaultTimeout bounds each query when the config sets no timeout.
const DefaultTimeout = 2 * time.Minute

// MaxDatasetBytes refuses larger datasets before reading them.
const MaxDatasetBytes = 64 << 20

// Names of the one checkpoint and group a dataset becomes, and of the
// loader the group names.
const (
	CheckpointName = "eval-cases"
	GroupName      = "cases"
	LoaderName     = "eval-cases"
)

// Empty-list meanings of expected_tools (checkspec's tools `empty`).
const (
	EmptyToolsNoCheck = "no-check"
	EmptyToolsNoCalls = "no-calls"
)

// rawConfig is the optional YAML config that names a dataset; unknown
// keys are errors.
type rawConfig struct {
	Name    string             `yaml:"name"`
	Dataset string             `yaml:"dataset"`
	Agent   *agentconfig.Agent `yaml:"agent"`
	// Timeout is each query's limit in seconds.
	Timeout *float64 `yaml:"timeout"`
	// EmptyTools is what `expected_tools: []` means: no-check (default)
	// or no-calls.
	EmptyTools string `yaml:"empty_tools"`
	// Disclaimers replaces the default phrases of which a reply must
	// carry one when expected_flags has can_diagnose: false.
	Disclaimers []string `yaml:"disclaimers"`
	// ToolsMatch is how expected_tools compares with the calls made:
	// all (default), exact, in-order, any.
	ToolsMatch string `yaml:"tools_match"`
	// History is where every run's results land, relative to the
	// config (default: history beside the dataset).
	History string `yaml:"history"`
}

// Options tune loading.
type Options struct {
	MountRoots []string
	// Shipped: the coordinator's paths and their copies on a
	// distributed run's worker (see problem.Options.Shipped).
	Shipped *confine.Shipped
	// Results scores results recorded in this directory, one
	// <case id>.json per case, instead of running the agent.
	Results string
	// Tags keeps only the cases with one of these tags (--tag); none
	// given keeps every case.
	Tags []string
}

// Dataset is a loaded dataset.
type Dataset struct {
	Problem *problem.Problem
	Cases   []*cases.Case
	// History is the directory every run's results are added to.
	History string
}

// IsConfig says whether path is a YAML config naming a dataset.
func IsConfig(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".yaml" && ext != ".yml" {
		return false
	}
	data, err := os.ReadFile(path)
	return err == nil && strings.Contains(string(data), "dataset:")
}

// IsDataset says whether path is a dataset file (a .json file).
func IsDataset(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && strings.EqualFold(filepath.Ext(path), ".json")
}

// Load reads a dataset named directly (a .json file) or through a YAML
// config. Every problem is reported at once.
func Load(path string, opts Options) (*Dataset, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(abs)
	files, err := confine.NewShipped(dir, opts.Shipped, opts.MountRoots...)
	if err != nil {
		return nil, err
	}
	var errs diag.List
	digest := sha256.New()
	read := &agentconfig.Files{Tree: files, Digest: digest, Errs: &errs}
	var cfg rawConfig
	dataset := abs
	if IsConfig(abs) {
		if _, ok := read.DecodeYAML(abs, &cfg); !ok {
			// Not YAML: what it would have said is unknown, and a
			// "dataset: required" beside the syntax error would be wrong.
			return nil, errs.Err()
		}
		if cfg.Dataset == "" {
			errs.Add(abs, "dataset", 0, "required: the dataset file (a JSON list of eval cases), relative to this file")
			return nil, errs.Err()
		}
		dataset = files.Abs(cfg.Dataset)
	}
	d := &Dataset{}
	p := &problem.Problem{Name: cfg.Name, Version: 1, Dir: dir, File: abs, Path: abs, Files: files, OutputCap: problem.DefaultOutputCap}
	if p.Name == "" {
		p.Name = strings.TrimSuffix(filepath.Base(dataset), filepath.Ext(dataset))
	}
	agentconfig.Apply(p, cfg.Agent, opts.Results, abs, &errs)
	timeout := DefaultTimeout
	if cfg.Timeout != nil {
		if *cfg.Timeout <= 0 {
			errs.Add(abs, "timeout", 0, "expected a positive number of seconds, got %v", *cfg.Timeout)
		} else {
			timeout = agentconfig.Seconds(*cfg.Timeout)
		}
	}
	oneOf := func(key, v string, valid ...string) {
		for _, x := range valid {
			if v == x {
				return
			}
		}
		errs.Add(abs, key, 0, "expected one of %s, got %q", strings.Join(valid, ", "), v)
	}
	if cfg.EmptyTools == "" {
		cfg.EmptyTools = EmptyToolsNoCheck
	}
	oneOf("empty_tools", cfg.EmptyTools, EmptyToolsNoCheck, EmptyToolsNoCalls)
	if cfg.ToolsMatch != "" {
		oneOf("tools_match", cfg.ToolsMatch, "all", "exact", "in-order", "any")
	}
	for i, ph := range cfg.Disclaimers {
		if strings.TrimSpace(ph) == "" {
			errs.Add(abs, diag.IndexPath("disclaimers", i), 0, "expected a non-empty phrase")
		}
	}
	d.History = filepath.Join(filepath.Dir(dataset), "history")
	if cfg.History != "" {
		d.History = confinedHistory(files, abs, cfg.History, &errs)
	}
	if data, ok := read.Read(dataset, MaxDatasetBytes); ok {
		entries := Parse(dataset, data, &errs)
		d.Cases = buildCases(dataset, entries, cfg, timeout, &errs)
		if len(opts.Tags) > 0 {
			d.Cases = slices.DeleteFunc(d.Cases, func(c *cases.Case) bool {
				return !slices.ContainsFunc(c.Task.Tags, func(t string) bool { return slices.Contains(opts.Tags, t) })
			})
			if len(d.Cases) == 0 && len(entries) > 0 {
				errs.Add(dataset, "", 0, "no case has the tags asked for (%s)", strings.Join(opts.Tags, ", "))
			}
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	order := make([]string, len(d.Cases))
	for i, c := range d.Cases {
		order[i] = c.ID
	}
	// No checkpoint directory: the dataset's bytes are the problem's
	// digest, and what else lies beside it (agents, the history, run
	// directories) is not the problem's.
	p.Checkpoints = []*problem.Checkpoint{{
		Name: CheckpointName, Order: 1, Version: 1, Timeout: timeout,
		Groups: []*problem.Group{{
			Name: GroupName, Type: problem.Core, CaseOrder: order, Isolated: true, Timeout: timeout,
			Loader: LoaderName, CasesDir: dir, CaseGroup: GroupName, File: dataset,
		}},
	}}
	p.Digest = hex.EncodeToString(digest.Sum(nil))
	d.Problem = p
	return d, nil
}

// buildCases maps the entries onto cases: the query as the agent's
// instruction, each expectation as a check of the agent's result.
func buildCases(file string, entries []Entry, cfg rawConfig, timeout time.Duration, errs *diag.List) []*cases.Case {
	out := make([]*cases.Case, 0, len(entries))
	seen := map[string]int{}
	for _, e := range entries {
		i := e.Index
		id := e.ID
		if id == "" {
			id = fmt.Sprintf("case-%03d", i+1)
		}
		if err := problem.CheckName(id); err != nil {
			errs.Add(file, diag.JoinPath(diag.IndexPath("", i), "id"), 0, "case %v", err)
		}
		if j, dup := seen[id]; dup {
			errs.Add(file, diag.JoinPath(diag.IndexPath("", i), "id"), 0, "id %q is also the id of entry %d; ids must be unique", id, j)
		}
		seen[id] = i
		meta := map[string]any{}
		for k, v := range e.Metadata {
			meta[k] = v
		}
		if e.Category != "" {
			meta["category"] = e.Category
		}
		if len(meta) == 0 {
			meta = nil
		}
		c := &cases.Case{
			ID: id, Checkpoint: CheckpointName, Group: GroupName, GroupType: problem.Core,
			Arguments: []string{}, Timeout: timeout, Source: fmt.Sprintf("%s[%d]", file, i),
			Task:   &cases.Task{Name: id, Instruction: e.Query, Metadata: meta, Category: e.Category, Tags: e.Tags},
			Checks: checksOf(e, cfg),
		}
		if len(c.Checks) == 0 {
			errs.Add(file, diag.IndexPath("", i), 0, "entry %s expects nothing: give at least one of expected_tools, expected_output_contains, expected_flags, expected_tool_output", id)
		}
		out = append(out, c)
	}
	return out
}

// checksOf turns an entry's expectations into built-in checks.
func checksOf(e Entry, cfg rawConfig) []checkspec.CheckSpec {
	var out []checkspec.CheckSpec
	if e.ExpectedTools != nil {
		values := make([]any, len(e.ExpectedTools))
		for i, t := range e.ExpectedTools {
			values[i] = t
		}
		switch {
		case len(values) > 0:
			out = append(out, checkspec.CheckSpec{Kind: "tools", Values: values, Match: cfg.ToolsMatch})
		case cfg.EmptyTools == EmptyToolsNoCalls:
			out = append(out, checkspec.CheckSpec{Kind: "tools", Values: values, Empty: EmptyToolsNoCalls})
		}
	}
	if len(e.ExpectedOutputContains) > 0 {
		values := make([]any, len(e.ExpectedOutputContains))
		for i, t := range e.ExpectedOutputContains {
			values[i] = t
		}
		out = append(out, checkspec.CheckSpec{Kind: "contains-any", Attribute: "answer", Values: values, IgnoreCase: true})
	}
	if e.ExpectedFlags != nil {
		out = append(out, checkspec.CheckSpec{Kind: "flags", Value: e.ExpectedFlags, Phrases: cfg.Disclaimers})
	}
	if e.ExpectedToolOutput != nil {
		out = append(out, checkspec.CheckSpec{Kind: "tool-output", Value: e.ExpectedToolOutput})
	}
	return out
}

// Loader returns the dataset's loader for name (LoaderName).
func (d *Dataset) Loader(name string) (cases.Loader, bool) {
	l := &cases.Listed{Layout: "eval-case dataset (a JSON list of cases)", Groups: map[string][]*cases.Case{GroupName: d.Cases}}
	return l.Named(LoaderName)(name)
}

// confinedHistory is the history directory a config names: inside the
// config's directory, as the dataset is, since runs write there and a
// config is a file others hand over. The part of it that exists already
// must not lead out through a symlink either.
func confinedHistory(files *confine.Tree, file, dir string, errs *diag.List) string {
	if !filepath.IsLocal(filepath.FromSlash(dir)) {
		errs.Add(file, "history", 0, "expected a directory inside this file's directory (a relative path without ..), got %q", dir)
		return ""
	}
	p := files.Abs(dir)
	for existing := p; ; existing = filepath.Dir(existing) {
		if _, err := os.Lstat(existing); err == nil {
			if _, err := files.Resolve(existing); err != nil {
				errs.Add(file, "history", 0, "%v", err)
			}
			return p
		}
		if existing == files.Dir() || filepath.Dir(existing) == existing {
			return p
		}
	}
}
