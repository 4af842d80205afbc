// Package agentconfig is what the agent front-ends (task directories,
// eval-case datasets, task specs) share: the `agent:` block — how the
// agent, the submission, is started, and the agent adapter that follows
// from it — and how their own files are read (Files).
package agentconfig

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/problem"
)

// Agent is `agent:` as written; unknown keys are errors.
type Agent struct {
	// EntryFile is the submission file that starts the agent; Command the
	// template ("python3 {entry_file}"), as in a problem's config.
	EntryFile string `yaml:"entry_file"`
	Command   string `yaml:"command"`
	// Endpoint makes the agent an HTTP server, started once per group:
	// each case's request is POSTed to this path. Arguments are added to
	// its command ({{host}} and {{port}} substituted).
	Endpoint    string       `yaml:"endpoint"`
	Arguments   []string     `yaml:"arguments"`
	HealthCheck *HealthCheck `yaml:"health_check"`
}

// HealthCheck is how the agent's server is known to be up.
type HealthCheck struct {
	Path           string   `yaml:"path"`
	StartupTimeout *float64 `yaml:"startup_timeout"`
}

// Apply sets p's entry file, command and agent adapter from a (nil: a
// command agent started by --command or the submission's defaults).
// results, when set, scores recorded results instead. Problems are
// recorded in errs under file and the key path agent.….
func Apply(p *problem.Problem, a *Agent, results, file string, errs *diag.List) {
	p.Adapter = problem.Adapter{Type: problem.AdapterAgent, Agent: &problem.AgentAdapter{Results: results}}
	p.TimeoutOutcome = problem.TimeoutErrors
	if a == nil {
		return
	}
	p.EntryFile, p.Command = a.EntryFile, a.Command
	if a.EntryFile != "" && !filepath.IsLocal(filepath.FromSlash(a.EntryFile)) {
		// As a problem's entry_file: the run would refuse it, after
		// validate had passed it.
		errs.Add(file, "agent.entry_file", 0, "expected a path relative to the submission, inside it, got %q", a.EntryFile)
	}
	noLine := func(string) int { return 0 }
	if a.Endpoint == "" {
		if len(a.Arguments) > 0 || a.HealthCheck != nil {
			errs.Add(file, "agent", 0, "arguments and health_check configure an agent served over HTTP; set agent.endpoint (the path requests are POSTed to), or drop them for an agent run as a command")
		}
		problem.CheckPlaceholders(file, "agent.", a.Command, nil, nil, errs, noLine)
		return
	}
	if !strings.HasPrefix(a.Endpoint, "/") {
		errs.Add(file, "agent.endpoint", 0, "expected a path starting with /, got %q", a.Endpoint)
	}
	p.Adapter.Agent.Endpoint = a.Endpoint
	s := &problem.Server{Arguments: a.Arguments, Health: problem.HealthCheck{Path: problem.DefaultHealthPath,
		Delay: problem.DefaultHealthDelay, StartupTimeout: problem.DefaultStartupTimeout}}
	if h := a.HealthCheck; h != nil {
		if h.Path != "" {
			if !strings.HasPrefix(h.Path, "/") {
				errs.Add(file, "agent.health_check.path", 0, "expected a path starting with /, got %q", h.Path)
			}
			s.Health.Path = h.Path
		}
		if h.StartupTimeout != nil {
			if *h.StartupTimeout <= 0 {
				errs.Add(file, "agent.health_check.startup_timeout", 0, "expected a positive number of seconds, got %v", *h.StartupTimeout)
			}
			s.Health.StartupTimeout = Seconds(*h.StartupTimeout)
		}
	}
	p.Adapter.Server = s
	problem.CheckPlaceholders(file, "agent.", a.Command, s, nil, errs, noLine)
}

// Seconds converts a number of seconds as written to a duration.
func Seconds(s float64) time.Duration { return problem.Seconds(s) }
