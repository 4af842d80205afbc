package run

import (
	"path/filepath"

	"github.com/wasmeval/wasmeval/engine/adapter"
	"github.com/wasmeval/wasmeval/engine/problem"
)

// ArtifactsDir is the directory, under a run's output directory, that holds
// files kept for cases (server logs, screenshots): one per checkpoint and
// group.
const ArtifactsDir = "artifacts"

// newAdapter builds the adapter a group's cases run through. Adapters with
// per-group state (a server, a browser) are built fresh for every group.
func (r *groupRunner) newAdapter() adapter.Adapter {
	p, j := r.opts.Problem, r.job
	rel := filepath.Join(ArtifactsDir, j.cp.Name, j.group.Name)
	arts := adapter.Artifacts{Dir: filepath.Join(r.opts.OutDir, rel), Rel: rel}
	switch p.Adapter.Type {
	case problem.AdapterAPI:
		return &adapter.API{
			Server:   adapter.Server{Command: j.command, Config: *p.Adapter.Server, Env: j.group.Env, Artifacts: arts},
			Response: p.Adapter.Response, OutputCap: p.OutputCap,
		}
	case problem.AdapterAgent:
		a := p.Adapter.Agent
		switch {
		case a != nil && a.Results != "":
			return &adapter.Recorded{Dir: a.Results}
		case a != nil && a.Endpoint != "":
			return adapter.NewAgentServer(adapter.Server{Command: j.command, Config: *p.Adapter.Server, Env: j.group.Env, Artifacts: arts}, a.Endpoint)
		}
		return &adapter.AgentCommand{Command: j.command}
	case problem.AdapterBrowser:
		cfg := *p.Adapter.Browser
		if r.opts.Browser != "" {
			cfg.Executable = r.opts.Browser
		}
		return &adapter.Browser{
			Server:    adapter.Server{Command: j.command, Config: *p.Adapter.Server, Env: j.group.Env, Artifacts: arts},
			Config:    cfg,
			Artifacts: arts,
		}
	}
	return &adapter.CLI{Command: j.command, OutputCap: p.OutputCap}
}
