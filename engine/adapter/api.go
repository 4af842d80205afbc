package adapter

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/workspace"
)

// DefaultRequestTimeout bounds a request whose case has no timeout.
const DefaultRequestTimeout = 30 * time.Second

// exitGrace is how long a connection error waits to see whether the
// server exited.
const exitGrace = time.Second

// retryDelay is the pause before a request that could not reach the
// server is sent again.
const retryDelay = 100 * time.Millisecond

// API sends each case's HTTP request to the submission's server, started
// once per group (see Server), and records the response: status code,
// headers and body (text, JSON, base64 for binary, or an archive's files).
type API struct {
	Server Server
	// Response is the default response format (problem.Response*).
	Response     string
	OutputCap    int64
	MaxFileBytes int64

	client *http.Client
}

// Begin implements GroupAdapter: it starts the server.
func (a *API) Begin(ctx context.Context, sess runtime.Session) error {
	a.client = newClient()
	return a.Server.Start(ctx, sess)
}

// End implements GroupAdapter: it stops the server.
func (a *API) End() error {
	if a.client != nil {
		a.client.CloseIdleConnections()
	}
	return a.Server.Stop()
}

// newClient is the engine's HTTP client: keep-alive connections to the one
// server of a group, no redirects followed (a redirect is a result the
// case checks), no proxy from the environment.
func newClient() *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
			MaxIdleConnsPerHost: 16,
			IdleConnTimeout:     30 * time.Second,
			DisableCompression:  true,
		},
		CheckRedirect: noRedirect,
	}
}

// Run implements Adapter.
func (a *API) Run(ctx context.Context, sess runtime.Session, c *cases.Case) (result.Execution, error) {
	out := a.Server.execution()
	fail := func(format string, args ...any) (result.Execution, error) {
		out.AdapterError = true
		out.StatusCode = -1
		out.Error = fmt.Sprintf(format, args...)
		return out, nil
	}
	req := c.Request
	if req == nil {
		return fail("case has no request: the api adapter sends the case's `request` (method, path, …)")
	}
	out.Command = []string{req.Method, req.URL()}
	if err := workspace.WriteFiles(sess.Workdir(), c.InputFiles); err != nil {
		return fail("write input files: %v", err)
	}
	if down := a.Server.Down(); down != "" {
		return fail("%s", down)
	}
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = c.Timeout
	}
	if timeout <= 0 {
		timeout = DefaultRequestTimeout
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	started := time.Now()
	resp, err := a.send(rctx, req)
	if err != nil {
		out.Elapsed = time.Since(started).Seconds()
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		if rctx.Err() != nil {
			out.TimedOut = true
			out.StatusCode = -1
			out.Error = fmt.Sprintf("no response within %s", timeout)
			return out, nil
		}
		// A server that dropped the connection may be on its way out; give
		// its exit a moment to be seen, so the case reports the exit and
		// the log tail rather than a bare connection error.
		if connectionError(err) {
			a.Server.awaitExit(exitGrace)
		}
		if down := a.Server.Down(); down != "" {
			return fail("%s %s: %v; %s", req.Method, req.URL(), err, down)
		}
		return fail("the server did not answer %s %s: %v%s", req.Method, req.URL(), err, a.Server.LogsNote())
	}
	body, dropped, err := readCapped(resp.Body, a.OutputCap)
	resp.Body.Close()
	out.Elapsed = time.Since(started).Seconds()
	if err != nil {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		if rctx.Err() != nil {
			out.TimedOut = true
			out.Error = fmt.Sprintf("response body not complete within %s", timeout)
		} else {
			out.Error = fmt.Sprintf("reading the response body: %v", err)
		}
	}
	out.StatusCode = resp.StatusCode
	out.Headers = flatHeaders(resp.Header)
	format := req.Response
	if format == "" {
		format = a.Response
	}
	max := a.MaxFileBytes
	if max <= 0 {
		max = DefaultMaxFileBytes
	}
	switch format {
	case problem.ResponseBinary:
		out.Output = base64.StdEncoding.EncodeToString(body)
		out.OutputDropped = dropped
	case problem.ResponseArchive:
		files, err := unpackArchive(body, max)
		if err != nil {
			out.Error = joinErr(out.Error, fmt.Sprintf("response archive: %v", err))
			out.Output = capped(body, dropped)
		}
		out.Files = files
	default:
		out.Output = capped(body, dropped)
		out.OutputDropped = dropped
		if format == problem.ResponseJSON && len(body) > 0 && dropped == 0 && !json.Valid(body) {
			out.Error = joinErr(out.Error, "response body is not JSON")
		}
	}
	if len(c.TrackedFiles) > 0 {
		files, err := workspace.ReadTracked(sess.Workdir(), c.TrackedFiles, max)
		if err != nil {
			return fail("read tracked files: %v", err)
		}
		if out.Files == nil {
			out.Files = map[string]any{}
		}
		for k, v := range files {
			out.Files[k] = v
		}
	}
	return out, nil
}

// send sends the request, again after a connection error while retries
// are left and the server is still up.
func (a *API) send(ctx context.Context, r *cases.Request) (*http.Response, error) {
	url := a.Server.BaseURL() + r.URL()
	for attempt := 0; ; attempt++ {
		var body io.Reader
		if r.Body != nil {
			body = bytes.NewReader(r.Body)
		}
		hr, err := http.NewRequestWithContext(ctx, r.Method, url, body)
		if err != nil {
			return nil, err
		}
		if r.ContentType != "" {
			hr.Header.Set("Content-Type", r.ContentType)
		}
		for k, v := range r.Headers {
			hr.Header.Set(k, v)
		}
		resp, err := a.client.Do(hr)
		if err == nil {
			return resp, nil
		}
		if attempt >= r.Retries || !connectionError(err) || ctx.Err() != nil || a.Server.Down() != "" {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(retryDelay):
		}
	}
}

// connectionError reports an error of reaching the server (refused,
// reset, closed before a response) as opposed to a timeout.
func connectionError(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return false
	}
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.EPIPE)
}

// readCapped reads at most cap bytes (0: no cap) and counts the rest.
func readCapped(r io.Reader, cap int64) ([]byte, int64, error) {
	if cap <= 0 {
		b, err := io.ReadAll(r)
		return b, 0, err
	}
	b, err := io.ReadAll(io.LimitReader(r, cap))
	if err != nil {
		return b, 0, err
	}
	dropped, err := io.Copy(io.Discard, r)
	return b, dropped, err
}

// flatHeaders keeps headers by lower-case name; repeated ones are joined.
func flatHeaders(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, v := range h {
		out[strings.ToLower(k)] = strings.Join(v, ", ")
	}
	return out
}

func joinErr(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
