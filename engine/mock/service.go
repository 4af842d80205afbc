// Package mock runs the mock services of a group: the upstreams (payments,
// a currency API, an LLM endpoint) that a submission under test calls,
// answered the same way in every run, offline. A service is declarative —
// routes matched on method, path, query, headers and a JSON body subset,
// each with its responses in order — or a Wasm plugin of the mock kind
// behind the Handler interface. Every request a service receives is kept
// as evidence (Call), which the engine attaches to the case that was
// running, so checks and verifiers can assert on what the submission sent.
//
// The package knows no problem format: front-ends map theirs onto Service.
package mock

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/wasmeval/wasmeval/engine/pathpattern"
)

// Service is one mock service of a group.
type Service struct {
	// Name is the service's name: its URL reaches the submission as
	// {{mock.NAME}} and WASMEVAL_MOCK_NAME.
	Name string
	// Routes answer requests, the first that matches; a request no route
	// matches is answered 501 (Unmatched) and kept as evidence.
	Routes []Route
	// Handler, when set, answers every request instead (a plugin).
	Handler Handler
}

// Route is one declarative route: the request it matches and the
// responses it gives, in order. After the last, the last is repeated —
// [ok, ok, fail] makes "the third call fails" and every later one too.
type Route struct {
	// Method matches the request's method (any when empty).
	Method string
	// Path matches the request's path: exactly, with a segment "{name}"
	// matching any one segment, or, ending in "/*", any path below.
	Path string
	// Query: each parameter must have this value (others may be there).
	Query map[string]string
	// Headers: each header must have this value (names are case
	// insensitive; others may be there).
	Headers map[string]string
	// Body, when set, is a JSON value the request's body must contain
	// (objects: the keys given, lists: the elements given, in any order).
	Body any
	// Responses in order; at least one.
	Responses []Response
}

// Response is one declarative response.
type Response struct {
	Status  int
	Headers map[string]string
	Body    []byte
	// DelayMS holds the response back, as a slow upstream would.
	DelayMS int
}

// Limits of a service.
const (
	MaxRequestBody = 16 << 20 // a request body beyond it is answered 413
	MaxDelayMS     = 60_000
)

var nameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// Check says what is wrong with the services of a group, naming the
// service, the route and the field; nil when nothing is.
func Check(services []Service) error {
	seen := map[string]bool{}
	for _, s := range services {
		if !nameRE.MatchString(s.Name) || len(s.Name) > 64 {
			return fmt.Errorf("mock %q: expected a name of letters, digits and _, starting with a letter (at most 64), as it becomes {{mock.%s}} and an environment variable", s.Name, s.Name)
		}
		if seen[strings.ToUpper(s.Name)] {
			return fmt.Errorf("mock %q: declared twice (names are compared without case, as environment variables)", s.Name)
		}
		seen[strings.ToUpper(s.Name)] = true
		if s.Handler != nil {
			if len(s.Routes) > 0 {
				return fmt.Errorf("mock %q: has both routes and a plugin; give one", s.Name)
			}
			continue
		}
		if len(s.Routes) == 0 {
			return fmt.Errorf("mock %q: no routes and no plugin: expected routes or a plugin", s.Name)
		}
		for i, r := range s.Routes {
			if err := r.check(); err != nil {
				return fmt.Errorf("mock %q: routes[%d]: %w", s.Name, i, err)
			}
		}
	}
	return nil
}

func (r *Route) check() error {
	if r.Method != "" && !token(r.Method) {
		return fmt.Errorf("method %q: expected an HTTP method such as GET or POST", r.Method)
	}
	if err := pathpattern.Check(r.Path); err != nil {
		return err
	}
	for name := range r.Headers {
		if !token(name) {
			return fmt.Errorf("headers: %q is not an HTTP header name", name)
		}
	}
	if len(r.Responses) == 0 {
		return fmt.Errorf("responses: expected at least one")
	}
	for i, resp := range r.Responses {
		if resp.Status < 100 || resp.Status > 599 {
			return fmt.Errorf("responses[%d].status %d: expected an HTTP status from 100 to 599", i, resp.Status)
		}
		if resp.DelayMS < 0 || resp.DelayMS > MaxDelayMS {
			return fmt.Errorf("responses[%d].delay_ms %d: expected 0 to %d", i, resp.DelayMS, MaxDelayMS)
		}
		for name, v := range resp.Headers {
			if !token(name) {
				return fmt.Errorf("responses[%d].headers: %q is not an HTTP header name", i, name)
			}
			if strings.ContainsAny(v, "\r\n\x00") {
				return fmt.Errorf("responses[%d].headers[%q]: a value may not hold a line break", i, name)
			}
		}
	}
	return nil
}

// token says whether s is an HTTP token (RFC 9110): a method or a field
// name. (plugins/host checks a mock plugin's response headers the same
// way; the rule is not in plugins/abi because every Go plugin links that
// package, and any addition to it changes their pinned digests.)
func token(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x7f || c <= ' ' || strings.IndexByte("\"(),/:;<=>?@[\\]{}", c) >= 0 {
			return false
		}
	}
	return true
}

// canonicalHeader is how header names are compared and kept: lowercase.
func canonicalHeader(name string) string { return strings.ToLower(name) }
