package run

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/plugincall"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// pluginLoader is a cases.Loader backed by a loader plugin. A stateless
// plugin returns every case at once; a stateful one is called again after
// each batch with the group's history, so expected values can come from
// earlier actual results.
type pluginLoader struct {
	p   *host.Plugin
	ref *problem.PluginRef
	dir string
	// firstBatch stops a stateful plugin's stream after the cases it
	// gives before any result (validation has no results to give it).
	firstBatch bool
}

func (l *pluginLoader) Open(ctx context.Context, g cases.GroupInput) (cases.Stream, error) {
	// The group's case_defaults apply to the plugin's cases as to case
	// files': checked once, here, and merged under every case.
	def, err := cases.DefaultCase(g)
	if err != nil {
		return nil, err
	}
	return &pluginStream{l: l, g: g, def: def, info: groupInfo(g)}, nil
}

type pluginStream struct {
	l *pluginLoader
	g cases.GroupInput
	// def is the case the group's case_defaults make (nil for none);
	// info the group as the plugin is told it.
	def     *cases.Case
	info    abi.GroupInfo
	pending []abi.Case
	done    bool
	n       int
	seen    map[string]bool
}

func (s *pluginStream) NeedsHistory() bool { return s.l.p.Describe().Stateful }
func (s *pluginStream) Len() int           { return -1 }
func (s *pluginStream) Close() error       { return nil }

func (s *pluginStream) Next(ctx context.Context, history []cases.Outcome) (*cases.Case, error) {
	for len(s.pending) == 0 {
		if s.done {
			return nil, io.EOF
		}
		in := abi.LoadInput{Config: s.l.ref.Config, Group: s.info, Seed: s.g.Seed}
		for _, h := range history {
			ac, err := plugincall.ABICase(h.Case)
			if err != nil {
				return nil, fmt.Errorf("history for loader plugin: case %s: %w", h.Case.ID, err)
			}
			in.History = append(in.History, abi.Outcome{Case: ac, Actual: h.Actual})
		}
		out, err := s.l.p.LoadCases(ctx, in, host.CallOptions{Assets: plugincall.ProblemAssets(s.l.dir)})
		if err != nil {
			return nil, fmt.Errorf("loader plugin: %w", err)
		}
		if out.Error != "" {
			return nil, fmt.Errorf("loader plugin %s: %s", s.l.p.Label(), out.Error)
		}
		if len(out.Cases) == 0 && !out.Done {
			return nil, fmt.Errorf("loader plugin %s returned no cases and did not say done", s.l.p.Label())
		}
		s.pending, s.done = out.Cases, out.Done || !s.NeedsHistory() || s.l.firstBatch
	}
	ac := s.pending[0]
	s.pending = s.pending[1:]
	c, err := s.fromABI(withDefaults(s.def, s.g, ac))
	if err != nil {
		return nil, &cases.CaseError{ID: ac.ID, Err: err}
	}
	finishDefaults(s.def, ac, c)
	c.Order = s.n
	s.n++
	return c, nil
}

// fromABI turns a plugin's case into an engine case, inheriting the
// group's environment, timeout and checks, and checking its paths.
func (s *pluginStream) fromABI(ac abi.Case) (*cases.Case, error) {
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	if s.seen[ac.ID] {
		return nil, fmt.Errorf("loader plugin %s returned case %q twice", s.l.p.Label(), ac.ID)
	}
	s.seen[ac.ID] = true
	g := s.g
	c := &cases.Case{ID: ac.ID, Checkpoint: g.Checkpoint, Group: g.Group, GroupType: g.GroupType,
		OriginalCheckpoint: g.OriginalCheckpoint, OriginalGroup: g.OriginalGroup,
		Arguments: ac.Arguments, Stdin: ac.Stdin, Env: map[string]string{}, Timeout: g.Timeout,
		Expected: ac.Expected, Checks: g.Checks, Reset: ac.Reset, Extra: ac.Extra,
		Source: s.l.p.File()}
	if c.Arguments == nil {
		c.Arguments = []string{}
	}
	for k, v := range g.Env {
		c.Env[k] = v
	}
	for k, v := range ac.Env {
		c.Env[k] = v
	}
	if ac.TimeoutS > 0 {
		c.Timeout = problem.Seconds(ac.TimeoutS)
	}
	// Every problem of the case is reported, not only the first.
	var bad []string
	for i, f := range ac.InputFiles {
		if err := cases.CheckRelPath(f.Path); err != nil {
			bad = append(bad, fmt.Sprintf("input_files[%d].path: %v", i, err))
			continue
		}
		content := []byte(f.Content)
		if f.Encoding == "base64" {
			var err error
			if content, err = base64.StdEncoding.DecodeString(f.Content); err != nil {
				bad = append(bad, fmt.Sprintf("input_files[%d].content: %v", i, err))
				continue
			}
		}
		c.InputFiles = append(c.InputFiles, cases.InputFile{Path: f.Path, Content: content})
	}
	if ac.Request != nil {
		req, err := cases.DecodeRequest(ac.Request, s.l.p.Label(), "request")
		if err != nil {
			bad = append(bad, err.Error())
		}
		c.Request = req
	}
	if ac.Steps != nil {
		steps, err := cases.DecodeSteps(ac.Steps, s.l.p.Label(), "steps")
		if err != nil {
			bad = append(bad, err.Error())
		}
		c.Steps = steps
	}
	c.TrackedFiles = append(append([]string{}, g.TrackedFiles...), ac.TrackedFiles...)
	for i, t := range ac.TrackedFiles {
		if err := cases.CheckRelPath(t); err != nil {
			bad = append(bad, fmt.Sprintf("tracked_files[%d]: %v", i, err))
		}
	}
	if len(bad) > 0 {
		return nil, errors.New(strings.Join(bad, "; "))
	}
	return c, nil
}
