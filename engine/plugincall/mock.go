package plugincall

import (
	"context"
	"errors"

	"github.com/wasmeval/wasmeval/engine/mock"
	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// MockHandler answers a mock service's requests with a plugin of the mock
// kind, with the binding's config; assets are what its read_asset reads
// (the problem's files).
func MockHandler(p *host.Plugin, config map[string]any, assets host.Assets) mock.Handler {
	return &mockHandler{p: p, config: config, assets: assets}
}

type mockHandler struct {
	p      *host.Plugin
	config map[string]any
	assets host.Assets
}

// Answer calls the plugin. A fault, or an error the plugin reports in its
// envelope (it cannot answer), is an error: the state stays as it was.
func (h *mockHandler) Answer(ctx context.Context, service string, req abi.MockRequest, call int, state any) (abi.MockResponse, any, error) {
	out, err := h.p.Mock(ctx, abi.MockInput{Config: h.config, Mock: service, Request: req, Call: call, State: state},
		host.CallOptions{Assets: h.assets})
	if err != nil {
		return abi.MockResponse{}, state, err
	}
	if out.Error != "" {
		return abi.MockResponse{}, state, errors.New("plugin " + h.p.Label() + " cannot answer: " + out.Error)
	}
	return out.Response, out.State, nil
}
