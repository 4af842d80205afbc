package mock

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/wasmeval/wasmeval/plugins/abi"
)

// Call is one request a mock service received, kept as evidence for the
// case that was running: what the submission sent and what it got back.
type Call = abi.MockCall

// MaxCalls is how many calls a take keeps (the first ones); the rest are
// counted, so a submission that floods a mock cannot grow the evidence
// without bound.
const MaxCalls = 1000

// Group is the running mock services of a group.
type Group struct {
	ctx      context.Context
	services []*running
	mu       sync.Mutex // guards calls and dropped
	calls    []Call
	dropped  int
	wg       sync.WaitGroup
}

// running is one service: its server and its state in the group.
type running struct {
	svc    Service
	url    string
	server *http.Server
	ln     net.Listener
	mu     sync.Mutex // serialises answers, so the state goes from call to call in order
	counts []int      // per route: the calls it answered
	calls  int        // the calls answered (a plugin's call number)
	state  any        // what the plugin's last answer left
}

// Listen opens the listener a service is served on and says at which
// host:port the submission reaches it (runtime.Upstreams.Upstream).
type Listen func(ctx context.Context, service string) (net.Listener, string, error)

// OnHost listens on a port of host (an IP address): where the submission
// runs beside the engine, as on the local runtime's 127.0.0.1.
func OnHost(host string) Listen {
	return func(_ context.Context, service string) (net.Listener, string, error) {
		ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			return nil, "", fmt.Errorf("cannot listen on %s: %w", host, err)
		}
		return ln, ln.Addr().String(), nil
	}
}

// Start checks services and starts each on its own port of host. They
// answer until Close; ctx bounds the plugin calls they make.
func Start(ctx context.Context, services []Service, host string) (*Group, error) {
	return StartOn(ctx, services, OnHost(host))
}

// StartOn checks services and starts each on a listener of its own from
// listen, reached at the address listen gives.
func StartOn(ctx context.Context, services []Service, listen Listen) (*Group, error) {
	if err := Check(services); err != nil {
		return nil, err
	}
	g := &Group{ctx: ctx}
	for _, s := range services {
		ln, addr, err := listen(ctx, s.Name)
		if err != nil {
			g.Close()
			return nil, fmt.Errorf("mock %q: %w", s.Name, err)
		}
		r := &running{svc: s, ln: ln, counts: make([]int, len(s.Routes)), url: "http://" + addr}
		r.server = &http.Server{Handler: g.handler(r), ReadHeaderTimeout: time.Minute}
		g.services = append(g.services, r)
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			r.server.Serve(ln) // returns when closed
		}()
	}
	return g, nil
}

// URLs maps each service's name to its base URL (http://HOST:PORT).
func (g *Group) URLs() map[string]string {
	out := make(map[string]string, len(g.services))
	for _, r := range g.services {
		out[r.svc.Name] = r.url
	}
	return out
}

// TakeCalls returns the calls received since the last take, in the order
// they arrived, and how many more were received but not kept (MaxCalls).
func (g *Group) TakeCalls() ([]Call, int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	calls, dropped := g.calls, g.dropped
	g.calls, g.dropped = nil, 0
	return calls, dropped
}

// Close stops every service and waits for them.
func (g *Group) Close() error {
	var errs []error
	for _, r := range g.services {
		if err := r.server.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	g.wg.Wait()
	return errors.Join(errs...)
}

func (g *Group) keep(c Call) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.calls) >= MaxCalls {
		g.dropped++
		return
	}
	g.calls = append(g.calls, c)
}

func (g *Group) handler(r *running) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, hr *http.Request) {
		req, call, tooLarge := readRequest(r.svc.Name, hr)
		if tooLarge {
			call.Status = http.StatusRequestEntityTooLarge
			g.keep(call)
			http.Error(w, fmt.Sprintf("mock %s: a request body over %d bytes", r.svc.Name, MaxRequestBody), call.Status)
			return
		}
		resp := r.answer(g.ctx, req, &call)
		call.Status = resp.Status
		g.keep(call)
		if resp.DelayMS > 0 {
			select {
			case <-time.After(time.Duration(resp.DelayMS) * time.Millisecond):
			case <-hr.Context().Done():
				return
			}
		}
		for k, v := range resp.Headers {
			w.Header().Set(k, v)
		}
		w.WriteHeader(resp.Status)
		w.Write(resp.Body)
	})
}

// readRequest reads a request and its evidence; tooLarge when its body is
// over MaxRequestBody.
func readRequest(name string, hr *http.Request) (*request, Call, bool) {
	body, err := io.ReadAll(io.LimitReader(hr.Body, MaxRequestBody+1))
	req := &request{method: hr.Method, path: hr.URL.Path, query: hr.URL.Query(), headers: map[string][]string{}, body: body}
	for k, v := range hr.Header {
		req.headers[canonicalHeader(k)] = v
	}
	call := Call{Mock: name, Method: hr.Method, Path: hr.URL.Path, Query: req.query, Headers: req.headers, Route: -1}
	if len(call.Query) == 0 {
		call.Query = nil
	}
	if utf8.Valid(body) {
		call.Body = string(body)
	} else {
		call.BodyBase64 = base64.StdEncoding.EncodeToString(body)
	}
	return req, call, err == nil && len(body) > MaxRequestBody
}

// answer finds the response to req, one request of the service at a time,
// and notes on call how it was found.
func (r *running) answer(ctx context.Context, req *request, call *Call) Response {
	r.mu.Lock()
	defer r.mu.Unlock()
	if h := r.svc.Handler; h != nil {
		n := r.calls
		r.calls++
		resp, state, err := h.Answer(ctx, r.svc.Name, abiRequest(req, call), n, r.state)
		if err != nil {
			call.Fault = err.Error()
			return Response{Status: http.StatusInternalServerError, Headers: textPlain,
				Body: []byte(fmt.Sprintf("mock %s could not answer: %v\n", r.svc.Name, err))}
		}
		r.state = state
		body, err := resp.BodyBytes()
		if err != nil {
			call.Fault = "response.body_base64: " + err.Error()
			return Response{Status: http.StatusInternalServerError, Headers: textPlain, Body: []byte(call.Fault + "\n")}
		}
		return Response{Status: resp.Status, Headers: resp.Headers, Body: body, DelayMS: resp.DelayMS}
	}
	for i := range r.svc.Routes {
		route := &r.svc.Routes[i]
		if !route.matches(req) {
			continue
		}
		n := r.counts[i]
		r.counts[i]++
		resp := route.Responses[min(n, len(route.Responses)-1)]
		call.Route = i
		return resp
	}
	call.Unmatched = true
	return Response{Status: http.StatusNotImplemented, Headers: textPlain,
		Body: []byte(fmt.Sprintf("no route of mock %s matches %s %s\n", r.svc.Name, req.method, req.path))}
}

var textPlain = map[string]string{"Content-Type": "text/plain; charset=utf-8"}

// abiRequest is a request as a mock plugin gets it.
func abiRequest(req *request, call *Call) abi.MockRequest {
	out := abi.MockRequest{Method: req.method, Path: req.path, Query: req.query, Headers: req.headers,
		Body: call.Body, BodyBase64: call.BodyBase64}
	if out.Query == nil {
		out.Query = map[string][]string{}
	}
	return out
}

// EnvName is the environment variable that carries a service's URL to the
// submission: WASMEVAL_MOCK_ and the name in capitals.
func EnvName(service string) string {
	return "WASMEVAL_MOCK_" + strings.ToUpper(service)
}
