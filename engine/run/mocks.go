package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/mock"
	"github.com/wasmeval/wasmeval/engine/placeholder"
	"github.com/wasmeval/wasmeval/engine/plugincall"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/plugins/abi"
)

// startMocks starts the group's mock services where the session's
// processes reach them (runtime.Upstreams), before anything of the
// submission runs. It returns the session the group's processes run in —
// one that gives each of them the services' URLs — and the running
// services, nil when the group declares none.
func (r *groupRunner) startMocks(ctx context.Context, sess runtime.Session) (runtime.Session, *mock.Group, error) {
	g := r.job.group
	if len(g.Mocks) == 0 {
		return sess, nil, nil
	}
	up, ok := sess.(runtime.Upstreams)
	if !ok {
		return nil, nil, fmt.Errorf("the %s runtime cannot give a submission mock services", r.opts.Runtime.Name())
	}
	services := make([]mock.Service, len(g.Mocks))
	for i, m := range g.Mocks {
		services[i] = mock.Service{Name: m.Name, Routes: m.Routes}
		if m.Plugin != nil {
			pl, err := r.plugins.get(ctx, m.Plugin, abi.KindMock)
			if err != nil {
				return nil, nil, fmt.Errorf("mock %q: %w", m.Name, err)
			}
			services[i].Handler = plugincall.MockHandler(pl, m.Plugin.Config, plugincall.ProblemAssets(r.plugins.dir))
		}
	}
	running, err := mock.StartOn(ctx, services, up.Upstream)
	if err != nil {
		return nil, nil, err
	}
	return withMocks(sess, running.URLs()), running, nil
}

// mockSession is a session whose every process — a case's command, a
// server, an agent's setup — gets the group's mock services: each
// service's URL as WASMEVAL_MOCK_<NAME> in its environment, and
// {{mock.NAME}} expanded in its arguments and environment. Doing it here,
// where processes start, reaches every adapter the same way and keeps the
// URLs (whose ports change from run to run) out of the cases' records.
type mockSession struct {
	runtime.Session
	env    map[string]string // WASMEVAL_MOCK_<NAME> → URL
	values map[string]string // {{mock.NAME}} → URL
}

func withMocks(sess runtime.Session, urls map[string]string) *mockSession {
	s := &mockSession{Session: sess, env: map[string]string{}, values: map[string]string{}}
	for name, url := range urls {
		s.env[mock.EnvName(name)] = url
		s.values[placeholder.Mock(name)] = url
	}
	return s
}

func (s *mockSession) Exec(ctx context.Context, req runtime.ExecRequest) (runtime.ExecResult, error) {
	req.Argv, req.Env = s.expand(req.Argv, req.Env)
	return s.Session.Exec(ctx, req)
}

func (s *mockSession) Start(ctx context.Context, req runtime.StartRequest) (runtime.Process, error) {
	req.Argv, req.Env = s.expand(req.Argv, req.Env)
	return s.Session.Start(ctx, req)
}

// expand returns copies of argv and env with the services' placeholders
// filled and their variables added (a variable the process already has
// is left as it is).
func (s *mockSession) expand(argv []string, env map[string]string) ([]string, map[string]string) {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = placeholder.Expand(a, s.values)
	}
	e := make(map[string]string, len(env)+len(s.env))
	for k, v := range env {
		e[k] = placeholder.Expand(v, s.values)
	}
	for k, url := range s.env {
		if _, ok := e[k]; !ok {
			e[k] = url
		}
	}
	return out, e
}

// takeMockCalls moves the calls the group's mocks received while the
// case ran into its execution: the evidence checks and verifiers read.
func takeMockCalls(running *mock.Group, out *result.Execution) {
	if running == nil {
		return
	}
	out.MockCalls, out.MockCallsDropped = running.TakeCalls()
}

// mocksFailed records every case of the group not yet recorded as an
// error of the mock: the services could not start, so nothing ran.
func (r *groupRunner) mocksFailed(ctx context.Context, stream cases.Stream, cause error) error {
	msg := "mock services could not start: " + cause.Error()
	for idx := 0; ; idx++ {
		c, err := stream.Next(ctx, nil)
		if errors.Is(err, io.EOF) {
			return nil
		}
		var rec *result.CaseRecord
		var caseErr *cases.CaseError
		switch {
		case errors.As(err, &caseErr) && ctx.Err() == nil:
			rec = r.unloadable(caseErr, idx)
		case err != nil:
			return fmt.Errorf("%s; case %d and later cannot be listed: %w", msg, idx+1, err)
		default:
			rec = r.newRecord(c, idx, time.Now(), result.Execution{StatusCode: -1, MockError: msg}, caseVerdict{})
			rec.Attempt = r.opts.Resume.attempts(r.key(c)) + 1
		}
		if r.opts.Resume.has(epochKey(rec.Key(), rec.Epoch)) {
			continue
		}
		if err := r.record(rec, false); err != nil {
			return err
		}
	}
}
