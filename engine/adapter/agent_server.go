package adapter

import (
	"context"
	"fmt"
	"net/http"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/runtime"
)

// AgentServer sends each case's request to the agent's server, started
// once per group as the api adapter starts a submission's server: an
// HTTP POST of the request JSON to Endpoint, whose 2xx response body is
// the result JSON. The server's working directory is the group's
// workspace, the agent's sandbox. Any other status, a response that is
// not a result, a timeout or a server that went down is the case's error.
type AgentServer struct {
	API API
	// Endpoint is the path requests are POSTed to.
	Endpoint string
}

// NewAgentServer returns the adapter for an agent served by server.
func NewAgentServer(server Server, endpoint string) *AgentServer {
	return &AgentServer{API: API{Server: server, Response: problem.ResponseText, OutputCap: DefaultAgentResultBytes}, Endpoint: endpoint}
}

// Begin implements GroupAdapter: it starts the agent's server.
func (a *AgentServer) Begin(ctx context.Context, sess runtime.Session) error {
	return a.API.Begin(ctx, sess)
}

// End implements GroupAdapter.
func (a *AgentServer) End() error { return a.API.End() }

// ServerDown implements ServerDown.
func (a *AgentServer) ServerDown() string { return a.API.Server.Down() }

// Run implements Adapter.
func (a *AgentServer) Run(ctx context.Context, sess runtime.Session, c *cases.Case) (result.Execution, error) {
	body, err := agentRequest(c)
	if err != nil {
		return result.Execution{AdapterError: true, StatusCode: -1, Error: err.Error()}, nil
	}
	if why, err := prepareSandbox(ctx, sess, c); err != nil || why != "" {
		return setupFailed(nil, why), err
	}
	run := *c
	run.InputFiles, run.TrackedFiles = nil, nil
	run.Request = &cases.Request{Method: http.MethodPost, Path: a.Endpoint, Body: body, ContentType: "application/json",
		Headers: map[string]string{"Accept": "application/json"}}
	out, err := a.API.Run(ctx, sess, &run)
	if err != nil || out.AdapterError || out.TimedOut {
		return out, err
	}
	if out.StatusCode < 200 || out.StatusCode > 299 {
		out.AdapterError = true
		out.Error = joinErr(out.Error, fmt.Sprintf("the agent answered HTTP %d, not a result; its body begins %s", out.StatusCode, quoteStart(out.Output)))
		return out, nil
	}
	if takeResult(&out, "the agent's response"); out.AdapterError {
		return out, nil
	}
	return finishAgentCase(ctx, sess, c, out, a.API.MaxFileBytes)
}

// quoteStart quotes the first bytes of s.
func quoteStart(s string) string {
	const max = 200
	if len(s) > max {
		return fmt.Sprintf("%q…", s[:max])
	}
	return fmt.Sprintf("%q", s)
}
